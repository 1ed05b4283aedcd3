"""What :mod:`prunesim.dask` runs on the Dask workers (and on its scheduler): the task slots
of each executor (:class:`prunesim._slot.Slots`, by the executor's tag, per worker process),
the calls that run a task, stop tasks, start and close the slots, and read the cluster."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, List, Optional

from ._slot import Slots

# Per worker process: the slots of each executor (by its tag).
_SLOTS: Dict[str, Slots] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(tag: str, worker: Any = None) -> Slots:
    with _SLOTS_LOCK:
        slots = _SLOTS.get(tag)
        if slots is None:
            if worker is None:
                from distributed import get_worker

                worker = get_worker()
            slots = _SLOTS[tag] = Slots(str(worker.name))
        return slots


def _in_slot(tag: str, key: str, payload: bytes, kill_at: Optional[float]) -> Any:
    """Runs on a worker: the task in a child process (process isolation)."""
    return _slots(tag).run(key, payload, kill_at)


async def _warm_slots(tag: str, dask_worker: Any) -> None:
    """Runs on a worker: a child process started for each of its threads."""
    _slots(tag, dask_worker).warm(dask_worker.state.nthreads)


def _timed(fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """Runs on a worker: the call's value, its wall-clock start and end (thread isolation)."""
    start = time.time()
    value = fn(*args, **kwargs)
    return (value, start, time.time())


async def _stop_keys(tag: str, keys: List[str], why: str, dask_worker: Any) -> int:
    """Runs on a worker: kills the processes running ``keys`` (or stops them when they come).
    (``get_worker()`` names no worker outside a task: the worker is passed.)"""
    return sum(_slots(tag, dask_worker).stop(k, why) for k in keys)


async def _close_slots(tag: str) -> None:
    """Runs on a worker: the executor closed; its child processes end."""
    with _SLOTS_LOCK:
        slots = _SLOTS.pop(tag, None)
    if slots is not None:
        slots.close()


def _executing(tag: str, dask_worker: Any) -> int:
    """Runs on a worker: how many of the executor's keys it is executing."""
    state = getattr(dask_worker, "state", dask_worker)
    keys = [str(getattr(ts, "key", ts)) for ts in getattr(state, "executing", ())]
    return sum(1 for k in keys if f"-{tag}-" in k)


def _workers_by_name(dask_scheduler: Any) -> Dict[str, Any]:
    """Runs on the Dask scheduler: every worker's address, resources and threads by name."""
    return {str(ws.name): (addr, dict(ws.resources or {}), ws.nthreads)
            for addr, ws in dask_scheduler.workers.items()}
