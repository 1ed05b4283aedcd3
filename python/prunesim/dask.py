"""Deadline-bound tasks on a Dask cluster, placed, deferred and dropped by the live scheduler.

``pip install ./python[dask]``. A :class:`DaskScheduler` is the dispatcher core
(:class:`prunesim.executor.Executor`: futures, stopping, retries, workers down and up,
statistics, metrics) over a ``dask.distributed.Client``: each thread of a mapped worker is a
machine of the PET (its column the worker's machine type), tasks are callables with a task
type and a deadline::

    if __name__ == "__main__":  # LocalCluster starts processes
        with Client(LocalCluster(n_workers=4, threads_per_worker=1)) as client:
            with DaskScheduler(client, pet, {0: "fast", 1: "fast", 2: "slow", 3: "slow"},
                               resolution=0.01) as ds:
                print(ds.submit(work, 3, task_type="a", deadline=0.5).result())

The tasks a machine's queue holds are dispatched to its worker at once (restricted to it,
under the key ``<task type>-<tag>-<id>``); the batch and the deferred tasks wait on the
client. Under ``isolation="process"`` (the default) a task runs in a child process of its
worker (:mod:`prunesim._slot`), so a task dropped while running or still running ``grace``
seconds after its deadline is killed and the worker serves the next; inside it,
:func:`prunesim.executor.current_worker` names the worker. ``isolation="thread"`` runs it in
Dask's own thread, where nothing can stop it. The user guide's chapter "Pruning on a Dask
cluster" says what each future raises and what it costs.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import Pet
from ._dask_worker import (_close_slots, _executing, _in_slot, _stop_keys, _timed,
                           _warm_slots, _workers_by_name)
from ._slot import Pickled
from .executor import DROPS, OUTCOMES, Backend, Backlogged, Executor, ExecutorError, Remote
from .executor import RemoteFuture, Run, TaskDropped, WorkerLost

__all__ = ["Backlogged", "DaskBackend", "DaskScheduler", "ExecutorError", "TaskDropped",
           "WorkerLost", "DROPS", "OUTCOMES", "workers_by_resource"]

try:  # the optional extra: ``pip install prunesim[dask]``
    import distributed as _distributed
except ImportError:  # pragma: no cover - depends on the environment
    _distributed = None


def workers_by_resource(
    workers: Mapping[str, Any], resources: Mapping[str, Union[str, int]]
) -> Dict[str, Union[str, int]]:
    """Worker names to machine types from Dask's worker records (``scheduler_info()``'s
    ``"workers"``: each with its ``name`` and ``resources``): a worker's type is that of the
    first of ``resources`` (resource name to machine type) it has more than 0 of."""
    kinds = {str(w["name"]): _by_resource(w.get("resources"), resources)
             for w in workers.values()}
    out = {name: kind for name, kind in kinds.items() if kind is not None}
    if not out:
        raise ValueError(f"no worker has any of the resources {list(resources)}")
    return dict(sorted(out.items()))


def _by_resource(have: Optional[Mapping[str, float]], resources: Mapping[str, Any]) -> Any:
    """The machine type of the first of ``resources`` a worker has more than 0 of."""
    return next((t for r, t in resources.items() if (have or {}).get(r, 0) > 0), None)


# ------------------------------------------------------------------- on the client


class DaskBackend(Backend):
    """The executor's workers on a Dask cluster (see the module's text)."""

    #: A task's end reaches the client through the Dask scheduler, the next task reaches
    #: the worker the same way: 10-30 ms on a loaded host (the guide's overhead section).
    latency = 0.03

    def __init__(
        self, client: Any, isolation: str = "process",
        kind_of: Optional[Callable[[Dict[str, Any]], Any]] = None,
    ) -> None:
        if isolation not in ("process", "thread"):
            raise ValueError(f"isolation: 'process' or 'thread', found {isolation!r}")
        self.client = client
        self.isolation = isolation
        self._kind_of = kind_of
        self._info: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._futures: Dict[int, Tuple[Run, Any]] = {}  # launched, not fetched yet
        # The values of the tasks that ended, fetched in batches by one thread (a gather
        # of many futures costs the client about what one costs).
        self._ready: "queue.SimpleQueue[Optional[Tuple[Run, Any, str]]]" = queue.SimpleQueue()
        self._fetch_thread = threading.Thread(target=self._fetch_loop,
                                              name="prunesim-dask-fetch", daemon=True)
        self._fetch_thread.start()
        # Stopping tasks (messages to the workers) off the driver's thread: a message to a
        # worker that is slow to answer does not hold the others up.
        self._fetcher = concurrent.futures.ThreadPoolExecutor(
            4, thread_name_prefix="prunesim-dask-stop"
        )
        self._addresses: set = set()  # the workers present at the last look
        # The values left on each worker, until fetched (a worker that leaves loses them).
        self._remotes: Dict[str, "weakref.WeakSet[Remote]"] = {}
        self._warmed: set = set()

    @property
    def tag(self) -> str:
        assert self.executor is not None
        return self.executor._tag

    def present(self) -> Optional[Dict[str, Any]]:
        answer = self.client.run_on_scheduler(_workers_by_name)
        workers = {name: addr for name, (addr, _, _) in answer.items()}
        self._info = {name: {"name": name, "address": addr, "resources": res, "nthreads": n}
                      for name, (addr, res, n) in answer.items()}
        self._addresses = set(workers.values())
        if self.isolation == "process":
            new = [a for a in workers.values() if a not in self._warmed]
            if new:  # each worker's slot processes started before its first task
                self._warmed.update(new)
                self.client.run(_warm_slots, self.tag, workers=new, wait=False)
        return workers

    def launch(self, run: Run) -> None:
        options = dict(key=run.key, workers=[run.handle], allow_other_workers=False, pure=False)
        if self.isolation == "process":
            fut = self.client.submit(_in_slot, self.tag, run.key, run.payload, run.kill_at,
                                     **options)
        else:
            fut = self.client.submit(_timed, run.fn, run.args, run.kwargs, **options)
        with self._lock:
            self._futures[run.task] = (run, fut)
        fut.add_done_callback(lambda f, run=run: self._done(run, f))

    def _done(self, run: Run, fut: Any) -> None:
        """A future's callback (Dask's callback thread, shared by every future of the
        process: it must not block): the end goes to the driver at once, the value (or the
        exception) is fetched by a thread of our own."""
        executor = self.executor
        assert executor is not None
        status = fut.status
        executor.ended(run.task, status == "finished")
        self._ready.put((run, fut, status))

    def new_future(self) -> "concurrent.futures.Future[Any]":
        return RemoteFuture(self.executor)

    def _fetch_loop(self) -> None:
        while True:
            item = self._ready.get()
            batch = []
            while item is not None:
                batch.append(item)
                if len(batch) >= 1000:
                    break
                try:
                    item = self._ready.get_nowait()
                except queue.Empty:
                    break
            if batch:
                try:
                    self._fetch_batch(batch)
                except BaseException:  # pragma: no cover - each future is told in _fetch
                    pass
            if item is None:
                return

    def _fetch_batch(self, batch: List[Tuple[Run, Any, str]]) -> None:
        """Tasks that ended: a finished one settles with its value left on its worker
        (:class:`~prunesim.executor.RemoteFuture` fetches it when asked), an erred one with its error."""
        executor = self.executor
        assert executor is not None
        for run, fut, status in batch:
            if status == "finished":
                with self._lock:
                    self._futures.pop(run.task, None)
                remote = Remote(fut, run.task, run.worker)
                self._remotes.setdefault(run.worker, weakref.WeakSet()).add(remote)
                executor.settled(run.task, value=remote)
            else:
                self._fetch(run, fut, status)

    def _fetch(self, run: Run, fut: Any, status: str) -> None:
        """The value (or error) of a future that ended, to the executor."""
        executor = self.executor
        assert executor is not None
        try:
            if status == "finished":
                value, start, end = fut.result()
                if isinstance(value, Pickled):
                    value = value.load()
                executor.settled(run.task, value=value, run=(start, end))
                return
            if status == "error":
                error: BaseException = fut.exception()
            else:  # cancelled by another hand (the client closing), or lost
                error = concurrent.futures.CancelledError(f"task {run.task}: Dask says {status}")
        except BaseException as e:  # its worker left before the value came, or it won't load
            error = e
            if status == "finished" and isinstance(e, (concurrent.futures.CancelledError,
                                                       OSError)):
                error = WorkerLost(f"task {run.task}: ended on worker {run.worker}, which left "
                                   "before its value was fetched")
                error.__cause__ = e
        finally:
            with self._lock:
                self._futures.pop(run.task, None)
        executor.settled(run.task, error=error, ended_ok=status == "finished")

    def stop(self, runs: Sequence[Run], why: str) -> None:
        with self._lock:
            futures = [self._futures.pop(r.task, (None, None))[1] for r in runs]
        futures = [f for f in futures if f is not None]
        by_worker: Dict[Any, List[str]] = {}
        for r in runs:  # a worker that left runs nothing: no message to it
            if r.handle in self._addresses:
                by_worker.setdefault(r.handle, []).append(r.key)
        try:
            self._fetcher.submit(self._stop, futures, by_worker, why)
        except RuntimeError:  # closing: stopped in the foreground
            self._stop(futures, by_worker, why)

    def _stop(self, futures: List[Any], by_worker: Dict[Any, List[str]], why: str) -> None:
        try:
            if futures:
                self.client.cancel(futures)
            if self.isolation == "process":
                for address, keys in by_worker.items():
                    self.client.run(_stop_keys, self.tag, keys, why, workers=[address],
                                    wait=False)
        except Exception:  # the cluster is going away: nothing runs on it
            pass

    def kind_of(self, worker: str) -> Optional[Union[str, int]]:
        info = self._info.get(worker)
        return self._kind_of(info) if info is not None and self._kind_of is not None else None

    def threads_of(self, worker: str) -> int:
        return int(self._info.get(worker, {}).get("nthreads", 1))

    def lost(self, worker: str) -> None:
        with self._lock:
            gone = [f for run, f in self._futures.values() if run.worker == worker]
            gone += [r.future for r in self._remotes.pop(worker, ()) if r.future is not None]
        if gone:
            try:
                self.client.cancel(gone)
            except Exception:  # pragma: no cover - the client is gone
                pass

    def running(self) -> Optional[int]:
        try:
            # A worker that died meanwhile answers with its error: it runs nothing.
            answers = self.client.run(_executing, self.tag, on_error="return")
        except Exception:  # the cluster is gone: nothing runs on it
            return 0
        return sum(n for n in answers.values() if isinstance(n, int))

    def shutdown(self) -> None:
        with self._lock:
            stuck = [f for _, f in self._futures.values()]
            self._futures.clear()
        try:
            if stuck:  # values Dask can no longer give
                self.client.cancel(stuck)
            if self.isolation == "process":
                self.client.run(_close_slots, self.tag, wait=False)
        except Exception:  # pragma: no cover - the client is gone
            pass
        self._fetcher.shutdown(wait=False)
        self._ready.put(None)


class DaskScheduler(Executor):
    """A Dask client's tasks placed, deferred and dropped by :class:`prunesim.Scheduler`:
    :class:`prunesim.executor.Executor` over :class:`DaskBackend`.

    Args:
        client: a connected ``dask.distributed.Client``.
        pet: the PET by machine type: a row per task type, a column per machine type.
        workers: each worker the scheduler uses, by its Dask name (``LocalCluster`` names
            them 0, 1, ...; ``dask worker --name``), to its machine type (a name of
            ``pet.machine_names`` or a column index). :meth:`from_resources` maps the
            workers by their Dask resources instead.
        isolation: ``"process"`` (default: a task can be stopped) or ``"thread"``.
        spares: machines kept for workers that join later (machine type to how many: one
            per thread of a joining worker, as many as are free), for ``cluster.scale``,
            ``adapt`` and dask-jobqueue; freed when the worker leaves.
        kind_of: the machine type of a worker that joins: a mapping of Dask resources to
            types (the first it has, as :meth:`from_resources`) or a function of its record
            (``name``, ``address``, ``resources``, ``nthreads``) returning a type or
            ``None``; with one machine type in the PET, every joiner is of it.
        slots: how many machines each worker is (an integer for all, or by worker name):
            by default its threads (``nthreads``) when it is in the cluster, else 1. A
            worker of 4 threads is 4 machines ``"<name>/0"`` ... ``"<name>/3"``, whose
            tasks it runs in the order they were dispatched.
        **options: the executor's (``heuristic``, ``drop_model``, ``learn``, ``grace``,
            ``backlog``, ``poll``) and :class:`prunesim.Scheduler`'s (``queue_size``,
            ``resolution``: the seconds of a PET tick, ...).
    """

    def __init__(
        self,
        client: Any,
        pet: Pet,
        workers: Mapping[Any, Union[str, int]],
        *,
        isolation: str = "process",
        slots: Optional[Union[int, Mapping[Any, int]]] = None,
        spares: Optional[Mapping[Union[str, int], int]] = None,
        kind_of: Optional[Union[Mapping[str, Union[str, int]],
                                Callable[[Dict[str, Any]], Any]]] = None,
        **options: Any,
    ) -> None:
        if _distributed is None:  # pragma: no cover - depends on the environment
            raise ImportError("prunesim.dask needs dask.distributed: pip install prunesim[dask]")
        self.client = client
        threads = {str(w["name"]): int(w.get("nthreads", 1))
                   for w in client.scheduler_info()["workers"].values()}
        machines: Dict[str, Union[str, int]] = {}
        slot_of: Dict[str, str] = {}
        for name, kind in workers.items():
            if slots is None:
                n = threads.get(str(name), 1)
            elif isinstance(slots, Mapping):
                n = slots.get(name, slots.get(str(name), 1))
            else:
                n = slots
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"slots of worker {name!r} must be an integer >= 1, found {n!r}")
            for k in range(n):
                machine = str(name) if n == 1 else f"{name}/{k}"
                machines[machine] = kind
                slot_of[machine] = str(name)
        classify: Optional[Callable[[Dict[str, Any]], Any]] = None
        if isinstance(kind_of, Mapping):
            resources = dict(kind_of)
            classify = lambda info: _by_resource(info["resources"], resources)  # noqa: E731
        elif kind_of is not None:
            classify = kind_of
        elif spares and len(pet.machine_names) == 1:
            classify = lambda info: 0  # noqa: E731 - one machine type: every joiner is it
        super().__init__(DaskBackend(client, isolation, classify), pet, machines,
                         slot_of=slot_of, spares=spares, **options)

    def gather(self, futures: Sequence[Any], timeout: Optional[float] = None) -> List[Any]:
        """The values of ``futures`` in order (the first error raised, as
        ``Client.gather``): those still on their workers fetched in one ``gather``, not a
        round trip each as ``[f.result() for f in futures]`` makes."""
        concurrent.futures.wait(futures, timeout)
        pending = [(f, f.pending()) for f in futures if isinstance(f, RemoteFuture)]
        pending = [(f, r) for f, r in pending if r is not None and r.future is not None]
        if pending:
            try:
                values = self.client.gather([r.future for _, r in pending])
            except Exception:  # one did not come back: each says why when asked
                values = None
            for (f, _), got in zip(pending, values or ()):
                f._value(timeout, got)
        return [f.result(timeout) for f in futures]

    @classmethod
    def from_resources(
        cls, client: Any, pet: Pet, resources: Mapping[str, Union[str, int]], **options: Any
    ) -> "DaskScheduler":
        """A scheduler whose machines are the workers in the cluster now that have one of
        ``resources`` (a Dask worker resource, ``dask worker --resources "GPU=1"``, to a
        machine type), each of the type of the first of its resources in that order. The
        rest as :class:`DaskScheduler`; a worker that joins later takes a spare (``spares``)
        of the type its resources say."""
        info = client.scheduler_info()["workers"]
        options.setdefault("kind_of", resources)
        return cls(client, pet, workers_by_resource(info, resources), **options)

