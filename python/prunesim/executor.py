"""The dispatcher core: deadline-bound tasks run by an executor backend under the live scheduler.

An :class:`Executor` owns a :class:`prunesim.Scheduler` and one driver thread. It turns the
scheduler's actions into work on real workers through a :class:`Backend` (a Dask cluster,
:mod:`prunesim.dask`; a pool of local processes, :class:`LocalBackend`) and the workers'
news back into the scheduler's events:

* :meth:`Executor.submit` records a task (a callable with a task type and a deadline) and
  returns its future; the scheduler places it, defers it or drops it;
* a task the scheduler starts is *launched* on its worker (:meth:`Backend.launch`); a task it
  drops while executing is *stopped* (:meth:`Backend.stop`);
* the backend reports a task's end (:meth:`Executor.ended`, at once) and its value or error
  (:meth:`Executor.settled`, when it is back); the measured run feeds ``learn_online``;
* the workers present are polled (:meth:`Backend.present`): a mapped worker that leaves is
  its machine marked down (its running task fails with :class:`WorkerLost`, the tasks queued
  on it go back among the tasks to place, its PET column becomes a time no deadline meets),
  one that joins is marked up; a worker no machine names takes spare machines of its type
  (``spares``, :meth:`Backend.kind_of`).

What every backend inherits:

* **Every future resolves**: with the task's value (also when late), its own exception,
  :class:`TaskDropped` (dropped by the scheduler, or stopped past its deadline and grace:
  ``reason == "overran"``), :class:`WorkerLost`, or :class:`ExecutorError` naming a failure
  of the executor with its cause chained. A function or argument that cannot be serialised
  is refused at :meth:`Executor.submit` (``TypeError``) where the backend serialises there
  (process isolation), else fails that task alone when it is launched. An exception inside
  the driver fails every open future with an :class:`ExecutorError`.
* **Tasks that overrun are stopped** where the backend can stop them (``isolation =
  "process"``: each task runs in a child process of its worker, killed when the scheduler
  drops it or when it is still running ``grace`` seconds after its deadline; the worker then
  starts a fresh child). Under ``isolation = "thread"`` a running function cannot be stopped:
  it runs to its end, its result discarded.
* **Bounded**: at most ``backlog`` tasks are open at once; :meth:`Executor.submit` beyond it
  raises :class:`Backlogged` and submits nothing.
* **Closing returns**: :meth:`Executor.close` returns within its ``timeout`` (30 s by default)
  whatever the tasks do, every future resolved (cancelled, or failed with the reason).
* ``retries``: a task whose function raised (or whose worker left) is submitted again, as a
  new task with the same future and deadline, while its deadline is ahead.
* Statistics (:meth:`Executor.tasks`, :meth:`Executor.stats`, :meth:`Executor.summary`) and a
  metrics export in the Prometheus text format (:meth:`Executor.metrics`).

A client process that is killed loses the tasks it had not ended: nothing is journaled; a
task already running on a worker runs to its end (or its child process is killed with the
worker's). Resubmit what matters from the caller's own records.
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
import time
import uuid
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import Pet, Pmf, Scheduler, SchedulerError
from ._slot import Pickled, Slots, Stopped, dumps

__all__ = [
    "Backend",
    "Backlogged",
    "DROPS",
    "Executor",
    "ExecutorError",
    "LocalBackend",
    "OUTCOMES",
    "Remote",
    "RemoteFuture",
    "Run",
    "Stopped",
    "TaskDropped",
    "WorkerLost",
    "current_worker",
    "local_executor",
]

# The scheduler's outcomes that are drops (``prunesim run``'s n_expired_pending, ...).
DROPS = (
    "expired_pending",
    "expired_executing",
    "pruned_pending",
    "pruned_executing",
    "unmapped",
    "discarded",
)
# How a task ends in :meth:`Executor.tasks`' ``outcome`` column.
OUTCOMES = ("on_time", "late", "dropped", "failed")
# A PET tick no deadline reaches: the column of a machine that is down.
_NEVER = 10**8
# The end of the tick range (``pmf::MAX_TICK``): a deadline lies at most this many ticks of
# the scheduler's resolution after its clock's 0.
_MAX_TICK = 2**52
# Seconds :meth:`Executor.close` waits at most by default.
CLOSE_TIMEOUT = 30.0


class TaskDropped(concurrent.futures.CancelledError):
    """The scheduler dropped the task, or the executor stopped it past its deadline and grace;
    ``reason`` is the scheduler's outcome (``"pruned_pending"``...) or ``"overran"``."""

    def __init__(self, task: int, reason: str) -> None:
        super().__init__(f"task {task} dropped: {reason}")
        self.task = task
        self.reason = reason


class WorkerLost(RuntimeError):
    """The task's worker left while the task was on it (or before it started, or after it
    ended but before its value was fetched)."""


class ExecutorError(RuntimeError):
    """The executor failed (its driver, or the backend launching a task); the cause is
    chained (``__cause__``)."""


class Backlogged(SchedulerError):
    """:meth:`Executor.submit` refused a task: ``backlog`` tasks are open already."""


def current_worker() -> Optional[str]:
    """Inside a task: the name of the worker that runs it (``None`` outside one). Under
    process isolation the task runs in a child process where ``distributed.get_worker()``
    has no worker; this reads the name its worker gave the child."""
    import os

    name = os.environ.get("PRUNESIM_WORKER")
    if name is not None:
        return name
    try:
        from distributed import get_worker

        return str(get_worker().name)
    except Exception:
        return None


@dataclass
class Run:
    """A task to launch on a worker: what a :class:`Backend` receives."""

    task: int
    key: str  # unique: the task type's name, the executor's tag and the task id
    worker: str  # the worker's name
    machine: str  # the machine's name (the worker's, or one of its slots)
    handle: Any  # what the backend's :meth:`Backend.present` gave for the worker
    fn: Callable[..., Any]
    args: Any
    kwargs: Any
    payload: Optional[bytes]  # ``(fn, args, kwargs)`` pickled, under process isolation
    kill_at: Optional[float]  # ``time.time()`` after which a running task is stopped


class Backend:
    """What an executor needs of the workers. A backend reports back through the
    executor's :meth:`Executor.ended` and :meth:`Executor.settled` (from any thread)."""

    #: The executor this backend reports to (set when the executor is made).
    executor: "Optional[Executor]" = None

    #: ``"process"`` when a running task can be stopped (then the executor pickles each
    #: task at :meth:`Executor.submit` into :attr:`Run.payload`), ``"thread"`` when not.
    isolation = "thread"

    #: The seconds from a task's end on its worker to the next task's arrival there when
    #: the executor sends it on hearing of the end (the end reported, the next decided and
    #: sent): what a worker would idle without work queued on it. ``auto`` commits deep
    #: enough to cover it (:func:`commit_depth`).
    latency = 0.0

    def bind(self, executor: "Executor") -> None:
        """Called once by the executor being made, before anything else."""
        self.executor = executor

    def new_future(self) -> "concurrent.futures.Future[Any]":
        """A task's future (a subclass may fetch its value when it is asked for)."""
        return concurrent.futures.Future()

    def present(self) -> Optional[Dict[str, Any]]:
        """The workers present now, by name, to a handle (an address...); ``None`` when it
        cannot tell (nothing is changed then). Called from the driver, outside its lock."""
        raise NotImplementedError

    def launch(self, run: Run) -> None:
        """Starts ``run`` on its worker. An exception fails that task alone."""
        raise NotImplementedError

    def stop(self, runs: Sequence[Run], why: str) -> None:
        """Stops these launched tasks (dropped, or their worker left); must not block."""
        raise NotImplementedError

    def lost(self, worker: str) -> None:
        """``worker`` left: what the backend still fetches from it will not come."""

    def running(self) -> Optional[int]:
        """How many of the executor's tasks still run on workers (``None``: cannot tell)."""
        return None

    def kind_of(self, worker: str) -> Optional[Union[str, int]]:
        """The machine type of a worker that joined and that no machine names (``None``:
        leave it alone). Called from the driver, under its lock: answer from what
        :meth:`present` saw."""
        return None

    def threads_of(self, worker: str) -> int:
        """How many tasks a worker that joined runs at once (spares it may take)."""
        return 1

    def shutdown(self) -> None:
        """The executor closed: release what the backend holds (not the user's client)."""


class Remote:
    """The value of a task that ended, still on its worker: ``future.result(timeout)`` fetches
    ``(value, start, end)`` (the value possibly still pickled)."""

    __slots__ = ("future", "task", "worker", "__weakref__")

    def __init__(self, future: Any, task: int, worker: str) -> None:
        self.future, self.task, self.worker = future, task, worker


class RemoteFuture(concurrent.futures.Future):  # type: ignore[type-arg]
    """A task's future whose value stays on its worker until :meth:`result` (or
    :meth:`exception`) asks for it, as a Dask future's or a Ray object's does: the client
    fetches only the values it uses. A value that does not come back raises
    :class:`WorkerLost` (its worker left first) or the error fetching it raised (it does not
    unpickle here); the task keeps its outcome."""

    def __init__(self, executor: "Optional[Executor]" = None) -> None:
        super().__init__()
        self._executor = executor
        self._fetch_lock = threading.Lock()
        self._outcome: Optional[Tuple[bool, Any]] = None

    def pending(self) -> Optional[Remote]:
        """The remote value of a future that is done and whose value was not fetched yet
        (for a backend's batch fetch, :meth:`prunesim.dask.DaskScheduler.gather`)."""
        if not self.done() or self.cancelled() or super().exception() is not None:
            return None
        remote = super().result()
        return remote if isinstance(remote, Remote) and self._outcome is None else None

    def _value(self, timeout: Optional[float], got: Any = None) -> Tuple[bool, Any]:
        """The value, fetched once (or ``got``: what a batch fetched for it)."""
        remote = super().result(timeout)
        if not isinstance(remote, Remote):
            return True, remote
        with self._fetch_lock:
            if self._outcome is None:
                run, lost = None, None
                try:
                    value, start, end = got if got is not None else self._wait(remote, timeout)
                    run = (start, end)
                    self._outcome = (True, value.load() if isinstance(value, Pickled) else value)
                except concurrent.futures.TimeoutError:
                    raise
                except BaseException as e:  # the worker left first, or it does not load here
                    if isinstance(e, (concurrent.futures.CancelledError, OSError)):
                        lost = WorkerLost(f"task {remote.task}: ended on worker "
                                          f"{remote.worker}, which left before its value "
                                          "was fetched")
                        lost.__cause__ = e
                    else:
                        lost = e
                    self._outcome = (False, lost)
                remote.future = None  # fetched: Dask may free it
                if self._executor is not None:
                    self._executor.fetched(remote.task, run, lost)
            return self._outcome

    @staticmethod
    def _wait(remote: "Remote", timeout: Optional[float]) -> Any:
        """The remote result, in steps: a value whose worker is gone (Dask's ``"lost"``,
        or cancelled by the executor when it saw the worker leave) raises at once."""
        limit = None if timeout is None else time.monotonic() + timeout
        while True:
            step = 0.5 if limit is None else max(0.0, min(0.5, limit - time.monotonic()))
            try:
                return remote.future.result(step)
            except TimeoutError:
                if getattr(remote.future, "status", None) in ("lost", "cancelled"):
                    raise concurrent.futures.CancelledError(
                        f"Dask says {remote.future.status}") from None
                if limit is not None and time.monotonic() >= limit:
                    raise

    def result(self, timeout: Optional[float] = None) -> Any:
        ok, value = self._value(timeout)
        if not ok:
            raise value
        return value

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        error = super().exception(timeout)
        if error is not None:
            return error
        ok, value = self._value(timeout)
        return None if ok else value


@dataclass
class _Task:
    id: int
    type: int
    fn: Callable[..., Any]
    args: Any
    kwargs: Any
    payload: Optional[bytes]
    submitted: float
    deadline: float
    future: "Optional[concurrent.futures.Future[Any]]"
    retries: int = 0
    attempt: int = 0
    machine: Optional[int] = None
    deferrals: int = 0
    sent: Optional[float] = None
    launches: int = 0
    placed_again: int = 0
    started: Optional[float] = None
    ended: Optional[float] = None
    outcome: Optional[str] = None
    reason: Optional[str] = None
    run: Optional[Run] = None
    run_start: Optional[float] = None
    run_end: Optional[float] = None
    dropped_wall: Optional[float] = None
    cancelled: bool = False
    value_lost: Optional[str] = None  # why the value of a task that ended did not come back
    settled: bool = False
    result: Optional[Tuple[Any, Optional[BaseException], bool]] = None


def commit_depth(
    heuristic: Union[str, Dict[str, Any]], pet: Pet, resolution: float, queue_size: int,
    latency: float,
) -> Union[str, Dict[str, Any]]:
    """``auto``'s (and ``lookahead``'s) depth on a backend whose dispatch takes ``latency``
    seconds: deep enough that a worker holds work for that long, as a central controller
    that dispatches ahead does (Gujarati et al., "Serving DNNs like Clockwork", OSDI 2020).
    A machine holding ``d`` committed tasks has ``d - 1`` queued behind the one it runs; they
    cover the dispatch when ``(d - 1) t >= latency``, ``t`` the shortest mean execution time
    of the PET (in seconds: its ticks times ``resolution``). So ``d = 1 + ceil(latency /
    t)``, at least ``auto``'s own default of 2 and at most ``queue_size``. Tasks longer than
    the latency keep the default; an explicit ``depth``, another heuristic, or a PET with no
    time known (``prior = "none"``: every cell one tick, the mark of a time not known, which
    is left out) leave ``heuristic`` as it is."""
    if isinstance(heuristic, str):
        name, given = heuristic, False
    else:
        name, given = str(heuristic.get("name", "")), "depth" in heuristic
    if given or name.lower() not in ("auto", "lookahead") or not latency > 0:
        return heuristic
    means = [m for row in pet.means() for m in row if m > 1.0]
    if not means:
        return heuristic
    shortest = min(means) * resolution
    depth = min(queue_size, 1 + math.ceil(latency / shortest))
    if depth <= 2:
        return heuristic
    table = {"name": name} if isinstance(heuristic, str) else dict(heuristic)
    table["depth"] = depth
    return table


def _resolve(
    future: "Optional[concurrent.futures.Future[Any]]",
    value: Any = None,
    error: Optional[BaseException] = None,
) -> None:
    """Sets a future once: the first word wins."""
    if future is None:  # resolved with its value already, and let go
        return
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
    except concurrent.futures.InvalidStateError:
        pass


def _cancel(future: "Optional[concurrent.futures.Future[Any]]") -> None:
    if future is None:
        return
    if not future.cancel() and not future.done():  # running: a plain future cannot say so
        _resolve(future, error=concurrent.futures.CancelledError("cancelled by close()"))


class Executor:
    """Tasks run by a :class:`Backend` under :class:`prunesim.Scheduler`.

    Args:
        backend: the workers (:class:`LocalBackend`, or the Dask adapter's).
        pet: the PET by machine type: a row per task type, a column per machine type.
        workers: each machine by name to its machine type (a name of
            ``pet.machine_names`` or a column index): a worker, or a slot of one
            (``slot_of``). A machine whose worker is not present is down until it joins.
        heuristic: the mapping heuristic (default ``"auto"``).
        drop_model: ``"pending"`` (default): a task that started runs to its end unless it
            overruns its deadline by ``grace``; ``"all"``: an executing task is dropped at
            its deadline (and stopped under process isolation); ``"none"``.
        learn: learn the PET online from the measured runs (``learn_online``'s options);
            ``{"prior": "none"}`` learns from no time at all (``pet`` gives the names).
        grace: seconds after its deadline at which a task still running is stopped (under
            process isolation), its future raising ``TaskDropped(reason="overran")``;
            ``None``: never. Default 10 s.
        backlog: the most tasks open at once (default 100,000): :meth:`submit` beyond it
            raises :class:`Backlogged`.
        ahead: how many of a machine's queued tasks are dispatched to its worker behind
            the one it runs, so that the worker starts the next without waiting for a round
            trip to the client; by default all of them (``queue_size - 1``): the tasks the
            scheduler has committed to the machine are the tasks its worker holds, and the
            batch (the tasks not yet committed, which the heuristic may still place
            anywhere) stays on the client. A task dispatched ahead that the scheduler drops
            is cancelled (and stopped if it started); 0 sends a task only when the
            scheduler starts it.
        poll: seconds between two looks at the workers present.
        slot_of: a machine's name to the name of the worker it is a slot of (a worker of
            several threads is several machines); by default each machine is a worker.
        spares: machines kept for workers that join while it runs (machine type to how
            many): a worker present that no machine names is given, if the backend knows
            its type (:meth:`Backend.kind_of`), up to its number of threads
            (:meth:`Backend.threads_of`) of the free spares of its type; a spare whose worker
            leaves is free again. A spare is a machine the scheduler weighs at every
            event, down while free.
        **options: the rest of :class:`prunesim.Scheduler`'s settings (``pruner``,
            ``queue_size``, ``resolution``: the seconds of a PET tick, ...).
    """

    def __init__(
        self,
        backend: Backend,
        pet: Pet,
        workers: Mapping[Any, Union[str, int]],
        *,
        heuristic: Union[str, Dict[str, Any]] = "auto",
        drop_model: str = "pending",
        learn: Optional[Dict[str, Any]] = None,
        grace: Optional[float] = 10.0,
        backlog: int = 100_000,
        ahead: Optional[int] = None,
        poll: float = 0.2,
        slot_of: Optional[Mapping[Any, str]] = None,
        spares: Optional[Mapping[Union[str, int], int]] = None,
        **options: Any,
    ) -> None:
        if ahead is not None and (
            isinstance(ahead, bool) or not isinstance(ahead, Integral) or ahead < 0
        ):
            raise ValueError(f"ahead must be an integer >= 0 or None, found {ahead!r}")
        if grace is not None and (
            isinstance(grace, bool) or not isinstance(grace, Real) or not grace >= 0
        ):
            raise ValueError(f"grace must be a number of seconds >= 0 or None, found {grace!r}")
        if isinstance(backlog, bool) or not isinstance(backlog, Integral) or backlog < 1:
            raise ValueError(f"backlog must be an integer >= 1, found {backlog!r}")
        self.backend = backend
        backend.bind(self)
        self.type_names = list(pet.type_names)
        self._machine_types = list(pet.machine_names)
        type_of = {name: j for j, name in enumerate(pet.machine_names)}
        self.worker_names: List[str] = []  # a machine's name
        self.worker_types: List[str] = []  # a machine's type
        self.machine_workers: List[str] = []  # the worker a machine is a slot of
        columns: List[int] = []
        for name, kind in workers.items():
            j = kind if isinstance(kind, int) else type_of.get(kind)
            if j is None or not 0 <= j < pet.machines:
                raise ValueError(f"worker {name!r}: unknown machine type {kind!r}")
            self.worker_names.append(str(name))
            self.worker_types.append(pet.machine_names[j])
            self.machine_workers.append(str((slot_of or {}).get(name, name)))
            columns.append(j)
        # Spare machines: bound to workers that join (Backend.kind_of), freed when they leave.
        self._spare: Dict[int, str] = {}  # spare machine -> its label when free
        for kind, n in (spares or {}).items():
            j = kind if isinstance(kind, int) else type_of.get(kind)
            if j is None or not 0 <= j < pet.machines:
                raise ValueError(f"spares: unknown machine type {kind!r}")
            if isinstance(n, bool) or not isinstance(n, Integral) or n < 0:
                raise ValueError(f"spares of {kind!r} must be an integer >= 0, found {n!r}")
            for k in range(int(n)):
                label = f"(spare {pet.machine_names[j]} {k})"
                self._spare[len(columns)] = label
                self.worker_names.append(label)
                self.worker_types.append(pet.machine_names[j])
                self.machine_workers.append(None)  # type: ignore[arg-type]
                columns.append(j)
        if not columns:
            raise ValueError("workers: map at least one worker to a machine type")
        # The PET by worker, and a last task type, the hold, that only a machine that is
        # down runs (quickly): a hold executing there keeps the machine busy, so no
        # heuristic gives it a task, not even one that starts a task on any idle machine.
        never = Pmf.point(_NEVER)
        self._hold = pet.task_types
        if learn is not None and learn.get("prior") == "none":
            # No time is known: a worker that joins reads one tick until observed.
            learn = {"machine_types": list(self.worker_types), **learn}
            pet = Pet.unknown(list(pet.type_names), list(pet.machine_names))
        self._up_pet = Pet(
            [[pet.pmf(i, j) for j in columns] for i in range(pet.task_types)]
            + [[never for _ in columns]],
            type_names=[*self.type_names, "(down)"],
            machine_names=self.worker_names,
        )
        if learn is None or learn.get("prior") != "none":
            heuristic = commit_depth(heuristic, pet, float(options.get("resolution", 1.0)),
                                     int(options.get("queue_size", 6)), backend.latency)
        self.sched = Scheduler(self._up_pet, heuristic=heuristic, drop_model=drop_model, **options)
        if learn is not None:
            self.sched.learn_online(**learn)
        self.drop_model = drop_model
        self.grace = None if grace is None else float(grace)
        self.backlog = int(backlog)
        self.queue_size = int(options.get("queue_size", 6))
        self.ahead = self.queue_size - 1 if ahead is None else int(ahead)
        self._poll = poll
        self._tag = uuid.uuid4().hex[:8]
        self._t0 = time.monotonic()
        self._wall0 = time.time()
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._tasks: Dict[int, _Task] = {}  # by the scheduler's id
        self._records: List[_Task] = []  # every task (and retried attempt) in order
        self._ghosts: set = set()  # scheduler ids of tasks placed again on another machine
        self._ghost_counts: Dict[str, int] = {"submitted": 0}
        self._open: Dict[int, _Task] = {}
        self._ends: List[Tuple[int, bool, float]] = []
        self._handles: List[Any] = [None] * len(columns)
        self._down: set = set(range(len(columns)))
        self._holds: Dict[int, Optional[int]] = {}  # hold task -> the machine it runs on
        self._held: Dict[int, int] = {}  # machine down -> its hold task
        self._hold_counts: Dict[str, int] = {"submitted": 0}
        self._overran = 0
        self._servers: List[Any] = []  # metrics endpoints, shut at close()
        self._last_poll = -1.0
        self._accepting = True
        self._stopping = False
        self._error: Optional[BaseException] = None
        self._decide_seconds = 0.0
        self._decide_max = 0.0
        self._bookkeeping_seconds = 0.0
        self._last_time = 0.0
        present = self._present()
        with self._lock:
            self._look_at_workers(present or {})
            self._apply_pet()
        self._thread = threading.Thread(target=self._drive, name="prunesim-executor", daemon=True)
        self._thread.start()

    # ---------------------------------------------------------------- the user's side

    def now(self) -> float:
        """Seconds since the executor was made: the clock of deadlines and ends."""
        return time.monotonic() - self._t0

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        task_type: Union[int, str],
        deadline: Optional[float] = None,
        due: Optional[float] = None,
        retries: int = 0,
        **kwargs: Any,
    ) -> "concurrent.futures.Future[Any]":
        """Submits ``fn(*args, **kwargs)`` as a task of ``task_type`` (an index or a name of
        the PET's types), due ``deadline`` seconds from now or at the wall-clock time ``due``
        (``time.time()``); ``retries``: how many times it is submitted again when ``fn``
        raises or its worker leaves, while its deadline is ahead. Returns a future: its
        result is ``fn``'s (also when late), its exception ``fn``'s, :class:`TaskDropped`,
        :class:`WorkerLost` or :class:`ExecutorError`; cancelled by :meth:`close`. Its
        attribute ``task`` is the scheduler's task id (of the first attempt).

        Raises at once, submitting nothing: ``TypeError`` for an ``fn`` that is not callable
        or, under process isolation, a function or argument that cannot be serialised (the
        pickler's error chained), a ``deadline``, ``due`` or ``retries`` that is not a
        number, or a ``task_type`` that is neither a name nor an integer index;
        ``ValueError`` for an unknown task type, a negative ``retries`` or not exactly one
        of ``deadline`` and ``due``; :class:`Backlogged` when ``backlog`` tasks are open;
        :class:`prunesim.SchedulerError`, naming the argument, for a ``deadline`` or
        ``due`` that is not finite, not after now or beyond the scheduler's time range
        (2^52 ticks of ``resolution`` after the executor was made)."""
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
        if isinstance(retries, bool) or not isinstance(retries, Integral):
            raise TypeError(f"retries must be an integer, found {retries!r}")
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, found {retries}")
        kind = self._type_index(task_type)
        payload = None
        if self.backend.isolation == "process":
            try:
                payload = dumps((fn, args, kwargs))
            except Exception as e:
                raise TypeError(
                    f"the task cannot be serialised to run in its worker's process "
                    f"({type(e).__name__}: {e}): pass arguments that pickle (no locks, "
                    "sockets or open files; a future's result rather than the future)"
                ) from e
        future = self.backend.new_future()
        with self._lock:
            self._raise_error()
            if not self._accepting:
                raise RuntimeError("the executor is closed")
            if len(self._open) >= self.backlog:
                raise Backlogged(
                    f"{len(self._open)} tasks are open, the backlog limit: the task is refused "
                    "(raise backlog=, or submit more slowly)")
            t0 = time.perf_counter()
            now = self._clock()
            if due is not None:
                wall = time.time()
                if due <= wall:
                    raise SchedulerError(f"due {due} is not after now ({wall}, time.time()): "
                                         "a task is due after it is submitted")
                absolute = now + (due - wall)
            else:
                absolute = now + deadline  # type: ignore[operator]
            limit = _MAX_TICK * self.sched.resolution
            if absolute > limit:
                name, value = ("deadline", deadline) if due is None else ("due", due)
                raise SchedulerError(
                    f"{name} {value} is beyond the scheduler's time range: a task is due at "
                    f"most {limit - now:.6g} s from now (2^52 ticks of {self.sched.resolution} "
                    "s after the executor was made)")
            task = self.sched.submit(now, kind, absolute)
            record = _Task(task, kind, fn, args, kwargs, payload, now, absolute, future,
                           retries=int(retries))
            future.task = task  # type: ignore[attr-defined]
            self._tasks[task] = record
            self._records.append(record)
            self._open[task] = record
            self._bookkeeping_seconds += time.perf_counter() - t0
        self._wake.set()
        return future

    def map(
        self,
        fn: Callable[..., Any],
        *iterables: Iterable[Any],
        task_type: Union[int, str],
        deadline: Optional[float] = None,
        due: Optional[float] = None,
        retries: int = 0,
        **kwargs: Any,
    ) -> List["concurrent.futures.Future[Any]"]:
        """:meth:`submit` of ``fn`` over the iterables zipped, each task of ``task_type``
        and due as given; the futures in order."""
        return [
            self.submit(fn, *args, task_type=task_type, deadline=deadline, due=due,
                        retries=retries, **kwargs)
            for args in zip(*iterables)
        ]

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until every task submitted so far has ended and its value is back; false on
        ``timeout``."""
        limit = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                self._raise_error()
                if not self._open and not self._unsettled():
                    return True
            if limit is not None and time.monotonic() >= limit:
                return False
            time.sleep(0.01)

    def close(self, cancel: bool = True, timeout: Optional[float] = CLOSE_TIMEOUT) -> None:
        """Stops, within ``timeout`` seconds (30 by default; ``None``: no limit). With
        ``cancel`` every task that has not ended is cancelled (the waiting ones end
        unmapped, the queued and executing ones fail and are stopped where the backend can
        stop them, their futures cancelled); else it first waits for them to end, for at
        most that ``timeout``, then cancels the others. Then it waits, within what is left
        of the ``timeout``, until no task of it runs on a worker. Every future is resolved
        when it returns. Idempotent."""
        limit = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._accepting = False
        if not cancel:
            try:
                self.wait(timeout)
            except ExecutorError:
                pass
        with self._lock:
            if not self._stopping:
                self._stopping = True
                if self._error is None:
                    self._cancel_all()
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join(None if limit is None else max(0.0, limit - time.monotonic()))
        with self._lock:
            for t in self._unsettled():  # values that will not come: their futures cancelled
                _cancel(t.future)
                t.settled = True
        while limit is None or time.monotonic() < limit:
            running = self.backend.running()
            if not running:
                break
            time.sleep(0.02)
        self.backend.shutdown()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        self.close(cancel=kind is not None)

    # ---------------------------------------------------------------- the backend's side

    def ended(self, task: int, ok: bool, at: Optional[float] = None) -> None:
        """A launched task ended (``ok``: its function returned) at ``at`` (:meth:`now`'s
        clock; default now). Late news of a task ended already is ignored."""
        at = self.now() if at is None else at
        with self._lock:
            t = self._tasks.get(task)
            if t is None or t.ended is not None:
                return
            self._ends.append((task, ok, at))
        self._wake.set()

    def settled(
        self,
        task: int,
        value: Any = None,
        error: Optional[BaseException] = None,
        run: Optional[Tuple[float, float]] = None,
        ended_ok: bool = False,
    ) -> None:
        """A launched task's value (or ``error``) is back, with its measured run
        (``time.time()`` at its start and end). ``ended_ok``: the task returned, but its
        value did not come back (``error`` says why); it keeps its outcome. Its future is
        resolved once the scheduler has its end too."""
        with self._lock:
            t = self._tasks.get(task)
            if t is None or t.settled:
                return
            t.settled = True
            if run is not None:
                t.run_start, t.run_end = run
            t.result = (value, error, ended_ok)
            if t.outcome is not None:
                self._finish(t)

    def fetched(
        self, task: int, run: Optional[Tuple[float, float]] = None,
        lost: Optional[BaseException] = None,
    ) -> None:
        """A value fetched after its task was settled (a backend that leaves values on the
        workers until asked): its measured run, or why it did not come back (the task
        keeps its outcome; its reason becomes that error's type)."""
        with self._lock:
            t = self._tasks.get(task)
            if t is None:
                return
            if run is not None:
                t.run_start, t.run_end = run
            if lost is not None:
                t.value_lost = t.reason = type(lost).__name__

    # ---------------------------------------------------------------- statistics

    def tasks(self) -> Any:
        """Every task as a row of a ``pandas.DataFrame``: ``task``, ``task_type``,
        ``worker`` (the machine), ``machine_type``, ``submitted``, ``deadline``, ``sent``
        (to its worker: when the scheduler started it, or before when dispatched ahead),
        ``started``, ``ended`` (seconds on :meth:`now`'s clock), ``outcome`` (on_time, late, dropped, failed or
        ``None`` while open), ``reason`` (the scheduler's outcome, ``"overran"`` for a task
        stopped past its deadline and grace, the error's type for a failure or for a task
        that ended but whose value did not come back, such as ``"WorkerLost"``;
        ``"retried"`` for an attempt that was submitted again), ``attempt``, ``deferrals``,
        ``placed_again`` (times it was queued on a machine whose worker left and went back
        among the tasks to place),
        ``run_start``, ``run_end`` (the worker's ``time.time()``), ``run_seconds``,
        ``dropped_at`` (``time.time()`` of the drop) and ``cancelled``."""
        import pandas

        with self._lock:
            rows = [self._row(t) for t in self._records]
        columns = [
            "task", "task_type", "worker", "machine_type", "submitted", "deadline", "sent",
            "started", "ended", "outcome", "reason", "attempt", "deferrals", "placed_again",
            "run_start", "run_end", "run_seconds", "dropped_at", "cancelled",
        ]
        return pandas.DataFrame(rows, columns=columns)

    def stats(self, by: str = "task_type") -> Any:
        """Counts by ``"task_type"`` or ``"worker"`` (a ``pandas.DataFrame``): ``tasks``,
        ``on_time``, ``late``, ``dropped``, ``failed``, ``open``, ``deferred`` (tasks
        deferred at least once) and ``robustness`` (% on time). A task dropped before it
        was placed has no worker: it counts under ``"-"``."""
        if by not in ("task_type", "worker"):
            raise ValueError("by: 'task_type' or 'worker'")
        df = self.tasks()
        df = df[df["reason"] != "retried"]  # a task counts once, by its last attempt
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
        ``n_failed``, ``n_overran``, ``mapping_events``, ``deferrals``, ``type_variance``,
        ``worst_type_on_time``, ``busy``, ``wasted`` (seconds measured on the workers: with
        a backend that leaves values on the workers, those of the values fetched), ``span``,
        plus ``decide_ms`` and ``bookkeeping_ms``: the mean time per task spent
        deciding and keeping the books on the client."""
        with self._lock:
            counts = self._counts()
            tasks = [t for t in self._records if t.reason != "retried"]
            events = self.sched.mapping_events
            decide, book = self._decide_seconds, self._bookkeeping_seconds
        n = len(tasks)
        out: Dict[str, Any] = {
            "robustness": 100.0 * counts["on_time"] / n if n else float("nan"),
            "on_time": counts["on_time"],
            "counted": n,
        }
        for name in ("late", *DROPS, "failed", "overran"):
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
        out["busy"] = sum(t.run_end - t.run_start for t in ran)  # type: ignore[operator]
        out["wasted"] = sum(
            t.run_end - t.run_start for t in ran if t.outcome != "on_time"  # type: ignore[operator]
        )
        ends = [t.ended for t in tasks if t.ended is not None]
        out["span"] = max(ends) - min(t.submitted for t in tasks) if ends else 0.0
        out["decide_ms"] = 1000.0 * decide / n if n else 0.0
        out["bookkeeping_ms"] = 1000.0 * book / n if n else 0.0
        return out

    def counts(self) -> Dict[str, int]:
        """The scheduler's own counts (:meth:`prunesim.Scheduler.counts`) of the tasks
        submitted here (the holds of machines that were down taken out), with ``overran``
        (stopped past deadline and grace) out of ``failed``."""
        with self._lock:
            return self._counts()

    def metrics(self) -> str:
        """The executor's state in the Prometheus text format (version 0.0.4), for a
        ``/metrics`` endpoint: ``prunesim_tasks_total{outcome,task_type}`` (tasks ended),
        ``prunesim_open_tasks{state}`` (``waiting`` in the batch, ``queued`` on a
        machine, ``running``), ``prunesim_workers{state}`` (machines ``up``, ``down``, ``spare``),
        ``prunesim_decide_seconds_total``, ``prunesim_decide_seconds_max``,
        ``prunesim_mapping_events_total``."""
        with self._lock:
            ended: Dict[Tuple[str, str], int] = {}
            for t in self._records:
                if t.outcome is not None:
                    k = (t.outcome, self.type_names[t.type])
                    ended[k] = ended.get(k, 0) + 1
            waiting = sum(1 for t in self._open.values() if t.machine is None)
            running = sum(1 for t in self._open.values() if t.started is not None)
            queued = len(self._open) - waiting - running
            spare = sum(1 for m in self._spare if self.machine_workers[m] is None)
            down = len(self._down) - spare
            up = len(self.worker_names) - down - spare
            decide, worst = self._decide_seconds, self._decide_max
            events = self.sched.mapping_events

        def label(v: str) -> str:
            return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

        lines = [
            "# HELP prunesim_tasks_total Tasks ended, by outcome and task type.",
            "# TYPE prunesim_tasks_total counter",
        ]
        for (outcome, kind), n in sorted(ended.items()):
            lines.append(
                f'prunesim_tasks_total{{outcome="{outcome}",task_type="{label(kind)}"}} {n}')
        lines += [
            "# HELP prunesim_open_tasks Tasks not ended, by state.",
            "# TYPE prunesim_open_tasks gauge",
            f'prunesim_open_tasks{{state="waiting"}} {waiting}',
            f'prunesim_open_tasks{{state="queued"}} {queued}',
            f'prunesim_open_tasks{{state="running"}} {running}',
            "# HELP prunesim_workers The machines: up (worker present), down, spare (free).",
            "# TYPE prunesim_workers gauge",
            f'prunesim_workers{{state="up"}} {up}',
            f'prunesim_workers{{state="down"}} {down}',
            f'prunesim_workers{{state="spare"}} {spare}',
            "# HELP prunesim_decide_seconds_total Time spent deciding.",
            "# TYPE prunesim_decide_seconds_total counter",
            f"prunesim_decide_seconds_total {decide:.9g}",
            "# HELP prunesim_decide_seconds_max The longest decision.",
            "# TYPE prunesim_decide_seconds_max gauge",
            f"prunesim_decide_seconds_max {worst:.9g}",
            "# HELP prunesim_mapping_events_total Mapping events.",
            "# TYPE prunesim_mapping_events_total counter",
            f"prunesim_mapping_events_total {events}",
        ]
        return "\n".join(lines) + "\n"

    def serve_metrics(self, port: int = 0, address: str = "127.0.0.1") -> Tuple[str, int]:
        """Serves :meth:`metrics` over HTTP at ``http://<address>:<port>/metrics`` (a
        thread of its own, until :meth:`close`), for Prometheus to scrape; ``port`` 0
        picks a free one. Returns the address and port it listens on."""
        import http.server

        executor = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                if self.path.split("?")[0] != "/metrics":
                    self.send_error(404, "the metrics are at /metrics")
                    return
                body = executor.metrics().encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # scrapes are not news
                pass

        server = http.server.ThreadingHTTPServer((address, port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name="prunesim-metrics",
                         daemon=True).start()
        self._servers.append(server)
        host, bound = server.server_address[:2]
        return str(host), int(bound)

    @property
    def down(self) -> List[str]:
        """The machines whose worker is not present now (marked down; free spares left out)."""
        with self._lock:
            return [self.worker_names[m] for m in sorted(self._down)
                    if self.machine_workers[m] is not None]

    # ---------------------------------------------------------------- the driver

    def _type_index(self, task_type: Union[int, str]) -> int:
        if isinstance(task_type, str):
            kind = self.type_names.index(task_type) if task_type in self.type_names else -1
        elif isinstance(task_type, Integral) and not isinstance(task_type, bool):
            kind = int(task_type)
        else:
            raise TypeError(f"task_type must be a name or an index of the PET's types, "
                            f"found {task_type!r}")
        if not 0 <= kind < len(self.type_names):
            raise ValueError(f"unknown task type {task_type!r} (the PET has {self.type_names})")
        return kind

    def _unsettled(self) -> List[_Task]:
        return [t for t in self._records if t.run is not None and not t.settled]

    def _counts(self) -> Dict[str, int]:
        counts = dict(self.sched.counts())
        for name, n in self._hold_counts.items():
            counts[name] -= n
        for name, n in self._ghost_counts.items():
            counts[name] -= n
        counts["failed"] -= self._overran
        counts["overran"] = self._overran
        return counts

    def _clock(self) -> float:
        now = max(self.now(), self._last_time)
        self._last_time = now
        return now

    def _raise_error(self) -> None:
        if self._error is not None:
            raise ExecutorError(f"the prunesim executor's driver stopped: "
                                f"{type(self._error).__name__}: {self._error}") from self._error

    def _row(self, t: _Task) -> Dict[str, Any]:
        seconds = None
        if t.run_start is not None and t.run_end is not None:
            seconds = t.run_end - t.run_start
        return {
            "task": t.id,
            "task_type": self.type_names[t.type],
            "worker": t.run.machine if t.run is not None else (
                None if t.machine is None else self.worker_names[t.machine]),
            "machine_type": None if t.machine is None else self.worker_types[t.machine],
            "submitted": t.submitted,
            "deadline": t.deadline,
            "sent": t.sent,
            "started": t.started,
            "ended": t.ended,
            "outcome": t.outcome,
            "reason": t.reason,
            "attempt": t.attempt,
            "deferrals": t.deferrals,
            "placed_again": t.placed_again,
            "run_start": t.run_start,
            "run_end": t.run_end,
            "run_seconds": seconds,
            "dropped_at": t.dropped_wall,
            "cancelled": t.cancelled,
        }

    def _present(self) -> Optional[Dict[str, Any]]:
        self._last_poll = self.now()
        try:
            return self.backend.present()
        except Exception:  # the workers are going away: the tasks will say so
            return None

    def _drive(self) -> None:
        try:
            while True:
                timeout = self._poll
                with self._lock:
                    if self._stopping:
                        return
                    wake = self.sched.next_wakeup()
                if wake is not None:
                    timeout = min(timeout, max(0.0, wake - self.now()))
                self._wake.wait(timeout)
                self._wake.clear()
                present = None
                if self.now() - self._last_poll >= self._poll:
                    present = self._present()  # a round trip: outside the lock
                with self._lock:
                    if self._stopping:
                        return
                    if present is not None:
                        self._look_at_workers(present)
                    self._step()
        except BaseException as e:  # a bug, or the backend failing: every future told
            self._fail_everything(e)

    def _fail_everything(self, cause: BaseException) -> None:
        """The driver failed: every open future fails with an :class:`ExecutorError`
        chained to ``cause``, and what runs is stopped."""
        with self._lock:
            self._error = cause
            self._accepting = False
            runs = [t.run for t in self._open.values() if t.run is not None]
            for t in list(self._open.values()) + self._unsettled():
                error = ExecutorError(f"task {t.id}: the prunesim executor's driver stopped: "
                                      f"{type(cause).__name__}: {cause}")
                error.__cause__ = cause
                if t.outcome is None:
                    t.outcome, t.reason = "failed", "ExecutorError"
                    t.ended = self._last_time
                t.settled = True
                _resolve(t.future, error=error)
            self._open.clear()
        if runs:
            try:
                self.backend.stop(runs, "the executor failed")
            except Exception:  # pragma: no cover - nothing more can be done
                pass

    def _step(self) -> None:
        ended = self._apply_ends()
        t0 = time.perf_counter()
        actions = self.sched.decide(self._clock())
        spent = time.perf_counter() - t0
        self._decide_seconds += spent
        self._decide_max = max(self._decide_max, spent)
        t0 = time.perf_counter()
        for task in ended:
            self._settle(task)
        again = self._act(actions)
        if self._down and self.sched.learning:
            self._apply_pet()  # what was learned of a machine that is down stays away
        elif self._down and not self._stopping:
            self._place_holds()
        self._bookkeeping_seconds += time.perf_counter() - t0
        if again or self._ends:
            self._wake.set()

    def _apply_ends(self) -> List[_Task]:
        """Reports the ends the backend collected."""
        ends, self._ends = self._ends, []
        reported = []
        for task, ok, at in ends:
            t = self._open.get(task)
            if t is None or t.ended is not None:
                continue  # ended already (dropped, lost): its late news is ignored
            if t.started is None:  # dispatched ahead: it ends once the scheduler starts it
                self._ends.append((task, ok, at))
                continue
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
        if t.result is not None:
            self._finish(t)

    def _finish(self, t: _Task) -> None:
        """A task whose end the scheduler applied and whose value or error is back: its
        future resolved (or the task submitted again)."""
        assert t.result is not None
        value, error, ended_ok = t.result
        t.result = None
        if t.future is None or t.future.done():
            return  # dropped or cancelled: told already
        if error is None:
            _resolve(t.future, value=value)
            t.future = None  # the caller holds it: a value it holds is freed with it
            return
        if isinstance(error, Stopped):
            if error.why.startswith("overran"):
                if t.outcome == "failed":
                    t.outcome, t.reason = "dropped", "overran"
                    self._overran += 1
                error = TaskDropped(t.id, "overran")
            else:
                lost = ExecutorError(f"task {t.id}: {error.why}")
                lost.__cause__ = error
                error = lost
        if ended_ok and not self._stopping:
            t.value_lost = type(error).__name__
            t.reason = t.value_lost
        elif t.outcome == "failed" and t.reason in (None, "error"):
            t.reason = type(error).__name__
        if (
            t.outcome == "failed" and t.attempt < t.retries and not self._stopping
            and self._clock() < t.deadline
        ):
            self._retry(t)
            return
        self._let_go(t)
        _resolve(t.future, error=error)

    def _close_task(self, t: _Task) -> None:
        """``t`` ended: its callable let go, unless it failed and an attempt may follow."""
        self._open.pop(t.id, None)
        if t.outcome != "failed" or t.attempt >= t.retries:
            self._let_go(t)

    @staticmethod
    def _let_go(t: _Task) -> None:
        t.fn = t.args = t.kwargs = t.payload = None  # type: ignore[assignment]

    def _retry(self, t: _Task) -> None:
        """``t`` failed with attempts left: the same future, as a new task of the scheduler."""
        now = self._clock()
        task = self.sched.submit(now, t.type, t.deadline)
        again = _Task(task, t.type, t.fn, t.args, t.kwargs, t.payload, now, t.deadline,
                      t.future, retries=t.retries, attempt=t.attempt + 1)
        t.reason = "retried"
        self._let_go(t)
        self._tasks[task] = again
        self._records.append(again)
        self._open[task] = again
        self._wake.set()

    def _act(self, actions: List[Any]) -> bool:
        """Carries out a decision; true when another decision is due at once."""
        again = False
        stop: List[Run] = []
        touched: set = set()
        for a in actions:
            if a.task in self._holds:
                again |= self._act_hold(a)
                continue
            if a.task in self._ghosts:
                again |= self._act_ghost(a)
                continue
            t = self._tasks[a.task]
            if a.kind == "defer":
                t.deferrals += 1
            elif a.kind == "assign":
                t.machine = a.machine
                touched.add(a.machine)
            elif a.kind == "start":
                t.machine = a.machine
                now = self._clock()
                t.started = now
                self.sched.started(t.id, now)
                handle = self._handles[a.machine]
                if self._stopping or handle is None:
                    # cancelled while queued, or its worker is down: it fails at once
                    self._fail(t, now, "cancelled" if self._stopping else "WorkerLost")
                    again = True
                elif t.run is None:
                    again |= self._launch(t, a.machine, handle, now)
                touched.add(a.machine)
            elif a.kind == "drop":
                t.machine = a.machine if a.machine is not None else t.machine
                t.ended = self._clock()
                t.dropped_wall = time.time()
                t.outcome = "dropped"
                t.reason = a.reason
                if t.run is not None:
                    stop.append(t.run)
                    t.settled = True  # its value, if it comes, is not wanted
                if self._stopping:  # unmapped by close(): cancelled
                    t.cancelled = True
                    _cancel(t.future)
                else:
                    _resolve(t.future, error=TaskDropped(t.id, a.reason or "dropped"))
                self._close_task(t)
        if stop:
            self.backend.stop(stop, "dropped")
        if self.ahead and not self._stopping:
            for m in touched:
                again |= self._dispatch_ahead(m)
        return again

    def _dispatch_ahead(self, m: int) -> bool:
        """Launches the first ``ahead`` tasks queued on machine ``m`` behind the one it
        runs (its worker runs them in order); true when one failed at once."""
        handle = self._handles[m]
        if handle is None:
            return False
        again = False
        queue = self.sched.queue(m)
        for task in queue[1 : 1 + self.ahead] if queue else ():
            t = self._open.get(task)
            if t is not None and t.run is None and t.started is None:
                again |= self._launch(t, m, handle, self._clock(), ahead=True)
        return again

    def _launch(
        self, t: _Task, machine: int, handle: Any, now: float, ahead: bool = False
    ) -> bool:
        """Hands ``t`` to the backend; true when it failed at once. A task dispatched
        ahead that cannot be sent is sent again when the scheduler starts it."""
        kill_at = None
        if self.grace is not None and self.backend.isolation == "process":
            kill_at = time.time() + (t.deadline - self.now()) + self.grace
        key = f"{self.type_names[t.type]}-{self._tag}-{t.id}"
        t.launches += 1
        if t.launches > 1:  # sent again (its worker left): a key of its own
            key += f"-{t.launches}"
        run = Run(t.id, key,
                  self.machine_workers[machine], self.worker_names[machine], handle, t.fn,
                  t.args, t.kwargs, t.payload, kill_at)
        t.run = run
        t.sent = now
        try:
            self.backend.launch(run)
        except Exception as e:  # it cannot be sent (serialised...): that task fails alone
            if ahead:
                t.run = t.sent = None
                return False
            t.ended = now
            self.sched.failed(t.id, now)
            t.outcome, t.reason = "failed", type(e).__name__
            t.settled = True
            error = ExecutorError(f"task {t.id} could not be sent to worker "
                                  f"{run.worker}: {type(e).__name__}: {e}")
            error.__cause__ = e
            _resolve(t.future, error=error)
            self._close_task(t)
            self._let_go(t)
            return True
        return False

    def _act_ghost(self, a: Any) -> bool:
        """A task placed again elsewhere, as the scheduler still has it on a machine that
        went down: ended at once, out of the counts."""
        if a.kind == "start":
            now = self._clock()
            self.sched.started(a.task, now)
            self.sched.failed(a.task, now)
            self._ghosts.discard(a.task)
            self._ghost_counts["failed"] = self._ghost_counts.get("failed", 0) + 1
            return True
        if a.kind == "drop":
            self._ghosts.discard(a.task)
            reason = a.reason or "dropped"
            self._ghost_counts[reason] = self._ghost_counts.get(reason, 0) + 1
            return True
        return False

    def _place_again(self, t: _Task) -> None:
        """``t``, queued on a machine that went down, back among the tasks to place: a new
        task of the scheduler, due as it was; the old one ends where it is, uncounted."""
        now = self._clock()
        old = t.id
        t.id = self.sched.submit(now, t.type, t.deadline)
        self._ghosts.add(old)
        self._ghost_counts["submitted"] += 1
        del self._tasks[old]
        self._open.pop(old, None)
        self._tasks[t.id] = t
        self._open[t.id] = t
        t.machine = None
        t.placed_again += 1

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

    def _fail(self, t: _Task, now: float, reason: str) -> None:
        """``t`` fails now: ``"cancelled"`` by close(), or ``"WorkerLost"`` (submitted
        again when it has retries left); later news of its run is ignored."""
        t.ended = now
        self.sched.failed(t.id, now)
        t.outcome = "failed"
        t.reason = reason
        t.settled = True
        t.result = None
        if reason == "cancelled":
            t.cancelled = True
            _cancel(t.future)
        elif t.attempt < t.retries and now < t.deadline and not self._stopping:
            self._retry(t)
        else:
            name = self.worker_names[t.machine] if t.machine is not None else "?"
            _resolve(t.future, error=WorkerLost(f"task {t.id}: worker {name} left"))
        self._close_task(t)

    def _look_at_workers(self, present: Dict[str, Any]) -> None:
        """Marks machines down and up from the workers present; binds spares to workers
        that joined."""
        changed = self._bind_spares(present)
        lost_workers: set = set()
        for m, name in enumerate(self.machine_workers):
            handle = present.get(name) if name is not None else None
            if handle == self._handles[m]:
                continue
            if self._handles[m] is not None:  # it left (or came back as a new process)
                lost = [
                    t for t in self._open.values()
                    if t.machine == m and t.started is not None and t.ended is None
                ]
                runs = [t.run for t in lost if t.run is not None]
                for t in lost:
                    self._fail(t, self._clock(), "WorkerLost")
                queued = [t for t in self._open.values() if t.machine == m and t.started is None]
                for t in queued:  # placed again, on the machines that are up
                    if t.run is not None:
                        runs.append(t.run)
                        t.run = t.sent = None
                    self._place_again(t)
                if runs:
                    self.backend.stop(runs, "its worker left")
                if name not in lost_workers:
                    lost_workers.add(name)
                    self.backend.lost(name)
            self._handles[m] = handle
            if handle is None:
                self._down.add(m)
                if m in self._spare:  # free again
                    self.machine_workers[m] = None  # type: ignore[call-overload]
                    self.worker_names[m] = self._spare[m]
            else:
                self._down.discard(m)
            changed = True
        if changed:
            self._apply_pet()
            self._wake.set()

    def _bind_spares(self, present: Dict[str, Any]) -> bool:
        """Free spares of its type to each worker present that no machine names."""
        if not self._spare:
            return False
        named = set(self.machine_workers)
        bound = False
        for name in sorted(set(present) - named):
            kind = self.backend.kind_of(name)
            if kind is None:
                continue
            kind = kind if isinstance(kind, str) else self._machine_types[kind]
            free = [m for m, label in self._spare.items()
                    if self.machine_workers[m] is None and self.worker_types[m] == kind]
            take = free[: max(1, self.backend.threads_of(name))]
            for k, m in enumerate(take):
                self.machine_workers[m] = name
                self.worker_names[m] = name if len(take) == 1 else f"{name}/{k}"
                bound = True
        return bound

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
        stop = []
        for t in list(self._open.values()):
            if t.started is not None and t.ended is None:
                if t.run is not None:
                    stop.append(t.run)
                self._fail(t, now, "cancelled")
        if stop:
            self.backend.stop(stop, "cancelled by close()")
        for task in list(self._held.values()):
            self._end_hold(task, now)
        self._act(self.sched.close(now))
        while True:  # the queued tasks start and fail; the last decision applies their ends
            actions = self.sched.decide(self._clock())
            if not actions:
                break
            self._act(actions)
        for t in self._open.values():
            t.cancelled = True
            _cancel(t.future)


class LocalBackend(Backend):
    """Workers on this host: each a :class:`prunesim._slot.Slots` pool of child processes,
    a task at a time per worker (process isolation: a dropped or overrunning task's process
    is killed). ``workers``: the names of the workers."""

    isolation = "process"

    def __init__(self, workers: Sequence[str]) -> None:
        self._slots = {str(w): Slots(str(w)) for w in workers}
        # One thread a worker: its tasks (the one it runs and those dispatched ahead) in order.
        self._threads = {
            w: concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"prunesim-{w}")
            for w in self._slots
        }
        self._lock = threading.Lock()
        self._running = 0
        self._warm = False

    def present(self) -> Optional[Dict[str, Any]]:
        if not self._warm:  # each worker's process started before its first task
            self._warm = True
            for slots in self._slots.values():
                slots.warm(1)
        return {name: name for name in self._slots}

    def launch(self, run: Run) -> None:
        assert run.payload is not None
        self._threads[run.worker].submit(self._run, run)

    def _run(self, run: Run) -> None:
        executor = self.executor
        assert executor is not None
        with self._lock:
            self._running += 1
        try:
            value, start, end = self._slots[run.worker].run(run.key, run.payload or b"",
                                                            run.kill_at)
        except BaseException as e:
            executor.ended(run.task, False)
            executor.settled(run.task, error=e)
        else:
            executor.ended(run.task, True)
            try:
                executor.settled(run.task, value=value.load(), run=(start, end))
            except BaseException as e:  # the value does not load here
                executor.settled(run.task, error=e, run=(start, end), ended_ok=True)
        finally:
            with self._lock:
                self._running -= 1

    def stop(self, runs: Sequence[Run], why: str) -> None:
        for run in runs:
            self._slots[run.worker].stop(run.key, why)

    def running(self) -> Optional[int]:
        with self._lock:
            return self._running

    def shutdown(self) -> None:
        for pool in self._threads.values():
            pool.shutdown(wait=False, cancel_futures=True)
        for slots in self._slots.values():
            slots.close()


def local_executor(pet: Pet, workers: Mapping[str, Union[str, int]], **options: Any) -> Executor:
    """An :class:`Executor` over :class:`LocalBackend`: each of ``workers`` (a name to its
    machine type) a pool of child processes of this host, one task at a time."""
    return Executor(LocalBackend(list(workers)), pet, workers, **options)
