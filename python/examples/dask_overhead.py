"""What prunesim.dask costs against plain ``client.submit``: throughput, latency, client CPU.

A real Dask cluster of separate processes (``dask scheduler`` and ``dask worker``, so the
client's CPU is the client's own) runs tasks that sleep ``--task-ms`` (10 ms) arriving at
fixed rates, with deadlines far away (nothing is deferred or dropped), on two layouts: 4
workers of 1 thread and 1 worker of 4 threads. Each rate runs through plain
``client.submit`` (Dask places the tasks: its own threads) and through
:class:`prunesim.dask.DaskScheduler` under its default process isolation (each task in a
process of its worker, which can be stopped) and under thread isolation (Dask's threads, as
plain). A task's latency is from its submission to the client's notice of its end;
throughput is the tasks over the time from the first submission to the last end; the
client's CPU is ``time.process_time()`` from the first submission to the last value back,
per task.

    python dask_overhead.py --rates 50,200,500 --seconds 4 --layouts 4x1,1x4
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import prunesim
from prunesim.dask import DaskScheduler


def work(seconds: float) -> None:
    time.sleep(seconds)


def plain(client: Any, rate: float, n: int, seconds: float) -> Tuple[List[float], float, float]:
    lock = threading.Lock()
    done: Dict[int, float] = {}
    sent: Dict[int, float] = {}
    futures = []
    cpu = time.process_time()
    start = time.monotonic()
    for i in range(n):
        time.sleep(max(0.0, start + i / rate - time.monotonic()))
        sent[i] = time.monotonic()
        f = client.submit(work, seconds, pure=False)

        def ended(_f: Any, i: int = i) -> None:
            with lock:
                done[i] = time.monotonic()

        f.add_done_callback(ended)
        futures.append(f)
    client.gather(futures)
    while len(done) < n:
        time.sleep(0.005)
    cpu = time.process_time() - cpu
    return [done[i] - sent[i] for i in range(n)], max(done.values()) - start, cpu


def scheduled(
    client: Any, rate: float, n: int, seconds: float, isolation: str
) -> Tuple[List[float], float, float]:
    tick = 0.001
    pet = prunesim.Pet([[prunesim.Pmf.point(max(1, round(seconds / tick)))]],
                       type_names=["work"], machine_names=["any"])
    workers = {str(w["name"]): "any" for w in client.scheduler_info()["workers"].values()}
    with DaskScheduler(client, pet, workers, resolution=tick, isolation=isolation) as ds:
        time.sleep(1.0)  # the workers' task processes start
        futures = []
        cpu = time.process_time()
        start = ds.now()
        for i in range(n):
            time.sleep(max(0.0, start + i / rate - ds.now()))
            futures.append(ds.submit(work, seconds, task_type=0, deadline=3600.0))
        ds.gather(futures)  # the values, as plain's client.gather
        cpu = time.process_time() - cpu
    df = ds.tasks()
    assert (df["outcome"] == "on_time").all(), df["outcome"].value_counts()
    return list(df["ended"] - df["submitted"]), float(df["ended"].max() - start), cpu


def start_cluster(folder: Path, workers: int, threads: int) -> List[subprocess.Popen]:
    dask = shutil.which("dask") or str(Path(sys.executable).parent / "dask")
    file = folder / "scheduler.json"
    procs = [subprocess.Popen(
        [dask, "scheduler", "--scheduler-file", str(file), "--port", "0",
         "--dashboard-address", ":0", "--no-show"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    limit = time.monotonic() + 60
    while not file.exists() and time.monotonic() < limit:
        time.sleep(0.1)
    for k in range(workers):
        procs.append(subprocess.Popen(
            [dask, "worker", "--scheduler-file", str(file), "--nthreads", str(threads),
             "--name", str(k), "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rates", default="50,200,500", help="tasks a second, comma-separated")
    ap.add_argument("--seconds", type=float, default=4.0, help="of arrivals at each rate")
    ap.add_argument("--task-ms", type=float, default=10.0, help="each task's sleep")
    ap.add_argument("--layouts", default="4x1,1x4", help="workers x threads, comma-separated")
    ap.add_argument("--json", help="write the rows to this file too")
    args = ap.parse_args()
    from dask.distributed import Client

    rows = []
    print("layout  rate/s  how                 tasks/s  median ms  p90 ms  client CPU ms/task")
    for layout in args.layouts.split(","):
        n_workers, threads = (int(x) for x in layout.split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            procs = start_cluster(Path(tmp), n_workers, threads)
            try:
                with Client(scheduler_file=str(Path(tmp) / "scheduler.json")) as client:
                    client.wait_for_workers(n_workers, timeout=60)
                    client.gather([client.submit(work, 0.0, pure=False) for _ in range(20)])
                    for rate in (float(r) for r in args.rates.split(",")):
                        n = max(20, int(rate * args.seconds))
                        seconds = args.task_ms / 1000.0
                        for how in ("plain", "scheduler process", "scheduler thread"):
                            if how == "plain":
                                lat, span, cpu = plain(client, rate, n, seconds)
                            else:
                                lat, span, cpu = scheduled(client, rate, n, seconds,
                                                           how.split()[1])
                            row = {
                                "layout": layout, "rate": rate, "how": how,
                                "throughput": n / span,
                                "median_ms": 1000 * statistics.median(lat),
                                "p90_ms": 1000 * sorted(lat)[int(0.9 * (len(lat) - 1))],
                                "cpu_ms_per_task": 1000 * cpu / n,
                            }
                            rows.append(row)
                            print(f"{layout:6}  {rate:6g}  {how:18}  {row['throughput']:7.1f}"
                                  f"  {row['median_ms']:9.1f}  {row['p90_ms']:6.1f}"
                                  f"  {row['cpu_ms_per_task']:8.2f}", flush=True)
            finally:
                for p in procs[::-1]:
                    p.terminate()
                for p in procs:
                    try:
                        p.wait(timeout=20)
                    except subprocess.TimeoutExpired:
                        p.kill()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("DASK_DISTRIBUTED__WORKER__DAEMON", "False")
    main()
