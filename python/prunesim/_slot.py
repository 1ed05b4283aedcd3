"""Task slots that can be stopped: one child Python process per task running on a host.

A Python thread cannot be interrupted, so a task that runs where a thread runs it (a Dask
worker's thread) runs to its end however late it is. A :class:`Slots` pool runs each task in
a child process of its own host process instead: the caller's thread sends the task (a
``cloudpickle`` of the function and its arguments) down a pipe and waits for the answer;
stopping the task kills the child, and the next task starts a fresh one. A child serves one
task at a time and is reused while it lives, so starting a process is paid once per slot and
once after each stop (``python -m prunesim._slot``: about 0.1 s), and each task pays a pickle
round trip through a pipe (tens of microseconds for small arguments).

The child runs ``python -m prunesim._slot`` with the host's ``sys.path`` and the environment
variable ``PRUNESIM_WORKER`` (the name the host gives it: a Dask worker's name), inherits the
host's standard output and error, and exits when its host closes the pipe.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

try:
    import cloudpickle as _pickler
except ImportError:  # pragma: no cover - cloudpickle comes with dask
    _pickler = pickle  # type: ignore[assignment]

_HEADER = struct.Struct("!Q")


class Stopped(Exception):
    """The task's slot process was stopped (the task dropped, or past its deadline and grace),
    or it died; ``why`` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Pickled:
    """A value as its pickle; :meth:`load` makes the value."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def load(self) -> Any:
        return pickle.loads(self.data)


def dumps(value: Any) -> bytes:
    """``cloudpickle`` (functions defined in ``__main__`` and lambdas included)."""
    return _pickler.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exactly(fd: int, n: int, until: Optional[float]) -> Optional[bytes]:
    """``n`` bytes from ``fd``; ``None`` at the end of the pipe; raises ``TimeoutError`` at
    ``until`` (``time.time()``)."""
    chunks: List[bytes] = []
    while n:
        if until is not None:
            left = until - time.time()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read(fd: int, until: Optional[float] = None) -> Optional[bytes]:
    head = _read_exactly(fd, _HEADER.size, until)
    if head is None:
        return None
    body = _read_exactly(fd, _HEADER.unpack(head)[0], until)
    return body


def _serve(read_fd: int, write_fd: int) -> None:  # pragma: no cover - runs in the child
    """The child: runs each task it reads and writes back ``(ok, value or error, start, end)``."""
    while True:
        data = _read(read_fd)
        if data is None:
            return
        start = time.time()
        try:
            fn, args, kwargs = pickle.loads(data)
            answer: Tuple[bool, Any] = (True, fn(*args, **kwargs))
        except BaseException as e:  # the task's own error goes back to its caller
            answer = (False, e)
        end = time.time()
        try:
            body = dumps(answer[1])
        except BaseException as e:  # a value or error that cannot be pickled
            error = TypeError(
                f"the task's {'value' if answer[0] else 'error'} cannot be sent back from its "
                f"process: {type(e).__name__}: {e} ({answer[1]!r:.200})"
            )
            answer, body = (False, error), dumps(error)
        _write(write_fd, pickle.dumps((answer[0], body, start, end)))


class _Child:
    def __init__(self, name: str) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env["PRUNESIM_WORKER"] = name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "prunesim._slot", str(to_child_r), str(from_child_w)],
            pass_fds=(to_child_r, from_child_w),
            env=env,
            close_fds=True,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.write_fd = to_child_w
        self.read_fd = from_child_r
        self.stopped: Optional[str] = None

    def kill(self, why: str) -> None:
        if self.stopped is None:
            self.stopped = why
        try:
            self.proc.kill()
        except OSError:  # pragma: no cover - already gone
            pass

    def close(self) -> None:
        for fd in (self.write_fd, self.read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.kill()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):  # pragma: no cover
            pass


class Slots:
    """Child processes that run tasks, one task each at a time, started as needed.

    :meth:`run` may be called from many threads at once (each call takes an idle child or
    starts one); :meth:`stop` kills the child that runs a given key."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._idle: List[_Child] = []
        self._busy: Dict[str, _Child] = {}
        self._stop_early: Dict[str, str] = {}
        self.started = 0

    def run(self, key: str, payload: bytes, kill_at: Optional[float] = None) -> Any:
        """Runs the pickled ``(fn, args, kwargs)`` in a child: returns ``(value, start,
        end)``, the value still pickled (:class:`Pickled`: the host need not be able to load
        it), or raises the task's error; raises :class:`Stopped` when the child is
        stopped by :meth:`stop`, passes ``kill_at`` (``time.time()``) or dies."""
        with self._lock:
            why = self._stop_early.pop(key, None)
            if why is not None:
                raise Stopped(why)
            child = self._idle.pop() if self._idle else None
            if child is None:
                child = _Child(self.name)
                self.started += 1
            self._busy[key] = child
        try:
            try:
                _write(child.write_fd, payload)
                data = _read(child.read_fd, kill_at)
            except TimeoutError:
                child.kill("overran: still running at its deadline plus the grace")
                data = None
            except OSError as e:
                child.kill(f"its process failed: {e}")
                data = None
            if data is None:
                why = child.stopped or f"its process died (exit status {child.proc.wait()})"
                raise Stopped(why)
            ok, body, start, end = pickle.loads(data)
        finally:
            with self._lock:
                self._busy.pop(key, None)
                if child.stopped is None and child.proc.poll() is None:
                    self._idle.append(child)
                else:
                    child.close()
        if not ok:
            try:
                error = pickle.loads(body)
            except BaseException as e:
                raise RuntimeError(f"the task failed with an error that does not load here: "
                                   f"{type(e).__name__}: {e}") from None
            raise error
        return Pickled(body), start, end

    def warm(self, n: int) -> None:
        """Starts idle children until ``n`` are alive (the first tasks then start at once)."""
        with self._lock:
            while len(self._idle) + len(self._busy) < n:
                self._idle.append(_Child(self.name))
                self.started += 1

    def stop(self, key: str, why: str = "stopped") -> bool:
        """Kills the child running ``key``; a key not started yet is stopped when it comes.
        True when a running child was killed."""
        with self._lock:
            child = self._busy.get(key)
            if child is None:
                self._stop_early[key] = why
                if len(self._stop_early) > 10_000:  # keys that never came: forget the oldest
                    for old in list(self._stop_early)[:5_000]:
                        del self._stop_early[old]
                return False
        child.kill(why)
        return True

    def running(self) -> List[str]:
        """The keys running now."""
        with self._lock:
            return list(self._busy)

    def close(self) -> None:
        """Kills every child."""
        with self._lock:
            children = self._idle + list(self._busy.values())
            self._idle = []
        for child in children:
            child.kill("closed")
            child.close()


if __name__ == "__main__":  # pragma: no cover - the child
    _serve(int(sys.argv[1]), int(sys.argv[2]))
