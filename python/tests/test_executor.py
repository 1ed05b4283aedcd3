"""The dispatcher core (prunesim.executor) on this host's processes: every future resolves,
tasks that overrun or are dropped are stopped and their worker serves the next, what cannot
be serialised is refused at submit, a failing driver fails every future, close returns."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

import prunesim
from prunesim.executor import (
    Backend,
    Backlogged,
    Executor,
    ExecutorError,
    Run,
    TaskDropped,
    commit_depth,
    current_worker,
    local_executor,
)

RESOLUTION = 0.01


def pet(seconds: float = 0.05) -> prunesim.Pet:
    """Two task types, one machine type: both believed to run ``seconds``."""
    tick = max(1, round(seconds / RESOLUTION))
    cell = prunesim.Pmf.point(tick)
    return prunesim.Pet([[cell], [cell]], type_names=["a", "b"], machine_names=["m"])


def square(x: int) -> int:
    return x * x


def forever() -> None:
    while True:
        time.sleep(0.05)


def where() -> Optional[str]:
    return current_worker()


def fails_once(mark: str) -> str:
    path = Path(mark)
    if not path.exists():
        path.write_text("once")
        raise RuntimeError("the first attempt fails")
    return "second attempt"


def test_values_and_errors_come_back_and_map_keeps_order() -> None:
    with local_executor(pet(), {"w0": "m", "w1": "m"}, resolution=RESOLUTION) as ex:
        futures = ex.map(square, range(6), task_type="a", deadline=30.0)
        assert [f.result(timeout=30) for f in futures] == [x * x for x in range(6)]
        bad = ex.submit(square, "x", task_type="b", deadline=30.0)
        with pytest.raises(TypeError):
            bad.result(timeout=30)
        assert ex.submit(where, task_type="a", deadline=30.0).result(timeout=30) in ("w0", "w1")
        assert ex.wait(timeout=30)
    df = ex.tasks()
    assert set(df["outcome"]) == {"on_time", "failed"}
    assert df.loc[df["task"] == bad.task, "reason"].item() == "TypeError"  # type: ignore[attr-defined]
    assert (df["run_seconds"].dropna() >= 0).all()


def test_what_cannot_be_serialised_is_refused_at_submit() -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION) as ex:
        with pytest.raises(TypeError, match="cannot be serialised") as e:
            ex.submit(square, threading.Lock(), task_type="a", deadline=30.0)
        assert e.value.__cause__ is not None
        assert ex.counts()["submitted"] == 0
        assert ex.submit(square, 3, task_type="a", deadline=30.0).result(timeout=30) == 9


def test_a_task_that_never_returns_is_stopped_after_its_grace_and_its_worker_goes_on() -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION, grace=0.3) as ex:
        stuck = ex.submit(forever, task_type="a", deadline=0.5)
        after = ex.submit(square, 4, task_type="b", deadline=30.0)
        t0 = time.monotonic()
        with pytest.raises(TaskDropped) as e:
            stuck.result(timeout=30)
        assert e.value.reason == "overran"
        assert 0.7 <= time.monotonic() - t0 < 10
        assert after.result(timeout=30) == 16
    row = ex.tasks().set_index("task").loc[stuck.task]  # type: ignore[attr-defined]
    assert (row["outcome"], row["reason"]) == ("dropped", "overran")
    assert ex.counts()["overran"] == 1 and ex.counts()["failed"] == 0
    assert ex.summary()["n_overran"] == 1


def test_under_drop_model_all_a_running_task_is_killed_at_its_deadline() -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION, drop_model="all") as ex:
        stuck = ex.submit(forever, task_type="a", deadline=0.4)
        with pytest.raises(TaskDropped) as e:
            stuck.result(timeout=30)
        assert e.value.reason == "expired_executing"
        # The worker is fit: its next task runs (in a fresh process).
        assert ex.submit(square, 5, task_type="a", deadline=30.0).result(timeout=30) == 25
    assert ex.backend.running() == 0


def test_close_returns_within_its_timeout_and_resolves_every_future() -> None:
    ex = local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION, grace=None)
    running = ex.submit(forever, task_type="a", deadline=60.0)
    waiting = [ex.submit(square, i, task_type="b", deadline=60.0) for i in range(5)]
    time.sleep(0.3)
    t0 = time.monotonic()
    ex.close(cancel=False, timeout=1.0)
    assert time.monotonic() - t0 < 5.0
    for f in [running, *waiting]:
        assert f.done()
    assert running.cancelled() or isinstance(running.exception(), BaseException)


def test_retries_submit_a_failed_task_again_with_the_same_future(tmp_path: Path) -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION) as ex:
        f = ex.submit(fails_once, str(tmp_path / "mark"), task_type="a", deadline=30.0,
                      retries=2)
        assert f.result(timeout=30) == "second attempt"
        g = ex.submit(fails_once, str(tmp_path / "mark2"), task_type="a", deadline=30.0)
        with pytest.raises(RuntimeError, match="first attempt"):
            g.result(timeout=30)
    df = ex.tasks()
    assert list(df["reason"]) == ["retried", "on_time", "RuntimeError"]
    assert list(df["attempt"]) == [0, 1, 0]
    assert ex.summary()["counted"] == 2
    assert ex.stats()["tasks"].sum() == 2 and ex.stats()["on_time"].sum() == 1


class Silent(Backend):
    """A backend whose tasks never end, and that can be told to fail launching."""

    def __init__(self) -> None:
        self.launched: List[Run] = []
        self.stopped: List[Run] = []
        self.refuse = False

    def present(self) -> Dict[str, Any]:
        return {"w0": "here", "w1": "there"}

    def launch(self, run: Run) -> None:
        if self.refuse:
            raise OSError("the connection to the worker is gone")
        self.launched.append(run)

    def stop(self, runs: Sequence[Run], why: str) -> None:
        self.stopped += runs


def test_a_task_the_backend_cannot_send_fails_alone() -> None:
    backend = Silent()
    backend.refuse = True
    ex = Executor(backend, pet(), {"w0": "m", "w1": "m"}, resolution=RESOLUTION)
    try:
        f = ex.submit(square, 1, task_type="a", deadline=30.0)
        with pytest.raises(ExecutorError, match="could not be sent") as e:
            f.result(timeout=30)
        assert isinstance(e.value.__cause__, OSError)
        backend.refuse = False
        g = ex.submit(square, 2, task_type="a", deadline=30.0)
        limit = time.monotonic() + 30
        while not backend.launched and time.monotonic() < limit:
            time.sleep(0.01)
        assert backend.launched and not g.done()
    finally:
        ex.close()  # cancels what never ends
    assert g.cancelled() and backend.stopped == backend.launched


def test_a_driver_that_fails_fails_every_open_future_and_says_why() -> None:
    backend = Silent()
    ex = Executor(backend, pet(), {"w0": "m", "w1": "m"}, resolution=RESOLUTION)
    futures = [ex.submit(square, i, task_type="a", deadline=30.0) for i in range(6)]
    limit = time.monotonic() + 30
    while len(backend.launched) < 2 and time.monotonic() < limit:
        time.sleep(0.01)

    def broken(now: float) -> List[Any]:
        raise RuntimeError("a bug in the scheduler")

    ex.sched.decide = broken  # type: ignore[method-assign]
    ex._wake.set()
    for f in futures:
        with pytest.raises(ExecutorError, match="driver stopped") as e:
            f.result(timeout=30)
        assert "a bug in the scheduler" in str(e.value.__cause__)
    with pytest.raises(ExecutorError, match="a bug in the scheduler"):
        ex.submit(square, 1, task_type="a", deadline=30.0)
    t0 = time.monotonic()
    ex.close(timeout=2.0)
    assert time.monotonic() - t0 < 5.0
    assert {r.task for r in backend.stopped} == {r.task for r in backend.launched}


def test_the_backlog_is_bounded() -> None:
    ex = Executor(Silent(), pet(), {"w0": "m"}, resolution=RESOLUTION, backlog=3)
    for i in range(3):
        ex.submit(square, i, task_type="a", deadline=30.0)
    with pytest.raises(Backlogged, match="3 tasks are open"):
        ex.submit(square, 3, task_type="a", deadline=30.0)
    assert isinstance(Backlogged("x"), prunesim.SchedulerError)
    ex.close()
    with pytest.raises(ValueError, match="backlog"):
        Executor(Silent(), pet(), {"w0": "m"}, backlog=0)
    with pytest.raises(ValueError, match="grace"):
        Executor(Silent(), pet(), {"w0": "m"}, grace=-1)


def test_metrics_are_prometheus_text() -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION) as ex:
        ex.submit(square, 2, task_type="a", deadline=30.0).result(timeout=30)
        ex.submit(square, 2, task_type="b", deadline=0.001)
        assert ex.wait(timeout=30)
        text = ex.metrics()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    values = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in lines}
    assert values['prunesim_tasks_total{outcome="on_time",task_type="a"}'] == 1
    assert values['prunesim_tasks_total{outcome="dropped",task_type="b"}'] == 1
    assert values['prunesim_open_tasks{state="waiting"}'] == 0
    assert values['prunesim_workers{state="up"}'] == 1
    assert values["prunesim_decide_seconds_total"] > 0
    for line in text.splitlines():
        if line.startswith("# TYPE"):
            assert line.split()[3] in ("counter", "gauge")


def test_metrics_are_served_for_a_scraper_until_close() -> None:
    import urllib.error
    import urllib.request

    ex = local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION)
    host, port = ex.serve_metrics()
    ex.submit(square, 3, task_type="a", deadline=30.0).result(timeout=30)
    assert ex.wait(timeout=30)
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        assert 'prunesim_tasks_total{outcome="on_time",task_type="a"} 1' in r.read().decode()
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(f"http://{host}:{port}/", timeout=10)
    ex.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=2)


def test_futures_are_concurrent_futures() -> None:
    with local_executor(pet(), {"w0": "m"}, resolution=RESOLUTION) as ex:
        futures = [ex.submit(square, i, task_type="a", deadline=30.0) for i in range(4)]
        done = {f.result() for f in concurrent.futures.as_completed(futures, timeout=30)}
    assert done == {0, 1, 4, 9}


def test_auto_commits_deep_enough_to_cover_the_dispatch() -> None:
    # 10 ms tasks (10 ticks of 1 ms) behind a 30 ms dispatch: 3 queued behind the one running.
    short = prunesim.Pet([[prunesim.Pmf.point(10)]], type_names=["t"], machine_names=["m"])
    assert commit_depth("auto", short, 0.001, 6, 0.03) == {"name": "auto", "depth": 4}
    assert commit_depth({"name": "lookahead"}, short, 0.001, 6, 0.03) == {
        "name": "lookahead", "depth": 4}
    assert commit_depth("auto", short, 0.001, 3, 0.03) == {"name": "auto", "depth": 3}
    # Tasks longer than the dispatch keep auto's own depth; a depth given, another
    # heuristic, no latency or no time known leave the heuristic as it is.
    assert commit_depth("auto", short, 0.01, 6, 0.03) == "auto"
    assert commit_depth({"name": "auto", "depth": 2}, short, 0.001, 6, 0.03) == {
        "name": "auto", "depth": 2}
    assert commit_depth("PAM", short, 0.001, 6, 0.03) == "PAM"
    assert commit_depth("auto", short, 0.001, 6, 0.0) == "auto"
    unknown = prunesim.Pet.unknown(["t"], ["m"])
    assert commit_depth("auto", unknown, 0.001, 6, 0.03) == "auto"
