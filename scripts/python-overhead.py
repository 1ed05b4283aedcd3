#!/usr/bin/env python3
"""The Python package's overhead: `prunesim.run()` against `prunesim run`, both on the
built-in default experiment (30 trials of PAM at 34k with the clairvoyant bracket).

Alternates the two, each as a process of its own, and prints each run's CPU seconds (user +
system of the process and its threads) and wall seconds, then the medians and their ratios:
of the whole processes (the interpreter's start and the import count against Python) and of
the call `prunesim.run()` alone (timed inside the Python process) against the whole command
line process. Both must give the same robustness; the script checks it.

    scripts/python-overhead.py --cli target/release/prunesim --python venv/bin/python --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import time


def timed(cmd: "list[str]") -> "tuple[float, float, str]":
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default="target/release/prunesim")
    parser.add_argument("--python", default="python3", help="an interpreter with prunesim")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=0, help="threads of both (0: every core)")
    args = parser.parse_args()
    cli = [args.cli, "run", "--json", "--jobs", str(args.jobs)]
    code = (
        "import json, time, prunesim; "
        "c, w = time.process_time(), time.perf_counter(); "
        f"r = prunesim.run(jobs={args.jobs or None}); "
        "c, w = time.process_time() - c, time.perf_counter() - w; "
        "print(json.dumps([r.robustness_mean, c, w]))"
    )
    py = [args.python, "-c", code]
    times: "dict[str, list[tuple[float, float]]]" = {"cli": [], "python": [], "call": []}
    seen = set()
    for i in range(args.runs):
        for name, cmd in (("cli", cli), ("python", py)) if i % 2 == 0 else (("python", py), ("cli", cli)):
            cpu, wall, out = timed(cmd)
            value = json.loads(out)
            if name == "cli":
                robustness = value["robustness_mean"]
            else:
                robustness, call_cpu, call_wall = value
                times["call"].append((call_cpu, call_wall))
            times[name].append((cpu, wall))
            print(f"run {i + 1} {name:>6}: CPU {cpu:7.3f} s, wall {wall:7.3f} s, robustness {robustness}")
            seen.add(robustness)
    if len(seen) != 1:
        raise SystemExit(f"the runs disagree: robustness {sorted(seen)}")
    cpu = {k: statistics.median(c for c, _ in v) for k, v in times.items()}
    wall = {k: statistics.median(w for _, w in v) for k, v in times.items()}
    for what, m in (("CPU", cpu), ("wall", wall)):
        print(
            f"median {what}: cli {m['cli']:.3f} s, python process {m['python']:.3f} s "
            f"({m['python'] / m['cli']:.3f} of the cli), prunesim.run() {m['call']:.3f} s "
            f"({m['call'] / m['cli']:.3f} of the cli)"
        )
    print(f"host: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
