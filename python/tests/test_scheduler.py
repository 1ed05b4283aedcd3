"""prunesim.Scheduler mirrors live::Scheduler; prunesim.Estimator is learn::Estimator."""

from __future__ import annotations

import pytest

import prunesim


def test_an_idle_system_starts_one_task_on_each_machine() -> None:
    s = prunesim.Scheduler(prunesim.Pet.default(1))
    for k in range(20):
        s.submit(0.0, k % 12, 10_000.0)
    actions = s.decide(0.0)
    starts = [a for a in actions if a.kind == "start"]
    assert len(starts) == 8
    assert sorted(a.machine for a in starts) == list(range(8))
    # Actions are named tuples: objects and plain tuples alike.
    kind, task, machine, executing, reason = starts[0]
    assert (kind, task, machine) == (starts[0].kind, starts[0].task, starts[0].machine)
    assert isinstance(starts[0], tuple) and not executing and reason is None
    assert s.tasks == 20 and s.machines == 8


def test_a_task_runs_to_its_end_and_misuse_raises() -> None:
    s = prunesim.Scheduler(prunesim.Pet.default(1))
    a = s.submit(0.0, 3, 60.0)
    start = next(x for x in s.decide(0.0) if x.kind == "start")
    assert start.task == a
    assert s.queue(start.machine) == [a]
    s.started(a, 0.1)
    s.completed(a, 12.5)
    assert s.fate(a) == "reported"
    s.decide(12.5)
    assert s.fate(a) == "on_time"
    with pytest.raises(prunesim.SchedulerError, match="already ended|not started"):
        s.completed(a, 13.0)
    with pytest.raises(prunesim.SchedulerError, match="backwards"):
        s.decide(1.0)
    with pytest.raises(prunesim.SchedulerError, match="unknown task"):
        s.fate(99)
    with pytest.raises(IndexError, match="task_type 12"):
        s.submit(20.0, 12, 30.0)
    with pytest.raises(IndexError):
        s.queue(8)


@pytest.mark.parametrize(
    "now, deadline, match",
    [
        (10.0, 10.0, r"deadline 10 s is not after the task's arrival at 10 s"),
        (10.0, -5.0, r"deadline -5 s is not after the task's arrival at 10 s"),
        (10.0, 1e308, r"deadline 1e308 s is outside the scheduler's time range, "
         r"-4503599627370496 s to 4503599627370496 s \(2\^52 ticks"),
        (10.0, float("nan"), "deadline must be a finite number"),
        (-1e300, 1.0, "now -1e300 s is outside the scheduler's time range"),
    ],
)
def test_a_deadline_not_after_its_arrival_or_beyond_the_time_range_is_refused(
    now: float, deadline: float, match: str
) -> None:
    s = prunesim.Scheduler(prunesim.Pet.default(1), resolution=1.0)
    with pytest.raises(prunesim.SchedulerError, match=match):
        s.submit(now, 0, deadline)
    assert s.tasks == 0 and s.decide(10.0) == []
    assert s.submit(10.0, 0, 10.5) == 0 and s.submit(10.0, 0, 2.0**52) == 1


def test_deadlines_drop_executing_tasks_at_the_next_wakeup() -> None:
    s = prunesim.Scheduler(prunesim.Pet.default(1), heuristic="MM", drop_model="all")
    t = s.submit(0.0, 0, 5.0)
    assert any(a.kind == "start" for a in s.decide(0.0))
    s.started(t, 0.0)
    assert s.next_wakeup() == pytest.approx(5.0)
    drops = [a for a in s.decide(5.0) if a.kind == "drop"]
    assert drops == [prunesim.Action("drop", t, drops[0].machine, True, "expired_executing")]
    assert s.fate(t) == "expired_executing"
    assert s.next_wakeup() is None
    assert s.close(6.0) == []


def test_configurations_are_the_experiment_tables() -> None:
    pet = prunesim.Pet.default(1)
    prunesim.Scheduler(pet, heuristic={"name": "PAM"}, pruner={"drop_threshold": 0.3})
    prunesim.Scheduler(pet, heuristic="MM-D", queue_size=3, resolution=0.01)
    with pytest.raises(prunesim.ConfigError, match="NOPE"):
        prunesim.Scheduler(pet, heuristic="NOPE")
    with pytest.raises(prunesim.ConfigError, match="drop_treshold"):
        prunesim.Scheduler(pet, pruner={"drop_treshold": 0.3})
    with pytest.raises(prunesim.ConfigError, match="drop_model"):
        prunesim.Scheduler(pet, drop_model="sometimes")
    with pytest.raises(prunesim.ConfigError, match="queue_size"):
        prunesim.Scheduler(pet, queue_size=0)


def test_samples_feed_the_estimator_whose_pet_goes_back() -> None:
    pet = prunesim.Pet.default(1)
    s = prunesim.Scheduler(pet)
    s.record_samples(True)
    t = s.submit(0.0, 2, 1000.0)
    start = next(a for a in s.decide(0.0) if a.kind == "start")
    s.started(t, 0.0)
    s.completed(t, 40.0)
    s.decide(40.0)
    samples = s.drain_samples()
    assert samples == [prunesim.Sample(2, start.machine, 40.0, False)]
    assert s.drain_samples() == []

    e = prunesim.Estimator(pet, prior_weight=0.0)
    for x in samples:
        current = e.observe(x.task_type, x.machine, x.seconds / s.resolution, x.censored)
    # With no weight on the prior, one completion is all there is.
    assert current == prunesim.Pmf.point(40)
    assert e.pmf(2, start.machine) == current
    assert e.observations(2, start.machine) == 1
    s.set_pet(e.pet(pet))
    assert s.pet.pmf(2, start.machine) == current
    with pytest.raises(prunesim.ConfigError):
        prunesim.Estimator(pet, window=0)
    with pytest.raises(prunesim.ConfigError, match="wndow"):
        prunesim.Estimator(pet, wndow=3)


def test_a_censored_time_moves_mass_beyond_it() -> None:
    pet = prunesim.Pet.default(1)
    e = prunesim.Estimator(pet, prior_weight=1.0)
    prior = pet.pmf(0, 0)
    after = e.observe(0, 0, float(prior.quantile(0.5)), censored=True)
    assert after.mean() > prior.mean()


def test_the_scheduler_learns_its_pet_from_the_completions_it_is_told_about() -> None:
    s = prunesim.Scheduler(prunesim.Pet.default(1), heuristic="MM", drop_model="none")
    assert not s.learning
    with pytest.raises(prunesim.ConfigError, match="refresh_every"):
        s.learn_online(refresh_every=0)
    s.learn_online(refresh_every=1, prior_weight=0.0)
    assert s.learning
    t = s.submit(0.0, 0, 1_000.0)
    start = next(a for a in s.decide(0.0) if a.kind == "start")
    s.started(t, 0.0)
    s.completed(t, 7.0)
    s.decide(7.0)
    # With no weight on the prior, the one completion is the cell's whole PMF.
    learned = s.pet.pmf(0, start.machine)
    assert learned.offset == 7 and list(learned.masses) == [1.0]
    s.stop_learning()
    assert not s.learning


def test_a_scheduler_given_no_times_learns_from_its_first_executions() -> None:
    pet = prunesim.Pet.default(1)
    s = prunesim.Scheduler(pet, heuristic="MM", drop_model="none")
    with pytest.raises(prunesim.ConfigError, match="prior"):
        s.learn_online(prior="guess")
    with pytest.raises(prunesim.ConfigError, match="machine_types"):
        s.learn_online(prior="none", machine_types=["cpu"])
    kinds = ["cpu", "cpu", "gpu", "gpu", "arm", "arm", "fpga", "fpga"]
    s.learn_online(prior="none", machine_types=kinds)
    # The PET's times are forgotten: every cell one tick until observed.
    assert all(
        s.pet.pmf(i, m).offset == 1 and list(s.pet.pmf(i, m).masses) == [1.0]
        for i in range(pet.task_types)
        for m in range(pet.machines)
    )
    t = s.submit(0.0, 0, 1_000.0)
    start = next(a for a in s.decide(0.0) if a.kind == "start")
    s.started(t, 0.0)
    s.completed(t, 9.0)
    s.decide(9.0)
    # Its one observation, on the machine and the other of its kind.
    other = start.machine ^ 1
    for m in (start.machine, other):
        learned = s.pet.pmf(0, m)
        assert learned.offset == 9 and list(learned.masses) == [1.0]
