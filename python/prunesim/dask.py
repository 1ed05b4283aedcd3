"""Deadline-bound tasks on a Dask cluster, placed, deferred and dropped by the live scheduler.

``pip install ./python[dask]`` (``dask[distributed]``). A :class:`DaskScheduler` drives a
``dask.distributed.Client`` with :class:`prunesim.Scheduler`: each mapped worker is one machine
of the PET (its column is the worker's machine type), tasks are callables with a task type and
a deadline, and the scheduler decides where each runs, which wait and which are dropped::

    from dask.distributed import Client, LocalCluster
    from prunesim.dask import DaskScheduler

    pet = prunesim.Pet([[fast_a, slow_a], [fast_b, slow_b]],
                       type_names=["a", "b"], machine_names=["fast", "slow"])
    with Client(LocalCluster(n_workers=4, threads_per_worker=1)) as client:
        with DaskScheduler(client, pet, {0: "fast", 1: "fast", 2: "slow", 3: "slow"},
                           resolution=0.01) as ds:
            f = ds.submit(work, 3, task_type="a", deadline=0.5)   # due in 0.5 s
            print(f.result())
        print(ds.stats("worker"))

How it maps onto Dask:

* a task goes to Dask when the scheduler starts it, restricted to its worker
  (``workers=[address], allow_other_workers=False, pure=False``): a worker holds at most one
  of the scheduler's tasks at a time (plus, for a while, a dropped one Dask could not stop),
  so the machine queue of ``queue_size`` tasks and the deferred tasks wait on the client side
  and a task dropped from them was never sent;
* a dropped task that was executing is cancelled (``Client.cancel``): Dask forgets it, but a
  Python function already running on a worker thread runs to its end; it counts as dropped
  either way, and its result is discarded;
* ends are reported to the scheduler at the client's time of the future's end (the worker
  measures the run itself, ``run_start``/``run_end`` in :meth:`tasks`), so ``learn_online``
  learns the times the client sees: the run plus the round trip;
* a worker that leaves the cluster (killed, lost, retired) is its machine marked down: its
  executing task and every task the scheduler still starts on it fail
  (:class:`WorkerLost`), and its PET column becomes a time no deadline meets, so nothing new
  is mapped to it; a mapped worker that joins (or comes back under its name) is its machine
  up again, with its column back;
* a task that ended but whose value does not come back keeps its outcome (it met or missed
  its deadline) and its future raises: :class:`WorkerLost` when its worker left before the
  value was fetched (Dask could only recompute it on the worker that is gone), else the
  error fetching it raised (a value that cannot be unpickled on the client); its reason is
  that error's type;
* :meth:`close` (also on leaving a ``with`` block by an exception, ``KeyboardInterrupt``
  included) cancels what is outstanding and waits until no task of it runs on a worker.

One background thread owns the scheduler; :meth:`submit` may be called from any thread.
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
import uuid
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from . import Pet, Pmf, Scheduler, SchedulerError

__all__ = [
    "DaskScheduler",
    "TaskDropped",
    "WorkerLost",
    "DROPS",
    "OUTCOMES",
    "workers_by_resource",
]

try:  # the optional extra: ``pip install prunesim[dask]``
    import distributed as _distributed
except ImportError:  # pragma: no cover - depends on the environment
    _distributed = None

# The scheduler's outcomes that are drops (``prunesim run``'s n_expired_pending, ...).
DROPS = (
    "expired_pending",
    "expired_executing",
    "pruned_pending",
    "pruned_executing",
    "unmapped",
    "discarded",
)
# How a task ends in :meth:`DaskScheduler.tasks`' ``outcome`` column.
OUTCOMES = ("on_time", "late", "dropped", "failed")
# A PET tick no deadline reaches: the column of a machine that is down.
_NEVER = 10**8
# The end of the tick range (``pmf::MAX_TICK``): a deadline lies at most this many ticks of
# the scheduler's resolution after its clock's 0.
_MAX_TICK = 2**52


class TaskDropped(concurrent.futures.CancelledError):
    """The scheduler dropped the task; ``reason`` is its outcome (``"pruned_pending"``...)."""

    def __init__(self, task: int, reason: str) -> None:
        super().__init__(f"task {task} dropped: {reason}")
        self.task = task
        self.reason = reason


class WorkerLost(RuntimeError):
    """The task's worker left the cluster while the task was on it (or before it started,
    or after it ended but before its value was fetched)."""


def _timed(fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """Runs on the worker: the call's value and its wall-clock start and end."""
    start = time.time()
    value = fn(*args, **kwargs)
    return (value, start, time.time())


def workers_by_resource(
    workers: Mapping[str, Any], resources: Mapping[str, Union[str, int]]
) -> Dict[str, Union[str, int]]:
    """Worker names to machine types from Dask's worker records (``scheduler_info()``'s
    ``"workers"``: each with its ``name`` and ``resources``): a worker's type is that of the
    first of ``resources`` (resource name to machine type) it has more than 0 of."""
    out: Dict[str, Union[str, int]] = {}
    for w in workers.values():
        have = w.get("resources") or {}
        kind = next((t for r, t in resources.items() if have.get(r, 0) > 0), None)
        if kind is not None:
            out[str(w["name"])] = kind
    if not out:
        raise ValueError(f"no worker has any of the resources {list(resources)}")
    return dict(sorted(out.items()))


def _resolve(
    future: "concurrent.futures.Future[Any]",
    value: Any = None,
    error: Optional[BaseException] = None,
) -> None:
    """Sets a user's future once: the first of the driver and the callback thread wins."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
    except concurrent.futures.InvalidStateError:
        pass


def _workers_by_name(dask_scheduler: Any) -> Dict[str, str]:
    """Runs on the Dask scheduler: every worker's address by its name."""
    return {str(ws.name): addr for addr, ws in dask_scheduler.workers.items()}


def _executing_keys(prefix: str, dask_worker: Any) -> List[str]:
    """Runs on a worker: the keys it is executing that start with ``prefix``."""
    state = getattr(dask_worker, "state", dask_worker)
    keys = [getattr(ts, "key", ts) for ts in getattr(state, "executing", ())]
    return [str(k) for k in keys if str(k).startswith(prefix)]


@dataclass
class _Task:
    id: int
    type: int
    fn: Callable[..., Any]
    args: Any
    kwargs: Any
    submitted: float
    deadline: float
    future: "concurrent.futures.Future[Any]"
    machine: Optional[int] = None
    deferrals: int = 0
    started: Optional[float] = None
    ended: Optional[float] = None
    outcome: Optional[str] = None
    reason: Optional[str] = None
    dask: Any = None
    key: Optional[str] = None
    run_start: Optional[float] = None
    run_end: Optional[float] = None
    dropped_wall: Optional[float] = None
    cancelled: bool = False
    value_lost: Optional[str] = None  # why the value of a task that ended did not come back


class DaskScheduler:
    """A Dask client's tasks placed, deferred and dropped by :class:`prunesim.Scheduler`.

    Args:
        client: a connected ``dask.distributed.Client``.
        pet: the PET by machine type: a row per task type, a column per machine type (its
            ``machine_names`` the types' names).
        workers: each worker the scheduler uses, by its Dask name (``LocalCluster`` names
            them 0, 1, ...; ``dask worker --name``), to its machine type (a name of
            ``pet.machine_names`` or a column index). Each is one machine; a worker not (yet)
            in the cluster is a machine that is down until it joins. Other workers are left
            alone. :meth:`from_resources` maps the workers by their Dask resources instead.
        heuristic: the mapping heuristic (default ``"auto"``, the recommended one).
        drop_model: ``"pending"`` (the default): a task that started runs to its end, late
            or not, as a Python function on a Dask worker does; ``"all"``: an executing task
            is dropped at its deadline (cancelled in Dask, its result discarded, its worker
            busy until the function returns); ``"none"``: nothing is dropped at a deadline.
        learn: learn the PET online from the measured ends (``learn_online``), with these
            options (e.g. ``{"prior_weight": 10.0}``); ``None`` keeps the PET given.
            ``{"prior": "none"}`` learns from no time at all (``pet`` then gives only the
            names, e.g. ``Pet.unknown(types, machine_types)``): every worker's cells one
            tick until observed, the workers of one machine type learning as one.
        poll: seconds between two looks at the cluster's workers (joins and departures).
        **options: the rest of :class:`prunesim.Scheduler`'s settings (``pruner``,
            ``queue_size``, ``resolution``: the seconds of a PET tick, ...).
    """

    def __init__(
        self,
        client: Any,
        pet: Pet,
        workers: Mapping[Any, Union[str, int]],
        *,
        heuristic: Union[str, Dict[str, Any]] = "auto",
        drop_model: str = "pending",
        learn: Optional[Dict[str, Any]] = None,
        poll: float = 0.2,
        **options: Any,
    ) -> None:
        if _distributed is None:  # pragma: no cover - depends on the environment
            raise ImportError("prunesim.dask needs dask.distributed: pip install prunesim[dask]")
        self.client = client
        self.type_names = list(pet.type_names)
        type_of = {name: j for j, name in enumerate(pet.machine_names)}
        self.worker_names: List[str] = []
        self.worker_types: List[str] = []
        columns: List[int] = []
        for name, kind in workers.items():
            j = kind if isinstance(kind, int) else type_of.get(kind)
            if j is None or not 0 <= j < pet.machines:
                raise ValueError(f"worker {name!r}: unknown machine type {kind!r}")
            self.worker_names.append(str(name))
            self.worker_types.append(pet.machine_names[j])
            columns.append(j)
        if not columns:
            raise ValueError("workers: map at least one worker to a machine type")
        # The PET by worker, and a last task type, the hold, that only a machine that is
        # down runs (quickly): a hold executing there keeps the machine busy, so no
        # heuristic gives it a task, not even one that starts a task on any idle machine.
        never = Pmf.point(_NEVER)
        self._hold = pet.task_types
        no_prior = learn is not None and learn.get("prior") == "none"
        if no_prior:
            # No time is known: a worker that joins reads one tick until observed.
            learn = {"machine_types": list(self.worker_types), **learn}
            pet = Pet.unknown(list(pet.type_names), list(pet.machine_names))
        self._up_pet = Pet(
            [[pet.pmf(i, j) for j in columns] for i in range(pet.task_types)]
            + [[never for _ in columns]],
            type_names=[*self.type_names, "(down)"],
            machine_names=self.worker_names,
        )
        self.sched = Scheduler(self._up_pet, heuristic=heuristic, drop_model=drop_model, **options)
        if learn is not None:
            self.sched.learn_online(**learn)
        self.queue_size = int(options.get("queue_size", 6))
        self._poll = poll
        self._prefix = f"prunesim-{uuid.uuid4().hex[:8]}-"
        self._t0 = time.monotonic()
        self._wall0 = time.time()
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._tasks: Dict[int, _Task] = {}
        self._open: Dict[int, _Task] = {}
        self._ends: List[Any] = []
        self._addresses: List[Optional[str]] = [None] * len(columns)
        self._down: set = set(range(len(columns)))
        self._holds: Dict[int, Optional[int]] = {}  # hold task -> the machine it runs on
        self._held: Dict[int, int] = {}  # machine down -> its hold task
        self._hold_counts: Dict[str, int] = {"submitted": 0}
        self._last_poll = -1.0
        self._accepting = True
        self._stopping = False
        self._error: Optional[BaseException] = None
        self._decide_seconds = 0.0
        self._bookkeeping_seconds = 0.0
        self._last_time = 0.0
        # Tasks whose value is being fetched: (machine, Dask future).
        self._fetching: Dict[int, Any] = {}
        self._fetcher = concurrent.futures.ThreadPoolExecutor(
            4, thread_name_prefix="prunesim-dask-fetch"
        )
        present = self._workers()
        with self._lock:
            self._look_at_workers(present or {})
            self._apply_pet()
        self._thread = threading.Thread(target=self._run, name="prunesim-dask", daemon=True)
        self._thread.start()

    @classmethod
    def from_resources(
        cls, client: Any, pet: Pet, resources: Mapping[str, Union[str, int]], **options: Any
    ) -> "DaskScheduler":
        """A scheduler whose machines are the workers in the cluster now that have one of
        ``resources`` (a Dask worker resource, ``dask worker --resources "GPU=1"``, to a
        machine type), each of the type of the first of its resources in that order. The
        rest as :class:`DaskScheduler`; a worker that joins later is not one of them."""
        info = client.scheduler_info()["workers"]
        return cls(client, pet, workers_by_resource(info, resources), **options)

    # ---------------------------------------------------------------- the user's side

    def now(self) -> float:
        """Seconds since the scheduler was made: the clock of deadlines and ends."""
        return time.monotonic() - self._t0

    _now = now

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        task_type: Union[int, str],
        deadline: Optional[float] = None,
        due: Optional[float] = None,
        **kwargs: Any,
    ) -> "concurrent.futures.Future[Any]":
        """Submits ``fn(*args, **kwargs)`` as a task of ``task_type`` (an index or a name of
        the PET's types), due ``deadline`` seconds from now or at the wall-clock time ``due``
        (``time.time()``). Returns a ``concurrent.futures.Future``: its result is ``fn``'s
        (also when late), its exception ``fn``'s, :class:`TaskDropped` when the scheduler
        drops it, :class:`WorkerLost` when its worker leaves, cancelled by :meth:`close`.
        Its attribute ``task`` is the scheduler's task id.

        Raises at once, submitting nothing: ``TypeError`` for an ``fn`` that is not callable,
        a ``deadline`` or ``due`` that is not a number, or a ``task_type`` that is neither a
        name nor an integer index; ``ValueError`` for an unknown task type or not exactly one
        of ``deadline`` and ``due``; :class:`prunesim.SchedulerError`, naming the argument,
        for a ``deadline`` or ``due`` that is not finite, not after now (a ``deadline`` of 0
        or less, a ``due`` in the past) or beyond the scheduler's time range (2^52 ticks of
        ``resolution`` after the scheduler was made: about 1.4 million years at 0.01 s)."""
        if not callable(fn):
            raise TypeError(f"fn must be callable, found {type(fn).__name__} {fn!r}")
        if (deadline is None) == (due is None):
            raise ValueError("give one of deadline (seconds from now) and due (time.time())")
        for name, value in (("deadline", deadline), ("due", due)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
                raise TypeError(f"{name} must be a number of seconds, found {value!r}")
            if value is not None and not math.isfinite(value):
                raise SchedulerError(f"{name} must be a finite number of seconds, found {value}")
        if deadline is not None and deadline <= 0:
            raise SchedulerError(f"deadline {deadline} s from now is not after now: a task is "
                                 "due after it is submitted (give a deadline above 0)")
        if isinstance(task_type, str):
            kind = self.type_names.index(task_type) if task_type in self.type_names else -1
        elif isinstance(task_type, Integral) and not isinstance(task_type, bool):
            kind = int(task_type)
        else:
            raise TypeError(f"task_type must be a name or an index of the PET's types, "
                            f"found {task_type!r}")
        if not 0 <= kind < len(self.type_names):
            raise ValueError(f"unknown task type {task_type!r} (the PET has {self.type_names})")
        future: "concurrent.futures.Future[Any]" = concurrent.futures.Future()
        with self._lock:
            if not self._accepting:
                raise RuntimeError("the scheduler is closed")
            self._raise_error()
            t0 = time.perf_counter()
            now = self._clock()
            if due is not None:
                wall = time.time()
                if due <= wall:
                    raise SchedulerError(f"due {due} is not after now ({wall}, time.time()): "
                                         "a task is due after it is submitted")
                absolute = now + (due - wall)
            else:
                absolute = now + deadline
            limit = _MAX_TICK * self.sched.resolution
            if absolute > limit:
                name, value = ("deadline", deadline) if due is None else ("due", due)
                raise SchedulerError(
                    f"{name} {value} is beyond the scheduler's time range: a task is due at "
                    f"most {limit - now:.6g} s from now (2^52 ticks of {self.sched.resolution} "
                    "s after the scheduler was made)")
            task = self.sched.submit(now, kind, absolute)
            record = _Task(task, kind, fn, args, kwargs, now, absolute, future)
            future.task = task  # type: ignore[attr-defined]
            self._tasks[task] = record
            self._open[task] = record
            self._bookkeeping_seconds += time.perf_counter() - t0
        self._wake.set()
        return future

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until every task submitted so far has ended; false on ``timeout``."""
        limit = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                self._raise_error()
                if not self._open and not self._fetching:
                    return True
            if limit is not None and time.monotonic() >= limit:
                return False
            time.sleep(0.01)

    def close(self, cancel: bool = True, timeout: Optional[float] = None) -> None:
        """Stops: with ``cancel`` every task that has not ended is cancelled (the waiting ones
        end unmapped, the queued and executing ones fail, their futures are cancelled), else
        it waits for them to end (at most ``timeout`` seconds, then cancels the others).
        Returns when no task of it runs on a worker (a cancelled function that was running
        returns when it ends), or after ``timeout`` seconds more. Idempotent."""
        with self._lock:
            self._accepting = False
        if not cancel:
            self.wait(timeout)
        with self._lock:
            if not self._stopping:
                self._stopping = True
                self._cancel_all()
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
        with self._lock:
            stuck = [f for _, f in self._fetching.values()]
        if stuck:  # values Dask can no longer give: their futures fail
            try:
                self.client.cancel(stuck)
            except Exception:  # pragma: no cover - the client is gone
                pass
        self._fetcher.shutdown(wait=False)
        limit = None if timeout is None else time.monotonic() + timeout
        while limit is None or time.monotonic() < limit:
            try:
                # A worker that died meanwhile answers with its error: it runs nothing.
                answers = self.client.run(_executing_keys, self._prefix, on_error="return")
            except Exception:  # the cluster is gone: nothing runs on it
                break
            running = {w: a for w, a in answers.items() if not isinstance(a, BaseException)}
            if not any(running.values()):
                break
            time.sleep(0.02)

    def __enter__(self) -> "DaskScheduler":
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        self.close(cancel=kind is not None)

    # ---------------------------------------------------------------- statistics

    def tasks(self) -> Any:
        """Every task as a row of a ``pandas.DataFrame``: ``task``, ``task_type``,
        ``worker``, ``machine_type``, ``submitted``, ``deadline``, ``started``, ``ended``
        (seconds on :meth:`now`'s clock), ``outcome`` (on_time, late, dropped, failed or
        ``None`` while open), ``reason`` (the scheduler's outcome, the error's type for a
        failure or for a task that ended but whose value did not come back, such as
        ``"WorkerLost"``), ``deferrals``, ``run_start``, ``run_end`` (the worker's ``time.time()``),
        ``run_seconds``, ``dropped_at`` (``time.time()`` of the drop) and ``cancelled``."""
        import pandas

        with self._lock:
            rows = [self._row(t) for t in self._tasks.values()]
        columns = [
            "task", "task_type", "worker", "machine_type", "submitted", "deadline", "started",
            "ended", "outcome", "reason", "deferrals", "run_start", "run_end", "run_seconds",
            "dropped_at", "cancelled",
        ]
        return pandas.DataFrame(rows, columns=columns)

    def stats(self, by: str = "task_type") -> Any:
        """Counts by ``"task_type"`` or ``"worker"`` (a ``pandas.DataFrame``): ``tasks``,
        ``on_time``, ``late``, ``dropped``, ``failed``, ``open``, ``deferred`` (tasks
        deferred at least once) and ``robustness`` (% on time). A task dropped before it
        was placed has no worker: it counts under ``"-"``."""
        df = self.tasks()
        if by not in ("task_type", "worker"):
            raise ValueError("by: 'task_type' or 'worker'")
        key = df[by].fillna("-")
        out = df.assign(
            **{name: df["outcome"] == name for name in OUTCOMES},
            open=df["outcome"].isna(),
            deferred=df["deferrals"] > 0,
            key=key,
        ).groupby("key")[[*OUTCOMES, "open", "deferred"]].sum()
        out.insert(0, "tasks", key.value_counts().reindex(out.index))
        out["robustness"] = 100.0 * out["on_time"] / out["tasks"]
        out.index.name = by
        return out.astype({c: int for c in ("tasks", *OUTCOMES, "open", "deferred")})

    def summary(self) -> Dict[str, Any]:
        """The measures of ``prunesim run`` over every task submitted: ``robustness`` (%),
        ``on_time``, ``counted``, ``n_<outcome>`` for each of the scheduler's outcomes,
        ``n_failed``, ``mapping_events``, ``deferrals``, ``type_variance``,
        ``worst_type_on_time``, ``busy``, ``wasted``, ``span`` (seconds, measured on the
        workers), plus ``decide_ms`` and ``bookkeeping_ms``: the mean time per task spent
        deciding and keeping the books on the client."""
        with self._lock:
            counts = self._counts()
            tasks = list(self._tasks.values())
            events = self.sched.mapping_events
            decide, book = self._decide_seconds, self._bookkeeping_seconds
        n = len(tasks)
        out: Dict[str, Any] = {
            "robustness": 100.0 * counts["on_time"] / n if n else float("nan"),
            "on_time": counts["on_time"],
            "counted": n,
        }
        for name in ("late", *DROPS, "failed"):
            out[f"n_{name}"] = counts[name]
        out["mapping_events"] = events
        out["deferrals"] = sum(t.deferrals for t in tasks)
        shares = []
        for k in range(len(self.type_names)):
            of_type = [t for t in tasks if t.type == k]
            if of_type:
                shares.append(sum(t.outcome == "on_time" for t in of_type) / len(of_type))
        mean = sum(shares) / len(shares) if shares else float("nan")
        out["type_variance"] = (
            100.0 * sum((s - mean) ** 2 for s in shares) / len(shares) if shares else float("nan")
        )
        out["worst_type_on_time"] = 100.0 * min(shares) if shares else float("nan")
        ran = [t for t in tasks if t.run_start is not None and t.run_end is not None]
        out["busy"] = sum(t.run_end - t.run_start for t in ran)
        out["wasted"] = sum(t.run_end - t.run_start for t in ran if t.outcome != "on_time")
        ends = [t.ended for t in tasks if t.ended is not None]
        out["span"] = max(ends) - min(t.submitted for t in tasks) if ends else 0.0
        out["decide_ms"] = 1000.0 * decide / n if n else 0.0
        out["bookkeeping_ms"] = 1000.0 * book / n if n else 0.0
        return out

    def counts(self) -> Dict[str, int]:
        """The scheduler's own counts (:meth:`prunesim.Scheduler.counts`) of the tasks
        submitted here: the holds of the machines that were down are taken out."""
        with self._lock:
            return self._counts()

    def _counts(self) -> Dict[str, int]:
        counts = dict(self.sched.counts())
        for name, n in self._hold_counts.items():
            counts[name] -= n
        return counts

    @property
    def down(self) -> List[str]:
        """The mapped workers not in the cluster now (machines marked down)."""
        with self._lock:
            return [self.worker_names[m] for m in sorted(self._down)]

    # ---------------------------------------------------------------- the driver

    def _clock(self) -> float:
        now = max(self._now(), self._last_time)
        self._last_time = now
        return now

    def _raise_error(self) -> None:
        if self._error is not None:
            raise RuntimeError("the prunesim.dask driver stopped") from self._error

    def _row(self, t: _Task) -> Dict[str, Any]:
        seconds = None
        if t.run_start is not None and t.run_end is not None:
            seconds = t.run_end - t.run_start
        return {
            "task": t.id,
            "task_type": self.type_names[t.type],
            "worker": None if t.machine is None else self.worker_names[t.machine],
            "machine_type": None if t.machine is None else self.worker_types[t.machine],
            "submitted": t.submitted,
            "deadline": t.deadline,
            "started": t.started,
            "ended": t.ended,
            "outcome": t.outcome,
            "reason": t.reason,
            "deferrals": t.deferrals,
            "run_start": t.run_start,
            "run_end": t.run_end,
            "run_seconds": seconds,
            "dropped_at": t.dropped_wall,
            "cancelled": t.cancelled,
        }

    def _run(self) -> None:
        try:
            while True:
                timeout = self._poll
                with self._lock:
                    if self._stopping:
                        return
                    wake = self.sched.next_wakeup()
                if wake is not None:
                    timeout = min(timeout, max(0.0, wake - self._now()))
                self._wake.wait(timeout)
                self._wake.clear()
                present = None
                if self._now() - self._last_poll >= self._poll:
                    present = self._workers()  # a round trip: outside the lock
                with self._lock:
                    if present is not None:
                        self._look_at_workers(present)
                    self._step()
        except BaseException as e:  # pragma: no cover - a bug: surfaced to the user's calls
            with self._lock:
                self._error = e

    def _step(self) -> None:
        ended = self._apply_ends()
        t0 = time.perf_counter()
        actions = self.sched.decide(self._clock())
        self._decide_seconds += time.perf_counter() - t0
        t0 = time.perf_counter()
        for task in ended:
            self._settle(task)
        again = self._act(actions)
        if self._down and self.sched.learning:
            self._apply_pet()  # what was learned of a machine that is down stays away
        elif self._down and not self._stopping:
            self._place_holds()
        self._bookkeeping_seconds += time.perf_counter() - t0
        if again:
            self._wake.set()

    def _apply_ends(self) -> List[_Task]:
        """Reports the ends the futures' callbacks collected."""
        ends, self._ends = self._ends, []
        reported = []
        for task, ok, at in ends:
            t = self._open.get(task)
            if t is None or t.ended is not None:
                continue  # ended already (dropped, lost): its late news is ignored
            at = max(at, self._last_time)
            self._last_time = at
            t.ended = at
            if ok:
                self.sched.completed(task, at)
            else:
                self.sched.failed(task, at)
            reported.append(t)
        return reported

    def _settle(self, t: _Task) -> None:
        """A task whose end the scheduler applied: its outcome from the scheduler."""
        fate = self.sched.fate(t.id)
        if fate == "failed":
            t.outcome = "failed"
            t.reason = t.reason or "error"
        elif fate in ("on_time", "late"):
            t.outcome = fate
            t.reason = t.value_lost or fate
        else:  # pragma: no cover - an end reported is one of these
            t.outcome = "dropped" if fate in DROPS else fate
            t.reason = fate
        self._close_task(t)

    def _close_task(self, t: _Task) -> None:
        self._open.pop(t.id, None)
        t.dask = None
        t.fn = t.args = t.kwargs = None  # type: ignore[assignment]

    def _act(self, actions: List[Any]) -> bool:
        """Carries out a decision; true when another decision is due at once."""
        again = False
        cancel = []
        for a in actions:
            if a.task in self._holds:
                again |= self._act_hold(a)
                continue
            t = self._tasks[a.task]
            if a.kind == "defer":
                t.deferrals += 1
            elif a.kind == "assign":
                t.machine = a.machine
            elif a.kind == "start":
                t.machine = a.machine
                now = self._clock()
                t.started = now
                self.sched.started(t.id, now)
                address = self._addresses[a.machine]
                if self._stopping or address is None:
                    # cancelled while queued, or its worker is down: it fails at once
                    self._fail(t, now, "cancelled" if self._stopping else "WorkerLost")
                    again = True
                else:
                    self._send(t, address)
            elif a.kind == "drop":
                t.machine = a.machine if a.machine is not None else t.machine
                t.ended = self._clock()
                t.dropped_wall = time.time()
                t.outcome = "dropped"
                t.reason = a.reason
                if t.dask is not None:
                    cancel.append(t.dask)
                if self._stopping:  # unmapped by close(): cancelled
                    t.cancelled = True
                    t.future.cancel()
                else:
                    _resolve(t.future, error=TaskDropped(t.id, a.reason or "dropped"))
                self._close_task(t)
        if cancel:
            self.client.cancel(cancel)
        return again

    def _act_hold(self, a: Any) -> bool:
        """A hold's action: it executes on a machine that is down until the machine is up."""
        if a.kind == "start":
            now = self._clock()
            self.sched.started(a.task, now)
            if a.machine in self._down and a.machine not in self._held and not self._stopping:
                self._holds[a.task] = a.machine
                self._held[a.machine] = a.task
                return False
            self._end_hold(a.task, now)  # up again, or another hold has it
            return True
        if a.kind == "drop":
            self._holds.pop(a.task, None)
            reason = a.reason or "dropped"
            self._hold_counts[reason] = self._hold_counts.get(reason, 0) + 1
            for m, task in list(self._held.items()):
                if task == a.task:
                    del self._held[m]
            return True
        return False

    def _end_hold(self, task: int, now: float) -> None:
        self.sched.failed(task, now)
        self._hold_counts["failed"] = self._hold_counts.get("failed", 0) + 1
        machine = self._holds.pop(task, None)
        if machine is not None and self._held.get(machine) == task:
            del self._held[machine]

    def _place_holds(self) -> None:
        """A hold for every machine down that has none (waiting or executing), and the end
        of the holds of the machines that are up."""
        if self._stopping:
            return
        now = self._clock()
        for m, task in list(self._held.items()):
            if m not in self._down:
                self._end_hold(task, now)
        waiting = sum(1 for m in self._holds.values() if m is None)
        for _ in range(len(self._down) - len(self._held) - waiting):
            task = self.sched.submit(now, self._hold, now + 1e6 * self.sched.resolution)
            self._holds[task] = None
            self._hold_counts["submitted"] += 1

    def _send(self, t: _Task, address: str) -> None:
        t.key = f"{self._prefix}{t.id}"
        fut = self.client.submit(
            _timed,
            t.fn,
            t.args,
            t.kwargs,
            key=t.key,
            workers=[address],
            allow_other_workers=False,
            pure=False,
        )
        t.dask = fut
        fut.add_done_callback(lambda f, task=t.id: self._done(task, f))

    def _done(self, task: int, fut: Any) -> None:
        """A future's callback (Dask's callback thread, shared by every future of the
        process: it must not block): the end goes to the driver at once, the value (or the
        exception) is fetched from the worker by a thread of our own."""
        at = self._now()
        status = fut.status
        with self._lock:
            t = self._tasks.get(task)
            if t is None or t.ended is not None:
                return  # dropped, lost or cancelled by us: nothing more to say
            self._ends.append((task, status == "finished", at))
            self._fetching[task] = (t.machine, fut)
        self._wake.set()
        try:
            self._fetcher.submit(self._fetch, t, fut, status)
        except RuntimeError:  # closed: nobody waits for the value any more
            with self._lock:
                self._fetching.pop(task, None)

    def _fetch(self, t: _Task, fut: Any, status: str) -> None:
        """Sets the user's future from the Dask future that ended."""
        try:
            if status == "finished":
                value, start, end = fut.result()
                with self._lock:
                    t.run_start, t.run_end = start, end
                _resolve(t.future, value=value)
                return
            if status == "error":
                error: BaseException = fut.exception()
            else:  # cancelled by another hand (the client closing), or lost
                error = concurrent.futures.CancelledError(f"task {t.id}: Dask says {status}")
        except BaseException as e:  # its worker left before the value came, or the client
            error = e
        finally:
            with self._lock:
                self._fetching.pop(t.id, None)
        with self._lock:
            if status == "finished" and not self._stopping:
                # It ended, on time or not, but its value did not come back: cancelled by
                # `_look_at_workers` (its worker left) or unreachable, its worker is lost.
                if isinstance(error, (concurrent.futures.CancelledError, OSError)):
                    name = self.worker_names[t.machine] if t.machine is not None else "?"
                    lost = WorkerLost(f"task {t.id}: ended on worker {name}, which left "
                                      "before its value was fetched")
                    lost.__cause__ = error
                    error = lost
                t.value_lost = type(error).__name__
                if t.outcome is not None:
                    t.reason = t.value_lost
            elif t.reason is None or t.outcome == "failed":
                t.reason = type(error).__name__
        _resolve(t.future, error=error)

    def _fail(self, t: _Task, now: float, reason: str) -> None:
        t.ended = now
        self.sched.failed(t.id, now)
        t.outcome = "failed"
        t.reason = reason
        if reason == "cancelled":
            t.cancelled = True
            t.future.cancel()
        else:
            name = self.worker_names[t.machine] if t.machine is not None else "?"
            _resolve(t.future, error=WorkerLost(f"task {t.id}: worker {name} left"))
        self._close_task(t)

    def _workers(self) -> Optional[Dict[str, str]]:
        """The workers the Dask scheduler has, by name (``None`` when it does not answer)."""
        self._last_poll = self._now()
        try:
            return self.client.run_on_scheduler(_workers_by_name)
        except Exception:  # the cluster is going away: the futures will say so
            return None

    def _look_at_workers(self, present: Dict[str, str]) -> None:
        """Marks machines down and up from the workers the Dask scheduler has."""
        changed = False
        for m, name in enumerate(self.worker_names):
            address = present.get(name)
            if address == self._addresses[m]:
                continue
            if self._addresses[m] is not None:  # it left (or came back as a new process)
                lost = [
                    t for t in self._open.values()
                    if t.machine == m and t.started is not None and t.ended is None
                ]
                cancel = [t.dask for t in lost if t.dask is not None]
                # Values it held are gone: Dask could only recompute them there.
                cancel += [f for machine, f in self._fetching.values() if machine == m]
                for t in lost:
                    self._fail(t, self._clock(), "WorkerLost")
                if cancel:
                    self.client.cancel(cancel)
            self._addresses[m] = address
            if address is None:
                self._down.add(m)
            else:
                self._down.discard(m)
            changed = True
        if changed:
            self._apply_pet()
            self._wake.set()

    def _apply_pet(self) -> None:
        """The scheduler's PET with a down machine's column at a time no deadline meets,
        but for the hold, which runs there in a tick; then the holds placed."""
        current = self.sched.pet
        never, quick = Pmf.point(_NEVER), Pmf.point(1)
        pet = current
        for m in range(len(self.worker_names)):
            for i in range(current.task_types):
                have = current.pmf(i, m)
                if m in self._down:
                    want = quick if i == self._hold else never
                elif i == self._hold:
                    want = never
                else:
                    want = self._up_pet.pmf(i, m) if have == never else have
                if not have == want:
                    pet = pet.with_pmf(i, m, want)
        if pet is not current:
            self.sched.set_pet(pet)
        self._place_holds()

    def _cancel_all(self) -> None:
        """Ends every open task: the waiting ones unmapped, the others failed (cancelled)."""
        now = self._clock()
        cancel = []
        for t in list(self._open.values()):
            if t.started is not None and t.ended is None:
                if t.dask is not None:
                    cancel.append(t.dask)
                self._fail(t, now, "cancelled")
        if cancel:
            self.client.cancel(cancel)
        for task in list(self._held.values()):
            self._end_hold(task, now)
        self._act(self.sched.close(now))
        while self._open:
            actions = self.sched.decide(self._clock())
            if not actions:
                break
            self._act(actions)
        for t in self._open.values():
            t.cancelled = True
