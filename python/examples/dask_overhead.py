"""The latency prunesim.dask adds to a task, against plain ``client.submit``.

Tasks that do nothing arrive at a fixed rate (10, 100 and 1,000 a second) on a
``LocalCluster`` of worker processes of one thread each, first through plain
``client.submit`` (Dask places them), then through :class:`prunesim.dask.DaskScheduler`
(deadlines far away: nothing is dropped). A task's latency is from its submission to the
client's notice of its end (Dask's done callback: what deadlines are judged by). It prints,
per rate, the median and 90th percentile of both, the median added, and the client's time per
task in the scheduler's decisions and its bookkeeping.

    python dask_overhead.py --rates 10,100,1000 --seconds 3 --workers 4
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Any, Dict, List

import prunesim
from prunesim.dask import DaskScheduler


def noop() -> None:
    return None


def quantile(xs: List[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def plain(client: Any, rate: float, n: int, workers: List[str]) -> List[float]:
    lock = threading.Lock()
    done: Dict[int, float] = {}
    sent: Dict[int, float] = {}
    futures = []
    start = time.monotonic()
    for i in range(n):
        time.sleep(max(0.0, start + i / rate - time.monotonic()))
        sent[i] = time.monotonic()
        f = client.submit(noop, pure=False, workers=workers)

        def ended(_f: Any, i: int = i) -> None:
            with lock:
                done[i] = time.monotonic()

        f.add_done_callback(ended)
        futures.append(f)
    client.gather(futures)
    while len(done) < n:
        time.sleep(0.01)
    return [done[i] - sent[i] for i in range(n)]


def scheduled(
    client: Any, rate: float, n: int, types: Dict[str, str]
) -> "tuple[List[float], Dict[str, Any]]":
    pet = prunesim.Pet([[prunesim.Pmf.point(2)]], type_names=["noop"], machine_names=["any"])
    with DaskScheduler(client, pet, types, resolution=0.001) as ds:
        start = time.monotonic()
        for i in range(n):
            time.sleep(max(0.0, start + i / rate - time.monotonic()))
            ds.submit(noop, task_type=0, deadline=3600.0)
        ds.wait()
    df = ds.tasks()
    assert (df["outcome"] == "on_time").all(), df["outcome"].value_counts()
    return list(df["ended"] - df["submitted"]), ds.summary()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", default="10,100,1000", help="tasks a second, comma-separated")
    ap.add_argument("--seconds", type=float, default=3.0, help="of arrivals at each rate")
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    types = {str(k): "any" for k in range(args.workers)}
    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, Client(cluster) as client:
        workers = list(client.scheduler_info()["workers"])
        client.gather([client.submit(noop, pure=False) for _ in range(20)])  # warm up
        print(f"{args.workers} worker processes, {args.seconds:g} s of no-op tasks at each rate")
        print(
            "rate/s  plain median  p90   scheduler median  p90   added median  decide/task"
            "  bookkeeping/task"
        )
        for rate in (float(r) for r in args.rates.split(",")):
            n = max(10, int(rate * args.seconds))
            a = plain(client, rate, n, workers)
            b, summary = scheduled(client, rate, n, types)
            ms = 1000.0
            print(
                f"{rate:6g}  {ms * statistics.median(a):9.1f} ms {ms * quantile(a, 0.9):5.1f}"
                f"  {ms * statistics.median(b):13.1f} ms {ms * quantile(b, 0.9):6.1f}"
                f"  {ms * (statistics.median(b) - statistics.median(a)):9.1f} ms"
                f"  {summary['decide_ms']:8.2f} ms  {summary['bookkeeping_ms']:12.2f} ms"
            )


if __name__ == "__main__":
    main()
