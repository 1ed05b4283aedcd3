"""Hostile inputs from Python raise exceptions, never crash the interpreter or poison an
object; Ctrl-C stops a run (docs/reliability.md)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Dict

import pytest

import prunesim
from conftest import SMALL_DICT


def nested(depth: int) -> Dict[str, Any]:
    d: Dict[str, Any] = {}
    for _ in range(depth):
        d = {"a": d}
    return d


def cyclic() -> Dict[str, Any]:
    d: Dict[str, Any] = {"name": "x"}
    d["workload"] = d
    return d


@pytest.mark.parametrize("bad", [cyclic, lambda: nested(5_000), lambda: {"x": [[[]] * 2] * 2 + [nested(40)]}])
def test_a_cyclic_or_deeply_nested_dict_is_a_config_error(bad: Any) -> None:
    pet = prunesim.Pet.default(1)
    with pytest.raises(prunesim.ConfigError, match="cycle|nested deeper"):
        prunesim.run(bad(), trials=1)
    with pytest.raises(prunesim.ConfigError, match="cycle|nested deeper"):
        prunesim.Scheduler(pet, heuristic=bad())
    with pytest.raises(prunesim.ConfigError, match="cycle|nested deeper"):
        prunesim.Scheduler(pet, pruner=bad())
    with pytest.raises(prunesim.ConfigError, match="cycle|nested deeper"):
        prunesim.Estimator(pet, window=bad())
    # A list that contains itself, too.
    loop: list = []
    loop.append(loop)
    with pytest.raises(prunesim.ConfigError, match="cycle"):
        prunesim.run({"workload": {"rate": loop}}, trials=1)
    # The same dict twice (not a cycle) is fine.
    shared = {"rate": 34000, "seed": 11, "tasks": 300, "trials": 1}
    ok = dict(SMALL_DICT, workload=shared)
    assert prunesim.run(ok, trials=1, bound=False).summary["trials"] == 1


def test_ctrl_c_stops_a_run_within_a_second() -> None:
    config = dict(SMALL_DICT, workload=dict(SMALL_DICT["workload"], tasks=2000))
    main = threading.get_ident()
    assert main == threading.main_thread().ident
    # A process started in the background by a shell without job control ignores SIGINT
    # from its start, and Python then leaves it ignored: Ctrl-C's handler is set for the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            prunesim.run(config, trials=10_000, jobs=1)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    took = time.monotonic() - started
    assert took < 2.5, f"KeyboardInterrupt after {took:.1f} s"


def test_estimator_indices_are_checked_and_it_stays_usable() -> None:
    pet = prunesim.Pet.default(1)
    e = prunesim.Estimator(pet)
    with pytest.raises(IndexError):
        e.observations(99, 99)
    with pytest.raises(IndexError):
        e.pmf(12, 0)
    with pytest.raises(IndexError):
        e.observe(99, 0, 5.0)
    e.observe(3, 2, 7.0)
    assert e.observations(3, 2) == 1


@pytest.mark.parametrize("bad", [-1, -(2**70), 2**64, 2**70])
def test_an_index_out_of_range_is_an_index_error_naming_the_argument_and_the_range(
    bad: int,
) -> None:
    pet = prunesim.Pet.default(1)  # 12 task types x 8 machines
    e = prunesim.Estimator(pet)
    s = prunesim.Scheduler(pet)
    p = prunesim.Pmf.point(3)
    types = rf"task_type {bad} out of range: the \w+ has 12 task types, indexed 0 to 11"
    machines = rf"machine {bad} out of range: the \w+ has 8 machines, indexed 0 to 7"
    for call, match in [
        (lambda: e.observations(bad, 0), types),
        (lambda: e.observations(0, bad), machines),
        (lambda: e.pmf(bad, 0), types),
        (lambda: e.observe(bad, 0, 5.0), types),
        (lambda: e.observe(0, bad, 5.0), machines),
        (lambda: pet.pmf(bad, 0), types),
        (lambda: pet.pmf(0, bad), machines),
        (lambda: pet.with_pmf(bad, 0, p), types),
        (lambda: pet.with_pmf(0, bad, p), machines),
        (lambda: s.submit(0.0, bad, 10.0), types),
        (lambda: s.queue(bad), machines),
    ]:
        with pytest.raises(IndexError, match=match):
            call()
    # Nothing changed, and everything stays usable.
    assert s.tasks == 0 and e.observations(0, 0) == 0
    assert s.submit(0.0, 11, 10.0) == 0 and s.queue(7) == []
    assert e.observe(11, 7, 5.0).mean() > 0


@pytest.mark.parametrize("t", [-5, 2**52 + 1, 2**62, -(2**62)])
def test_a_point_pmf_is_validated_as_the_constructor(t: int) -> None:
    with pytest.raises(prunesim.ConfigError):
        prunesim.Pmf([1.0], offset=t)
    with pytest.raises(prunesim.ConfigError):
        prunesim.Pmf.point(t)
    assert prunesim.Pmf.point(2**52).max == 2**52
    assert prunesim.Pmf.point(0).mean() == 0.0


def test_a_belief_or_drift_too_large_to_build_is_a_config_error() -> None:
    samples = dict(SMALL_DICT, belief={"source": "fixed", "prior": "samples", "samples": 10**9})
    with pytest.raises(prunesim.ConfigError, match="belief.samples"):
        prunesim.run(samples, trials=1)
    drift = dict(SMALL_DICT, drift=[{"at_task": i, "scale": 2.0} for i in range(20)])
    with pytest.raises(prunesim.PrunesimError, match="drift"):
        prunesim.run(drift, trials=1)
