"""A dispatcher of real OS processes under ``prunesim.Scheduler``.

Tasks arrive from a Poisson clock in wall time; each is a ``sleep`` process that runs
``work x factor`` seconds on one of the worker slots (one per speed factor), started by a
``concurrent.futures`` thread pool that waits on it. The scheduler maps tasks to slots with
PAM and prunes those unlikely to make their deadline; the process of an executing task it
drops is killed. Its PET is the known work distributions times each slot's factor, plus the
measured cost of starting a process, at 10 ms ticks.

    python dispatcher.py --seconds 4 --rate 10 --speeds 1,1.5,2,3

It prints the outcomes and the robustness, and checks that every task ended exactly once,
that no task counted on time ended after its deadline by the wall clock, and that no
process is left; it exits with status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Dict, List, Optional, Tuple

import prunesim

# The task types: typical work in seconds on a slot of factor 1. A task's work is uniform in
# [0.5, 1.5] x its type's typical work, or with probability LONG in [2, 4] x (a straggler).
WORK = [0.15, 0.3, 0.5]
LONG = 0.2
RESOLUTION = 0.01  # seconds per tick of the PET


def sleep_command(seconds: float) -> List[str]:
    """A process that runs `seconds`: `sleep` where it takes fractions, else Python."""
    sleep = shutil.which("sleep")
    if sleep is not None and sys.platform.startswith("linux"):
        return [sleep, f"{seconds:.3f}"]
    return [sys.executable, "-c", f"import time; time.sleep({seconds:.3f})"]


def launch_cost(samples: int = 5) -> float:
    """The seconds a process takes to start and end, measured on empty workers."""
    times = []
    for _ in range(samples):
        t0 = time.monotonic()
        subprocess.run(sleep_command(0.0), check=True)
        times.append(time.monotonic() - t0)
    return sorted(times)[len(times) // 2]


def draw_work(rng: random.Random, typical: float) -> float:
    if rng.random() < LONG:
        return typical * rng.uniform(2.0, 4.0)
    return typical * rng.uniform(0.5, 1.5)


def pet(speeds: List[float], overhead: float) -> prunesim.Pet:
    """Each type's work distribution times each slot's factor, plus the launch cost, on
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
        machine_names=[f"slot{j}x{f}" for j, f in enumerate(speeds)],
    )


class Dispatcher:
    """The scheduler, the worker pool and the processes it runs."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.speeds = [float(s) for s in args.speeds.split(",")]
        self.rng = random.Random(args.seed)
        overhead = launch_cost()
        self.sched = prunesim.Scheduler(
            pet(self.speeds, overhead),
            heuristic=args.heuristic,
            queue_size=3,
            resolution=RESOLUTION,
        )
        # Every task's fate is read at the end (a long-running dispatcher reads counts()).
        self.sched.keep_records(True)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2 * len(self.speeds))
        self.ends: "queue.Queue[Tuple[int, float]]" = queue.Queue()
        self.lock = threading.Lock()
        self.procs: Dict[int, subprocess.Popen] = {}
        self.killed: set = set()
        self.deadline: Dict[int, float] = {}
        self.ended_at: Dict[int, float] = {}
        self.futures: List[concurrent.futures.Future] = []
        self.t0 = time.monotonic()
        print(f"launch cost {overhead * 1000:.0f} ms; slots {self.speeds}")

    def now(self) -> float:
        return time.monotonic() - self.t0

    def execute(self, task: int, seconds: float) -> None:
        """A worker: runs the task's process and reports when it ends."""
        with self.lock:
            if task in self.killed:  # dropped before its process started
                return
            proc = subprocess.Popen(sleep_command(seconds))
            self.procs[task] = proc
        proc.wait()
        self.ends.put((task, self.now()))

    def act(self, actions: List[prunesim.Action], work: Dict[int, float]) -> None:
        for a in actions:
            if a.kind == "start":
                assert a.machine is not None
                seconds = work[a.task] * self.speeds[a.machine]
                self.futures.append(self.pool.submit(self.execute, a.task, seconds))
                self.sched.started(a.task, self.now())
            elif a.kind == "drop" and a.executing:
                with self.lock:
                    self.killed.add(a.task)
                    proc = self.procs.get(a.task)
                    if proc is not None and proc.poll() is None:
                        proc.kill()

    def run(self, seconds: float, rate: float) -> int:
        work: Dict[int, float] = {}
        next_arrival = self.rng.expovariate(rate)
        while True:
            now = self.now()
            closing = now >= seconds
            if not closing and now >= next_arrival:
                k = self.rng.randrange(len(WORK))
                w = draw_work(self.rng, WORK[k])
                due = now + 6.0 * WORK[k]
                task = self.sched.submit(now, k, due)
                work[task] = w
                self.deadline[task] = due
                next_arrival = now + self.rng.expovariate(rate)
            while True:
                try:
                    task, at = self.ends.get_nowait()
                except queue.Empty:
                    break
                self.ended_at[task] = at
                if task not in self.killed:
                    # Reported now (never before a time the scheduler has seen): a task
                    # counted on time ended before its deadline by the wall clock.
                    self.sched.completed(task, self.now())
            self.act(self.sched.decide(self.now()), work)
            if closing:
                self.act(self.sched.close(self.now()), work)
                if all(self.sched.fate(t) not in ("open", "reported") for t in work):
                    break
            wake = self.sched.next_wakeup()
            until = [next_arrival if not closing else seconds + 60.0]
            if wake is not None:
                until.append(wake)
            timeout = max(0.0, min(min(until) - self.now(), 0.02))
            try:
                task, at = self.ends.get(timeout=timeout)
                self.ends.put((task, at))
            except queue.Empty:
                pass
        self.pool.shutdown(wait=True)
        return self.report(work)

    def report(self, work: Dict[int, float]) -> int:
        fates = Counter(self.sched.fate(t) for t in work)
        on_time = fates.get("on_time", 0)
        print(f"{len(work)} tasks: " + ", ".join(f"{k} {v}" for k, v in sorted(fates.items())))
        print(f"robustness {100.0 * on_time / max(1, len(work)):.1f}%")
        failures = []
        if any(f in ("open", "reported") for f in fates):
            failures.append("a task did not end")
        late = [
            t
            for t in work
            if self.sched.fate(t) == "on_time" and self.ended_at.get(t, 0.0) > self.deadline[t]
        ]
        if late:
            failures.append(f"tasks counted on time ended after their deadline: {late}")
        left = [t for t, p in self.procs.items() if p.poll() is None]
        if left:
            failures.append(f"processes left: {left}")
        killed = sum(1 for t in self.killed if t in self.procs)
        print(f"checks: {'ok' if not failures else '; '.join(failures)} ({killed} processes killed)")
        return 1 if failures else 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="arrivals for this long")
    parser.add_argument("--rate", type=float, default=10.0, help="arrivals per second")
    parser.add_argument("--speeds", default="1,1.5,2,3", help="slot factors")
    parser.add_argument("--heuristic", default="PAM")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    return Dispatcher(args).run(args.seconds, args.rate)


if __name__ == "__main__":
    sys.exit(main())
