"""A dispatcher of real OS processes under the live scheduler: the executor core on this host.

Tasks arrive from a Poisson clock in wall time; each sleeps ``work x factor`` seconds on one
of the worker slots (one per speed factor), in a child process of that slot
(``prunesim.executor.local_executor``: the same core as ``prunesim.dask``). The scheduler
maps tasks to slots with PAM and prunes those unlikely to make their deadline; the process
of an executing task it drops is killed. Its PET is the known work distributions times each
slot's factor, plus the measured cost of handing a task to a slot, at 10 ms ticks.

    python dispatcher.py --seconds 4 --rate 10 --speeds 1,1.5,2,3

It prints the outcomes and the robustness, and checks that every future resolved, that no
task counted on time ended after its deadline by the wall clock, and that no process is
left; it exits with status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

import prunesim
from prunesim.executor import current_worker, local_executor

# The task types: typical work in seconds on a slot of factor 1. A task's work is uniform in
# [0.5, 1.5] x its type's typical work, or with probability LONG in [2, 4] x (a straggler).
WORK = [0.15, 0.3, 0.5]
LONG = 0.2
RESOLUTION = 0.01  # seconds per tick of the PET


def slot_name(j: int, factor: float) -> str:
    return f"slot{j}x{factor}"


def sleep_work(work: float) -> float:
    """A task: sleeps its work times its slot's factor (read from the slot's name)."""
    factor = float((current_worker() or "x1").rsplit("x", 1)[1])
    time.sleep(work * factor)
    return work * factor


def draw_work(rng: random.Random, typical: float) -> float:
    if rng.random() < LONG:
        return typical * rng.uniform(2.0, 4.0)
    return typical * rng.uniform(0.5, 1.5)


def pet(speeds: List[float], overhead: float) -> prunesim.Pet:
    """Each type's work distribution times each slot's factor, plus the hand-over cost, on
    ticks of RESOLUTION seconds."""

    def tick(seconds: float) -> int:
        return int(round(seconds / RESOLUTION))

    rows = []
    for typical in WORK:
        row = []
        for factor in speeds:
            weights: Dict[int, float] = {}
            for share, lo, hi in ((1.0 - LONG, 0.5, 1.5), (LONG, 2.0, 4.0)):
                first = tick(lo * typical * factor + overhead)
                last = max(first, tick(hi * typical * factor + overhead))
                for t in range(first, last + 1):
                    weights[t] = weights.get(t, 0.0) + share / (last - first + 1)
            first = min(weights)
            dense = [weights.get(t, 0.0) for t in range(first, max(weights) + 1)]
            row.append(prunesim.Pmf.from_weights(dense, offset=first))
        rows.append(row)
    return prunesim.Pet(
        rows,
        type_names=[f"work{m}" for m in WORK],
        machine_names=[slot_name(j, f) for j, f in enumerate(speeds)],
    )


def children() -> List[int]:
    """This process's child processes (Linux; elsewhere none are seen)."""
    out: List[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="arrivals for this long")
    parser.add_argument("--rate", type=float, default=10.0, help="arrivals per second")
    parser.add_argument("--speeds", default="1,1.5,2,3", help="slot factors")
    parser.add_argument("--heuristic", default="PAM")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    speeds = [float(s) for s in args.speeds.split(",")]
    rng = random.Random(args.seed)
    overhead = 0.005  # handing a task to a running slot process and hearing its end
    names = {slot_name(j, f): slot_name(j, f) for j, f in enumerate(speeds)}
    ex = local_executor(pet(speeds, overhead), names, heuristic=args.heuristic, queue_size=3,
                        resolution=RESOLUTION, grace=2.0)
    print(f"slots {speeds}")
    futures: List[concurrent.futures.Future] = []
    due: Dict[int, float] = {}
    with ex:
        start = time.monotonic()
        at = rng.expovariate(args.rate)
        while at < args.seconds:
            time.sleep(max(0.0, start + at - time.monotonic()))
            k = rng.randrange(len(WORK))
            f = ex.submit(sleep_work, draw_work(rng, WORK[k]), task_type=k,
                          deadline=6.0 * WORK[k])
            due[f.task] = time.time() + 6.0 * WORK[k]  # type: ignore[attr-defined]
            futures.append(f)
            at += rng.expovariate(args.rate)
        concurrent.futures.wait(futures, timeout=120)
    df = ex.tasks()
    fates = Counter(df["reason"])
    on_time = int((df["outcome"] == "on_time").sum())
    print(f"{len(df)} tasks: " + ", ".join(f"{k} {v}" for k, v in sorted(fates.items())))
    print(f"robustness {100.0 * on_time / max(1, len(df)):.1f}%")
    failures = []
    if not all(f.done() for f in futures):
        failures.append("a future did not resolve")
    late = [
        int(r.task) for r in df.itertuples()
        if r.outcome == "on_time" and r.run_end > due[int(r.task)] + 0.05
    ]
    if late:
        failures.append(f"tasks counted on time ended after their deadline: {late}")
    time.sleep(0.2)
    left = children()
    if left:
        failures.append(f"processes left: {left}")
    killed = int(df["reason"].isin(["pruned_executing", "expired_executing", "overran"]).sum())
    print(f"checks: {'ok' if not failures else '; '.join(failures)} "
          f"({killed} running tasks stopped)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
