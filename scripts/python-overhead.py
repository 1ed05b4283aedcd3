#!/usr/bin/env python3
"""The Python package's overhead: `prunesim.run()` against `prunesim run`, both on the
built-in default experiment (30 trials of PAM at 34k with the clairvoyant bracket).

Alternates the two, each as a process of its own (the interpreter's start and the import
count against Python), and prints each run's CPU seconds (user + system of the process and
its threads) and wall seconds, then the medians and their ratio. Both must give the same
robustness; the script checks it.

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
        "import json, prunesim; "
        f"r = prunesim.run(jobs={args.jobs or None}); "
        "print(json.dumps(r.robustness_mean))"
    )
    py = [args.python, "-c", code]
    times: "dict[str, list[tuple[float, float]]]" = {"cli": [], "python": []}
    seen = set()
    for i in range(args.runs):
        for name, cmd in (("cli", cli), ("python", py)) if i % 2 == 0 else (("python", py), ("cli", cli)):
            cpu, wall, out = timed(cmd)
            value = json.loads(out)
            robustness = value["robustness_mean"] if isinstance(value, dict) else value
            times[name].append((cpu, wall))
            print(f"run {i + 1} {name:>6}: CPU {cpu:7.2f} s, wall {wall:7.2f} s, robustness {robustness}")
            seen.add(robustness)
    if len(seen) != 1:
        raise SystemExit(f"the runs disagree: robustness {sorted(seen)}")
    cpu = {k: statistics.median(c for c, _ in v) for k, v in times.items()}
    wall = {k: statistics.median(w for _, w in v) for k, v in times.items()}
    print(
        f"median CPU: cli {cpu['cli']:.2f} s, python {cpu['python']:.2f} s, "
        f"python/cli {cpu['python'] / cpu['cli']:.3f}"
    )
    print(
        f"median wall: cli {wall['cli']:.2f} s, python {wall['python']:.2f} s, "
        f"python/cli {wall['python'] / wall['cli']:.3f}"
    )
    print(f"host: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
