"""prunesim.dask on a real LocalCluster: worker processes of two machine types, real tasks with
deadlines, an overloaded arrival rate, a worker killed and one joining, a task that raises,
and the client interrupted. Needs the ``dask`` extra (``pip install ./python[dask]``; CI
installs it)."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from conftest import ROOT

distributed = pytest.importorskip(
    "distributed", reason="prunesim.dask needs the dask extra: pip install ./python[dask]"
)

import prunesim  # noqa: E402
from prunesim.dask import (  # noqa: E402
    DROPS,
    DaskScheduler,
    TaskDropped,
    WorkerLost,
    workers_by_resource,
)

sys.path.insert(0, str(ROOT / "python" / "examples"))
import dask_pool  # noqa: E402

# Four worker processes of two machine types (LocalCluster names them 0..3); a fifth, "4",
# is mapped but not started: it joins in one test.
TYPES = {"0": "fast", "1": "fast", "2": "slow", "3": "slow"}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=4, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster: Any) -> Iterator[Any]:
    from dask.distributed import Client

    with Client(cluster) as c:
        yield c


def address(client: Any, name: str, timeout: float = 30.0) -> str:
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        for addr, w in client.scheduler_info()["workers"].items():
            if str(w["name"]) == name:
                return addr
        time.sleep(0.1)
    raise AssertionError(f"worker {name} is not in the cluster")


def executing(client: Any) -> Dict[str, int]:
    """How many tasks each live worker is executing now (a worker that died meanwhile, such
    as the one a test killed before its nanny restarted it, answers with its error and is
    left out)."""
    limit = time.monotonic() + 10.0
    while True:
        try:
            answers = client.run(
                lambda dask_worker: len(dask_worker.state.executing), on_error="return"
            )
            return {w: n for w, n in answers.items() if isinstance(n, int)}
        except OSError:  # the broadcast itself lost a connection: ask again
            if time.monotonic() > limit:
                raise
            time.sleep(0.1)


def wait_idle(client: Any, timeout: float = 10.0) -> None:
    limit = time.monotonic() + timeout
    while any(executing(client).values()) and time.monotonic() < limit:
        time.sleep(0.05)


def test_an_overloaded_pool_ends_every_task_once_beats_plain_dask_and_survives_a_kill(
    client: Any, tmp_path: Path
) -> None:
    wait_idle(client)
    plan = dask_pool.arrivals(300, 45.0, seed=3)  # the pool serves about 25 a second
    marks = tmp_path / "marks"
    marks.mkdir()
    killed: Dict[str, Any] = {"down": set()}

    def during(i: int, ds: DaskScheduler) -> None:
        killed["down"].update(ds.down)
        if i == 100:  # a worker process killed mid-run (its nanny starts a new one)
            addr = address(client, "3")
            pid = client.run(os.getpid, workers=[addr])[addr]
            killed["at"] = time.time()
            os.kill(pid, signal.SIGKILL)

    ds, futures = dask_pool.run_scheduler(client, plan, TYPES, marks=str(marks), during=during)
    # Nothing of it runs on the workers any more.
    assert not any(executing(client).values())

    # Every task ended exactly once, and its future says how.
    df = ds.tasks()
    assert len(df) == len(plan) and df["task"].is_unique
    assert df["outcome"].notna().all(), df[df["outcome"].isna()]
    assert set(df["outcome"]) <= {"on_time", "late", "dropped", "failed"}
    assert all(f.done() for f in futures)
    for f, outcome, reason, worker in zip(futures, df["outcome"], df["reason"], df["worker"]):
        if outcome in ("on_time", "late"):
            # Its value stays on its worker until asked for; one that ended on the killed
            # worker before it was asked for is lost, and the future says so.
            error = f.exception(timeout=30)
            assert error is None and f.result() > 0 or (
                isinstance(error, WorkerLost) and worker == "3"), (error, worker)
        elif outcome == "dropped":
            assert isinstance(f.exception(), TaskDropped) and f.exception().reason == reason
        else:
            assert f.exception() is not None

    # A value lost keeps its task's outcome; its reason is why.
    df = ds.tasks()
    assert set(df[df["reason"] == "WorkerLost"]["outcome"]) <= {"on_time", "late", "failed"}

    # The counts are the scheduler's own.
    counts = ds.counts()
    by = Counter(df["outcome"])
    assert counts["submitted"] == len(plan)
    assert by["on_time"] == counts["on_time"] and by["late"] == counts["late"]
    assert by["failed"] == counts["failed"]
    assert by["dropped"] == sum(counts[d] for d in DROPS)
    assert by["dropped"] > 0  # the load is one where pruning matters

    # No task started after it was reported dropped, but for the moment the stop takes to
    # reach a worker that holds it (dispatched ahead): the worker wrote each start.
    # (Rows are in submission order, the marks' names.)
    started = {int(p.name): float(p.read_text()) for p in marks.iterdir()}
    for i, row in enumerate(df.itertuples()):
        if row.outcome == "dropped" and i in started:
            assert started[i] <= row.dropped_at + 0.2, row
        if row.sent is None or row.sent != row.sent:  # never sent to Dask
            assert i not in started, row

    # The killed worker's tasks failed; the run went on without it and it came back.
    failed = df[df["outcome"] == "failed"]
    value_lost = df[df["outcome"].isin(["on_time", "late"]) & (df["reason"] == "WorkerLost")]
    assert len(failed) + len(value_lost) >= 1, "the killed worker had a task"
    assert set(failed["worker"]) <= {"3"}, failed
    assert failed["reason"].notna().all()  # WorkerLost, KilledWorker, ...: what Dask said
    assert not (df["ended"].isna()).any()
    assert "3" in killed["down"] or set(failed["reason"]) <= {"WorkerLost"}
    assert set(df.loc[len(plan) - 50:, "outcome"]) != {"failed"}

    # The statistics.
    per_type = ds.stats("task_type")
    assert list(per_type.index) == ["a", "b"] and per_type["tasks"].sum() == len(plan)
    per_worker = ds.stats("worker")
    assert {"0", "1", "2", "3"} <= set(per_worker.index)
    assert list(per_worker.columns) == [
        "tasks", "on_time", "late", "dropped", "failed", "open", "deferred", "robustness"
    ]
    summary = ds.summary()
    assert summary["counted"] == len(plan) and summary["on_time"] == counts["on_time"]
    assert summary["robustness"] == pytest.approx(100.0 * counts["on_time"] / len(plan))
    assert summary["n_failed"] == len(failed)

    # Plain Dask submission of the same arrivals on the same workers meets fewer deadlines.
    wait_idle(client)
    address(client, "3")
    plain = dask_pool.run_plain(client, plan, TYPES)
    print(f"on time: scheduler {summary['robustness']:.1f}%, plain Dask "
          f"{100.0 * plain['on_time'] / len(plan):.1f}%")
    assert counts["on_time"] > plain["on_time"]


def boom(x: int) -> int:
    if x == 3:
        raise ValueError("task 3 fails")
    time.sleep(0.01)
    return x


def test_a_task_that_raises_fails_and_the_others_go_on(client: Any) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), TYPES, resolution=0.01) as ds:
        futures = [ds.submit(boom, x, task_type="a", deadline=30.0) for x in range(8)]
        assert ds.wait(timeout=60)
    with pytest.raises(ValueError, match="task 3 fails"):
        futures[3].result()
    assert [f.result() for i, f in enumerate(futures) if i != 3] == [0, 1, 2, 4, 5, 6, 7]
    df = ds.tasks()
    assert df.loc[3, "outcome"] == "failed" and df.loc[3, "reason"] == "ValueError"
    assert ds.counts()["failed"] == 1 and ds.counts()["on_time"] == 7
    with pytest.raises(ValueError, match="unknown task type"):
        DaskScheduler(client, dask_pool.make_pet(), TYPES).submit(boom, 1, task_type="c",
                                                                  deadline=1.0)
    with pytest.raises(ValueError, match="machine type"):
        DaskScheduler(client, dask_pool.make_pet(), {"0": "medium"})


def test_a_scheduler_that_knows_no_time_learns_from_its_first_tasks(client: Any) -> None:
    wait_idle(client)
    names = list(dask_pool.make_pet().type_names)
    pet = prunesim.Pet.unknown(names, ["fast", "slow"])
    with DaskScheduler(
        client, pet, TYPES, learn={"prior": "none"}, resolution=0.01
    ) as ds:
        futures = [ds.submit(boom, x, task_type=names[0], deadline=30.0) for x in (0, 1, 2, 4)]
        assert ds.wait(timeout=60)
        assert [f.result() for f in futures] == [0, 1, 2, 4]
        learned = ds.sched.pet
        ran = {int(w) for w in ds.tasks()["worker"]}
        # A worker that ran a task reads what it measured, and so does the other worker of
        # its kind (workers 0 and 1 are fast, 2 and 3 slow); a kind that ran nothing reads
        # one tick.
        for m in ran:
            assert learned.pmf(0, m).offset > 1
            assert learned.pmf(0, m) == learned.pmf(0, m ^ 1)
        for m in set(range(4)) - {x for r in ran for x in (r, r ^ 1)}:
            assert learned.pmf(0, m).offset == 1



@pytest.mark.parametrize(
    "fn, options, error, match",
    [
        (42, {"task_type": "a", "deadline": 1.0}, TypeError, "fn must be callable"),
        (boom, {"task_type": "a", "deadline": "1"}, TypeError, "deadline must be a number"),
        (boom, {"task_type": "a", "due": None}, ValueError, "give one of"),
        (boom, {"task_type": "a", "deadline": 1.0, "due": 2.0}, ValueError, "give one of"),
        (boom, {"task_type": "a", "deadline": True}, TypeError, "deadline must be a number"),
        (boom, {"task_type": True, "deadline": 1.0}, TypeError, "task_type must be"),
        (boom, {"task_type": 1.5, "deadline": 1.0}, TypeError, "task_type must be"),
        (boom, {"task_type": 2, "deadline": 1.0}, ValueError, "unknown task type 2"),
        (boom, {"task_type": "a", "deadline": float("nan")}, prunesim.SchedulerError, "finite"),
        (boom, {"task_type": "a", "due": float("inf")}, prunesim.SchedulerError,
         "due must be a finite"),
        (boom, {"task_type": "a", "deadline": -5}, prunesim.SchedulerError,
         "deadline -5 s from now is not after now"),
        (boom, {"task_type": "a", "deadline": 0.0}, prunesim.SchedulerError,
         "deadline 0.0 s from now is not after now"),
        (boom, {"task_type": "a", "due": time.time() - 10}, prunesim.SchedulerError,
         r"due \d+\.?\d* is not after now"),
        (boom, {"task_type": "a", "deadline": 1e308}, prunesim.SchedulerError,
         r"deadline 1e\+308 is beyond the scheduler's time range: a task is due at most "
         r"4\.5036e\+13 s from now \(2\^52 ticks of 0\.01 s"),
        (boom, {"task_type": "a", "due": 1e308}, prunesim.SchedulerError,
         "due 1e\\+308 is beyond the scheduler's time range"),
    ],
)
def test_a_bad_submission_is_refused_at_once_and_named(
    client: Any, fn: Any, options: Dict[str, Any], error: Any, match: str
) -> None:
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01) as ds:
        with pytest.raises(error, match=match):
            ds.submit(fn, 1, **options)
        assert ds.counts()["submitted"] == 0
        assert ds.submit(boom, 1, task_type=1, deadline=30.0).result(timeout=30) == 1


def nap(seconds: float, marks: str, tag: int) -> int:
    Path(marks, str(tag)).write_text(repr(time.time()))
    time.sleep(seconds)
    return tag


def test_an_interrupted_client_cancels_what_is_outstanding(client: Any, tmp_path: Path) -> None:
    wait_idle(client)
    marks = tmp_path / "marks"
    marks.mkdir()
    futures = []
    with pytest.raises(KeyboardInterrupt):
        with DaskScheduler(client, dask_pool.make_pet(), TYPES, resolution=0.01) as ds:
            for k in range(40):
                futures.append(ds.submit(nap, 0.3, str(marks), k, task_type="a", deadline=60.0))
            # (A task's process imports this module before its first task: about a second.)
            time.sleep(2.0)
            raise KeyboardInterrupt  # Ctrl-C
    closed = time.time()
    # Nothing of it runs on the workers, and nothing starts later.
    assert not any(executing(client).values())
    time.sleep(0.3)
    starts = {int(p.name): float(p.read_text()) for p in marks.iterdir()}
    assert starts and max(starts.values()) < closed
    assert len(starts) < len(futures)
    # Every task ended: the ones that had not run are cancelled.
    assert all(f.done() for f in futures)
    cancelled = [f for f in futures if f.cancelled()]
    assert len(cancelled) >= len(futures) - len(starts)
    counts = ds.counts()
    ended = counts["failed"] + counts["on_time"] + counts["late"] + sum(counts[d] for d in DROPS)
    assert ended == counts["submitted"] == len(futures)
    assert ds.tasks()["outcome"].notna().all()
    with pytest.raises(RuntimeError, match="closed"):
        ds.submit(nap, 0.1, str(marks), 99, task_type="a", deadline=1.0)


def test_a_worker_that_joins_takes_tasks(cluster: Any, client: Any) -> None:
    wait_idle(client)
    # Worker "4" (slow, where type b is quick) is mapped before it exists: it is down.
    types = {"0": "fast", "4": "slow"}
    with DaskScheduler(client, dask_pool.make_pet(), types, resolution=0.01) as ds:
        assert ds.down == ["4"]
        before = [ds.submit(time.sleep, 0.02, task_type="b", deadline=30.0) for _ in range(5)]
        assert ds.wait(timeout=60)
        cluster.scale(5)
        address(client, "4", timeout=60)
        limit = time.monotonic() + 10
        while ds.down and time.monotonic() < limit:
            time.sleep(0.05)
        assert ds.down == []
        after = [ds.submit(time.sleep, 0.02, task_type="b", deadline=30.0) for _ in range(5)]
        assert ds.wait(timeout=60)
    df = ds.tasks()
    assert set(df["worker"][: len(before)]) == {"0"}
    assert "4" in set(df["worker"][len(before):])
    assert all(f.exception() is None for f in before + after)
    cluster.scale(4)


def test_a_value_lost_with_its_worker_keeps_the_outcome_and_raises_worker_lost(
    client: Any,
) -> None:
    wait_idle(client)
    before = address(client, "2")
    with DaskScheduler(client, dask_pool.make_pet(), {"2": "slow"}, resolution=0.01) as ds:
        fetch, release = ds.backend._fetch_batch, threading.Event()

        def held(*args: Any) -> None:  # the value is fetched only once the worker is gone
            release.wait(60)
            fetch(*args)

        ds.backend._fetch_batch = held  # type: ignore[method-assign]
        f = ds.submit(time.sleep, 0.02, task_type="b", deadline=30.0)
        limit = time.monotonic() + 30
        while ds.tasks().loc[0, "outcome"] is None and time.monotonic() < limit:
            time.sleep(0.01)
        assert ds.tasks().loc[0, "outcome"] == "on_time"
        pid = client.run(os.getpid, workers=[before])[before]
        os.kill(pid, signal.SIGKILL)
        limit = time.monotonic() + 30  # the scheduler sees it leave (or come back anew)
        while "2" not in ds.down and ds._handles[0] == before and time.monotonic() < limit:
            time.sleep(0.02)
        release.set()
        with pytest.raises(WorkerLost, match="left before its value was fetched"):
            f.result(timeout=30)
    row = ds.tasks().loc[0]
    assert (row["outcome"], row["reason"]) == ("on_time", "WorkerLost")
    assert ds.counts()["on_time"] == 1 and ds.counts()["failed"] == 0
    address(client, "2")  # its nanny starts a new one: the cluster is whole again


def _refuse() -> None:
    raise ValueError("this value does not load on the client")


class Unloadable:
    """A value the worker pickles and the client cannot unpickle."""

    def __reduce__(self) -> Any:
        return (_refuse, ())


def unloadable() -> Unloadable:
    return Unloadable()


def test_a_value_that_does_not_load_keeps_the_outcome_and_raises_its_error(client: Any) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01) as ds:
        f = ds.submit(unloadable, task_type="a", deadline=30.0)
        with pytest.raises(ValueError, match="does not load"):
            f.result(timeout=30)
        assert ds.wait(timeout=30)
    row = ds.tasks().loc[0]
    assert (row["outcome"], row["reason"]) == ("on_time", "ValueError")
    assert ds.counts()["on_time"] == 1


def test_a_dropped_future_raises_task_dropped(client: Any) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), TYPES, resolution=0.01) as ds:
        # Due before any worker could run it: dropped, never sent.
        f = ds.submit(time.sleep, 0.01, task_type="a", deadline=0.001)
        with pytest.raises(TaskDropped):
            f.result(timeout=30)
    assert isinstance(f.exception(), concurrent.futures.CancelledError)
    assert ds.tasks().loc[0, "outcome"] == "dropped" and ds.tasks().loc[0, "started"] is None
    assert prunesim.dask.DaskScheduler is DaskScheduler
    _ = WorkerLost


def test_workers_are_mapped_by_their_resources(client: Any) -> None:
    info = {
        "tcp://a": {"name": "gpu-0", "resources": {"GPU": 1}},
        "tcp://b": {"name": "cpu-0", "resources": {"CPU": 4}},
        "tcp://c": {"name": "both", "resources": {"GPU": 1, "CPU": 1}},
        "tcp://d": {"name": "none", "resources": {}},
    }
    assert workers_by_resource(info, {"GPU": "fast", "CPU": "slow"}) == {
        "both": "fast", "cpu-0": "slow", "gpu-0": "fast"
    }
    with pytest.raises(ValueError, match="no worker has"):
        DaskScheduler.from_resources(client, dask_pool.make_pet(), {"GPU": "fast"})


def nap_then_mark(seconds: float, marks: str, tag: int) -> int:
    Path(marks, f"{tag}.start").write_text(repr(time.time()))
    time.sleep(seconds)
    Path(marks, f"{tag}.end").write_text(repr(time.time()))
    return tag


def test_under_drop_model_all_an_executing_task_is_stopped_at_its_deadline(
    client: Any, tmp_path: Path
) -> None:
    wait_idle(client)
    marks = tmp_path / "marks"
    marks.mkdir()
    with DaskScheduler(
        client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01, drop_model="all"
    ) as ds:
        # The worker's task process imports this module first (about a second).
        assert ds.submit(nap_then_mark, 0.0, str(marks), 1, task_type="a", deadline=30).result(
            30) == 1
        # The PET says 0.1 s; it runs 1 s: dropped while executing, at its deadline.
        f = ds.submit(nap_then_mark, 1.0, str(marks), 0, task_type="a", deadline=0.4)
        with pytest.raises(TaskDropped) as e:
            f.result(timeout=30)
        dropped = time.time()
        # The worker is fit: it serves the next task.
        assert ds.submit(nap_then_mark, 0.0, str(marks), 2, task_type="a", deadline=30).result(
            30) == 2
    assert e.value.reason == "expired_executing"
    row = ds.tasks().iloc[1]
    assert row["outcome"] == "dropped" and row["started"] is not None
    assert float((marks / "0.start").read_text()) <= row["dropped_at"] <= dropped
    # Its process was killed: it never reached its end.
    time.sleep(1.2)
    assert not (marks / "0.end").exists()
    assert not any(executing(client).values())
    assert ds.counts()["expired_executing"] == 1


def forever() -> None:
    while True:
        time.sleep(0.05)


def test_a_task_that_never_returns_is_stopped_and_close_returns(client: Any) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01,
                       grace=0.5) as ds:
        stuck = ds.submit(forever, task_type="a", deadline=1.0)
        after = ds.submit(time.sleep, 0.01, task_type="a", deadline=60.0)
        with pytest.raises(TaskDropped) as e:
            stuck.result(timeout=30)
        assert e.value.reason == "overran"
        assert after.result(timeout=30) is None
    assert ds.counts()["overran"] == 1
    # Under thread isolation nothing can stop it, but close returns within its timeout.
    ds = DaskScheduler(client, dask_pool.make_pet(), {"1": "fast"}, resolution=0.01,
                       isolation="thread")
    stuck = ds.submit(time.sleep, 3.0, task_type="a", deadline=60.0)
    time.sleep(0.5)
    t0 = time.monotonic()
    ds.close(timeout=1.0)
    assert time.monotonic() - t0 < 4.0 and stuck.done()
    wait_idle(client)


def test_what_does_not_pickle_fails_at_submit_or_alone(client: Any) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01) as ds:
        with pytest.raises(TypeError, match="cannot be serialised"):
            ds.submit(len, threading.Lock(), task_type="a", deadline=30.0)
        assert ds.submit(len, "abc", task_type="a", deadline=30.0).result(timeout=30) == 3
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01,
                       isolation="thread") as ds:
        bad = ds.submit(len, threading.Lock(), task_type="a", deadline=30.0)
        with pytest.raises(Exception):
            bad.result(timeout=30)
        # The driver goes on: later tasks run.
        assert ds.submit(len, "abcd", task_type="a", deadline=30.0).result(timeout=30) == 4
    assert ds.tasks().loc[0, "outcome"] == "failed"


def test_retries_and_the_dashboard_keys_by_task_type(client: Any, tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "python" / "tests"))
    from test_executor import fails_once

    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01) as ds:
        f = ds.submit(fails_once, str(tmp_path / "m"), task_type="b", deadline=30.0, retries=1)
        assert f.result(timeout=30) == "second attempt"
        prefixes = client.run_on_scheduler(
            lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert "b" in prefixes
    assert list(ds.tasks()["reason"]) == ["retried", "on_time"]


def test_the_tasks_queued_on_a_killed_worker_are_placed_again(client: Any) -> None:
    wait_idle(client)
    address(client, "3")
    with DaskScheduler(client, dask_pool.make_pet(), {"2": "slow", "3": "slow"},
                       resolution=0.01, heuristic="MM", queue_size=4) as ds:
        futures = [ds.submit(time.sleep, 0.4, task_type="b", deadline=60.0) for _ in range(8)]
        limit = time.monotonic() + 30
        while not ds.tasks()["started"].notna().sum() >= 2 and time.monotonic() < limit:
            time.sleep(0.01)
        on_three = ds.tasks().query("worker == '3' and started != started")
        assert len(on_three) >= 1, ds.tasks()  # queued behind the one it runs
        addr = address(client, "3")
        os.kill(client.run(os.getpid, workers=[addr])[addr], signal.SIGKILL)
        outcomes = []
        for f in futures:
            try:
                outcomes.append(f.result(timeout=60))
            except WorkerLost:
                outcomes.append("lost")
    df = ds.tasks()
    assert outcomes.count("lost") <= 1, df  # only the one it ran
    again = df[df["placed_again"] > 0]
    # (Rows stay in submission order; a task placed again has a new id of the scheduler.)
    assert set(again.index) >= set(on_three.index) - set(df[df.reason == "WorkerLost"].index)
    assert len(again) >= 1 and (again["outcome"] == "on_time").all(), again
    counts = ds.counts()
    assert counts["submitted"] == 8 and counts["on_time"] == outcomes.count(None)
    address(client, "3")  # its nanny starts a new one


def test_a_worker_no_one_named_that_joins_takes_a_spare(cluster: Any, client: Any) -> None:
    wait_idle(client)
    before = set(client.scheduler_info()["workers"])
    with DaskScheduler(client, dask_pool.make_pet(), {"0": "fast"}, resolution=0.01,
                       spares={"slow": 2},
                       kind_of=lambda info: None if info["address"] in before else "slow") as ds:
        assert ds.down == [] and "prunesim_workers{state=\"spare\"} 2" in ds.metrics()
        first = [ds.submit(time.sleep, 0.02, task_type="b", deadline=30.0) for _ in range(3)]
        assert ds.wait(timeout=60)
        cluster.scale(len(before) + 1)  # as cluster.adapt or dask-jobqueue would
        limit = time.monotonic() + 60
        while 'state="spare"} 2' in ds.metrics() and time.monotonic() < limit:
            time.sleep(0.05)
        joined = [w for w in ds.worker_names if not w.startswith("(spare")]
        assert len(joined) == 2, ds.worker_names  # "0" and the one that joined
        later = [ds.submit(time.sleep, 0.02, task_type="b", deadline=30.0) for _ in range(6)]
        assert ds.wait(timeout=60)
    df = ds.tasks()
    assert set(df["worker"][: len(first)]) == {"0"}
    assert set(df["worker"][len(first):]) - {"0"}, df  # b is quick on the joiner (slow)
    assert all(f.exception() is None for f in first + later)
    cluster.scale(len(before))
    limit = time.monotonic() + 60
    while len(client.scheduler_info()["workers"]) > len(before) and time.monotonic() < limit:
        time.sleep(0.1)


def test_values_stay_on_the_workers_until_asked_and_gather_fetches_them_at_once(
    client: Any,
) -> None:
    wait_idle(client)
    with DaskScheduler(client, dask_pool.make_pet(), TYPES, resolution=0.01) as ds:
        futures = ds.map(pow, range(8), [2] * 8, task_type="a", deadline=30.0)
        concurrent.futures.wait(futures, timeout=30)
        assert all(f.pending() is not None for f in futures)  # done, value not fetched
        assert ds.gather(futures, timeout=30) == [x * x for x in range(8)]
        assert all(f.pending() is None for f in futures)
        assert [f.result() for f in futures] == [x * x for x in range(8)]
    assert ds.tasks()["run_seconds"].notna().all()  # measured on the workers, fetched


def test_a_stop_reaches_a_worker_that_never_ran_a_task_of_the_executor(client: Any) -> None:
    """A worker just (re)started holds no task slots of the executor yet; a stop sent there
    is kept for the task it names rather than lost (it would start late, unstopped)."""
    from prunesim._dask_worker import _close_slots, _stop_keys

    answers = client.run(_stop_keys, "fresh-tag", ["a-fresh-tag-1"], "dropped")
    assert set(answers.values()) == {0}, answers
    client.run(_close_slots, "fresh-tag")
