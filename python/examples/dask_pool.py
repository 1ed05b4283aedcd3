"""A pool of unlike Dask workers under the live scheduler, against plain Dask submission.

A ``LocalCluster`` of worker processes of two machine types, ``fast`` and ``slow``, runs tasks
of two types, ``a`` and ``b``, each a ``time.sleep`` whose length follows the PET of its
type on its worker's machine type (inconsistently heterogeneous: ``a`` is quick on ``fast``
workers, ``b`` on ``slow`` ones, and one task in ten is a straggler). Tasks arrive from a
Poisson clock faster than the pool can serve them, each due a fixed time after it arrives.
The same arrivals run three times: through :class:`prunesim.dask.DaskScheduler` (the
``auto`` heuristic and the pruner, the PET learned online), through plain ``client.submit``
(Dask's own placement, every task run to its end), and through plain ``client.submit``
pinned to the machine type each task type is quickest on and cancelled at its deadline (what
a team does by hand with Dask's resources). It prints each one's on-time share and the
scheduler's statistics.

    python dask_pool.py --tasks 300 --rate 45 --workers 2,2

The functions are the package tests' workload too (``python/tests/test_dask.py``).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import prunesim
from prunesim.dask import DROPS, DaskScheduler

# Mean seconds of each task type on each machine type, and the spread around it.
MEANS = {"a": {"fast": 0.1, "slow": 0.25}, "b": {"fast": 0.25, "slow": 0.12}}
SPREAD = (0.6, 1.4)  # a run is uniform in SPREAD x its mean ...
STRAGGLER = (0.1, 3.0)  # ... or, with this probability, this many times its mean
OVERHEAD = 0.02  # seconds the client's round trip adds to a run, in the PET
RESOLUTION = 0.01  # seconds per PET tick
SLACK = 0.6  # seconds from a task's arrival to its deadline

Arrival = Tuple[float, str, float]  # (seconds after the start, task type, its draw in [0, 1))


def make_pet() -> prunesim.Pet:
    """The PET by machine type: each run's distribution plus the round trip, in ticks."""
    rows = []
    for kind in MEANS:
        row = []
        for machine in ("fast", "slow"):
            mean = MEANS[kind][machine]
            weights: Dict[int, float] = {}
            share, factor = STRAGGLER
            for p, lo, hi in ((1 - share, *SPREAD), (share, factor, factor)):
                first = round((lo * mean + OVERHEAD) / RESOLUTION)
                last = max(first, round((hi * mean + OVERHEAD) / RESOLUTION))
                for t in range(first, last + 1):
                    weights[t] = weights.get(t, 0.0) + p / (last - first + 1)
            first = min(weights)
            dense = [weights.get(t, 0.0) for t in range(first, max(weights) + 1)]
            row.append(prunesim.Pmf.from_weights(dense, offset=first))
        rows.append(row)
    return prunesim.Pet(rows, type_names=list(MEANS), machine_names=["fast", "slow"])


def arrivals(n: int, rate: float, seed: int) -> List[Arrival]:
    """``n`` Poisson arrivals at ``rate`` a second, types at random, each with the draw
    that sets its run's length wherever it runs."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        out.append((t, rng.choice(list(MEANS)), rng.random()))
    return out


def seconds(kind: str, machine: str, draw: float) -> float:
    """The run of a task of ``kind`` with ``draw`` on a worker of ``machine`` type."""
    mean = MEANS[kind][machine]
    share, factor = STRAGGLER
    if draw < share:
        return factor * mean
    lo, hi = SPREAD
    return mean * (lo + (hi - lo) * (draw - share) / (1 - share))


def work(kind: str, draw: float, types: Dict[str, str], marks: Optional[str], tag: int) -> float:
    """A task: sleeps its run on the worker it landed on; with ``marks``, first writes the
    wall-clock time it started to ``marks/<tag>`` (what the tests check drops against)."""
    from prunesim.executor import current_worker

    if marks is not None:
        Path(marks, str(tag)).write_text(repr(time.time()))
    run = seconds(kind, types[str(current_worker())], draw)
    time.sleep(run)
    return run


def run_scheduler(
    client: Any,
    plan: List[Arrival],
    types: Dict[str, str],
    marks: Optional[str] = None,
    during: Optional[Callable[[int, DaskScheduler], None]] = None,
    **options: Any,
) -> Tuple[DaskScheduler, List[Any]]:
    """The arrivals through the live scheduler; ``during(i, ds)`` is called after the i-th
    submission. Returns the scheduler (closed, its tasks ended) and the futures."""
    options.setdefault("learn", {"prior_weight": 20.0, "refresh_every": 10})
    ds = DaskScheduler(client, make_pet(), types, resolution=RESOLUTION, **options)
    futures = []
    with ds:
        start = time.monotonic()
        for i, (at, kind, draw) in enumerate(plan):
            time.sleep(max(0.0, start + at - time.monotonic()))
            futures.append(
                ds.submit(work, kind, draw, types, marks, i, task_type=kind, deadline=SLACK)
            )
            if during is not None:
                during(i, ds)
        ds.wait(timeout=120)
    return ds, futures


def run_plain(client: Any, plan: List[Arrival], types: Dict[str, str]) -> Dict[str, int]:
    """The arrivals through plain ``client.submit`` on the same workers: Dask places each
    task; a task is on time when the client has its result before its deadline. A task that
    errs or that Dask cancels (its worker lost) is late."""
    import threading

    lock = threading.Lock()
    ended: Dict[int, float] = {}
    due: Dict[int, float] = {}
    futures = []
    workers = [a for a, w in client.scheduler_info()["workers"].items() if str(w["name"]) in types]
    start = time.monotonic()
    for i, (at, kind, draw) in enumerate(plan):
        time.sleep(max(0.0, start + at - time.monotonic()))
        due[i] = time.monotonic() + SLACK
        f = client.submit(work, kind, draw, types, None, i, workers=workers, pure=False)
        f.add_done_callback(lambda f, i=i: _ended(lock, ended, i, f))
        futures.append(f)
    for f in futures:  # every one ends: finished, erred or cancelled
        try:
            f.result()
        except Exception:  # noqa: BLE001 - an erred or cancelled task counts as late
            pass
    time.sleep(0.05)
    with lock:
        on_time = sum(1 for i, at in ended.items() if at < due[i])
    return {"tasks": len(plan), "on_time": on_time, "late": len(plan) - on_time}


def run_pinned(client: Any, plan: List[Arrival], types: Dict[str, str]) -> Dict[str, int]:
    """The arrivals through plain ``client.submit`` pinned by type, as a team would without
    a scheduler: each task restricted to the workers of the machine type it is quickest on,
    and cancelled at its deadline if it has not ended (Dask drops it if it waits; a function
    already running runs on). A task is on time when the client has its result before its
    deadline."""
    import threading

    lock = threading.Lock()
    ended: Dict[int, float] = {}
    due: Dict[int, float] = {}
    futures: List[Any] = []
    by_type: Dict[str, List[str]] = {}
    for address, w in client.scheduler_info()["workers"].items():
        if str(w["name"]) in types:
            by_type.setdefault(types[str(w["name"])], []).append(address)
    best = {kind: min(MEANS[kind], key=lambda m: MEANS[kind][m]) for kind in MEANS}
    start = time.monotonic()
    cancelled = 0
    for i, (at, kind, draw) in enumerate(plan):
        time.sleep(max(0.0, start + at - time.monotonic()))
        now = time.monotonic()
        late = [j for j, f in enumerate(futures) if due[j] <= now and not f.done()]
        if late:  # cancelled at their deadline
            client.cancel([futures[j] for j in late])
            cancelled += len(late)
        due[i] = now + SLACK
        f = client.submit(work, kind, draw, types, None, i, workers=by_type[best[kind]],
                          pure=False)
        f.add_done_callback(lambda f, i=i: _ended(lock, ended, i, f))
        futures.append(f)
    while not all(f.done() for f in futures):
        now = time.monotonic()
        client.cancel([f for j, f in enumerate(futures) if due[j] <= now and not f.done()])
        time.sleep(0.02)
    time.sleep(0.05)
    with lock:
        on_time = sum(1 for i, at in ended.items() if at < due[i])
    return {"tasks": len(plan), "on_time": on_time, "late": len(plan) - on_time}


def _ended(lock: Any, ended: Dict[int, float], i: int, future: Any) -> None:
    if future.status != "finished":  # erred or cancelled: never on time
        return
    with lock:
        ended[i] = time.monotonic()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=300)
    ap.add_argument("--rate", type=float, default=45.0, help="arrivals a second")
    ap.add_argument("--workers", default="2,2", help="fast,slow worker processes")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    fast, slow = (int(x) for x in args.workers.split(","))
    types = {str(k): "fast" if k < fast else "slow" for k in range(fast + slow)}
    plan = arrivals(args.tasks, args.rate, args.seed)
    with LocalCluster(
        n_workers=fast + slow, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        ds, _ = run_scheduler(client, plan, types)
        plain = run_plain(client, plan, types)
        pinned = run_pinned(client, plan, types)
    summary = ds.summary()
    print(f"{args.tasks} tasks at {args.rate:g}/s on {fast} fast and {slow} slow workers")
    print(ds.stats("task_type").to_string())
    print(ds.stats("worker").to_string())
    dropped = sum(summary["n_" + d] for d in DROPS)
    print(
        f"on time: scheduler {summary['robustness']:.1f}% (late {summary['n_late']}, "
        f"dropped {dropped}, failed {summary['n_failed']}), "
        f"plain Dask {100.0 * plain['on_time'] / plain['tasks']:.1f}%, "
        f"plain pinned by type and cancelled at the deadline "
        f"{100.0 * pinned['on_time'] / pinned['tasks']:.1f}%"
    )
    print(
        f"client time per task: deciding {summary['decide_ms']:.2f} ms, "
        f"bookkeeping {summary['bookkeeping_ms']:.2f} ms"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
