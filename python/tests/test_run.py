"""prunesim.run: the sources of an experiment, its results, traces, errors, determinism."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

import prunesim
from conftest import SMALL, SMALL_DICT, cli


def test_a_run_has_the_summary_the_bound_and_every_trial() -> None:
    r = prunesim.run(SMALL)
    s = r.summary
    assert 0.0 <= s["robustness_mean"] <= 100.0
    assert r.robustness_mean == s["robustness_mean"]
    assert s["trials"] == 2
    assert s["optimum"]["lower"] <= s["optimum"]["upper"]
    for name in ("robustness", "optimum_upper", "optimum_lower", "on_time", "mapping_events"):
        assert name in s["metrics"], name
        assert name in r.trials, name
    assert s["metrics"]["robustness"]["mean"] == s["robustness_mean"]
    assert r.trials["trial"] == [0, 1]
    assert r.trials.rows == 2
    assert r.tasks is None and r.events is None


def test_a_file_a_string_a_dict_and_a_path_object_run_the_same(small_file: Path) -> None:
    results = [
        prunesim.run(SMALL, bound=False),
        prunesim.run(SMALL_DICT, bound=False),
        prunesim.run(str(small_file), bound=False),
        prunesim.run(small_file, bound=False),
    ]
    first = results[0].summary
    for r in results[1:]:
        assert r.summary == first
    assert "optimum" not in first and "optimum_upper" not in first["metrics"]


def test_trials_seed_and_jobs_are_the_command_lines() -> None:
    a = prunesim.run(SMALL, trials=3, jobs=1, bound=False, seed=5)
    b = prunesim.run(SMALL, trials=3, jobs=2, bound=False, seed=5)
    c = prunesim.run(SMALL, trials=3, jobs=2, bound=False, seed=6)
    assert a.summary == b.summary and a.trials == b.trials
    assert a.summary["seed"] == 5 and a.summary["trials"] == 3
    assert c.trials["robustness"] != a.trials["robustness"]


def test_a_traced_run_keeps_every_task_and_event_and_the_same_results() -> None:
    plain = prunesim.run(SMALL, bound=False)
    r = prunesim.run(SMALL, bound=False, trace=True)
    assert r.summary == plain.summary
    assert r.tasks is not None and r.events is not None
    assert r.tasks.rows == 2 * 300
    assert set(r.tasks["trial"]) == {0, 1}
    assert {"task", "task_type", "arrival", "deadline", "machine", "start", "end", "outcome",
            "ended_by"} <= set(r.tasks)
    # The counted tasks on time are the measure's on_time, trial by trial.
    for k in (0, 1):
        on_time = sum(
            1
            for t, o, c in zip(r.tasks["trial"], r.tasks["outcome"], r.tasks["counted"])
            if t == k and o == "on_time" and c
        )
        assert on_time == r.trials["on_time"][k]
    assert r.events.rows == sum(r.trials["mapping_events"])


def test_columns_become_a_data_frame() -> None:
    pandas = pytest.importorskip("pandas")
    r = prunesim.run(SMALL, bound=False, trace=True)
    assert r.tasks is not None
    df = r.tasks.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == 600
    assert list(r.trials.to_pandas()["trial"]) == [0, 1]


def test_errors_carry_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[workload]\nrate = 34000\nrte = 5\n')
    with pytest.raises(prunesim.ConfigError) as e:
        prunesim.run(bad)
    assert f"{bad}:3:" in str(e.value) and "rte" in str(e.value)
    with pytest.raises(prunesim.ConfigError, match=r"<string>:2: .*nme"):
        prunesim.run('[mapper]\nnme = "PAM"\n')
    with pytest.raises(prunesim.ConfigError, match="<dict>"):
        prunesim.run({"mapper": {"name": "NOPE"}})
    with pytest.raises(prunesim.PrunesimError, match="missing.toml"):
        prunesim.run(tmp_path / "missing.toml")


def test_seed_fills_a_file_without_one(tmp_path: Path) -> None:
    unseeded = tmp_path / "unseeded.toml"
    unseeded.write_text("[workload]\nrate = 34000\ntasks = 300\n[mapper]\nname = \"PAM\"\n")
    with pytest.raises(prunesim.ConfigError, match=r"unseeded.toml:1: \[workload\] seed is missing"):
        prunesim.run(unseeded, trials=1, bound=False)
    filled = prunesim.run(unseeded, trials=1, seed=3, bound=False)
    in_text = prunesim.run("[workload]\nrate = 34000\ntasks = 300\nseed = 3\n[mapper]\nname = \"PAM\"\n", trials=1, bound=False)
    assert filled.robustness_mean == in_text.robustness_mean
    assert prunesim.run("[workload]\nrate = 34000\ntasks = 300\n[mapper]\nname = \"PAM\"\n", trials=1, seed=3, bound=False).robustness_mean == in_text.robustness_mean
    with pytest.raises(TypeError):
        prunesim.run(42)  # type: ignore[arg-type]
    assert issubclass(prunesim.ConfigError, prunesim.PrunesimError)


def test_the_interpreter_runs_other_threads_during_a_run() -> None:
    done = threading.Event()
    result = {}

    def work() -> None:
        result["r"] = prunesim.run(SMALL, trials=4, jobs=1)
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    thread.join()
    # The lock held for the whole run would leave this thread no turn until it ends.
    assert ticks > 5
    assert result["r"].summary["trials"] == 4


def test_the_same_seed_gives_the_command_lines_bits(small_file: Path) -> None:
    binary = cli()
    if binary is None:
        pytest.skip("no prunesim binary (set PRUNESIM_CLI, or cargo build -p prunesim)")
    out = subprocess.run(
        [binary, "run", str(small_file), "--json", "--jobs", "2"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    expected = json.loads(out)
    got = prunesim.run(small_file, jobs=1).summary
    # JSON numbers read back as the same doubles (shortest round trip); NaN is null there.
    # The git revision is the one each build embedded (a tree edited between the two builds
    # gives two); everything else is the run's.
    got = dict(got)
    assert isinstance(got.pop("git_revision"), str)
    assert isinstance(expected.pop("git_revision"), str)
    assert json.loads(json.dumps(got).replace("NaN", "null")) == expected
    assert got["robustness_mean"] == expected["robustness_mean"]


def test_heuristics_compare_on_the_same_trials_as_their_own_runs() -> None:
    c = prunesim.compare(SMALL, ["MM", "PAM"], bound=False)
    t = c.table
    assert t["heuristic"] == ["MM", "PAM"]
    assert t.rows == 2 and t["trials"] == [2, 2]
    # A row is its heuristic's own run on the same trials (SMALL's heuristic is PAM).
    assert t["robustness_mean"][1] == prunesim.run(SMALL, bound=False).robustness_mean
    best = t["heuristic"].index(c.best)
    other = 1 - best
    assert t["difference_to_best_mean"][best] == 0.0
    assert t["difference_to_best_ci95_low"][best] is None
    expected = t["robustness_mean"][other] - t["robustness_mean"][best]
    assert abs(t["difference_to_best_mean"][other] - expected) < 1e-9
    assert c.optimum is None
    with pytest.raises(prunesim.ConfigError, match="NOPE"):
        prunesim.compare(SMALL, ["PAM", "NOPE"])
    with pytest.raises(prunesim.ConfigError, match="twice"):
        prunesim.compare(SMALL, ["PAM", "PAM"])


def test_a_comparison_becomes_a_data_frame() -> None:
    pytest.importorskip("pandas")
    c = prunesim.compare(SMALL, "PAM,MM-P", trials=2)
    df = c.table.to_pandas()
    assert list(df["heuristic"]) == ["PAM", "MM-P"]
    assert c.optimum is not None and c.optimum["lower"] <= c.optimum["upper"]


def _greedy(event: prunesim.MappingEvent):
    """Earliest deadline first, each task to its machine of highest chance with a free slot;
    a task whose best chance is at or below its defer threshold waits."""
    free = list(event.free)
    out = {"assign": [], "defer": []}
    order = sorted(range(len(event.tasks)), key=lambda i: event.deadline[i])
    for i in order:
        chances = event.chance[i]
        best = max(chances)
        threshold = event.defer_threshold[i]
        if threshold is not None and best <= threshold:
            out["defer"].append(event.tasks[i])
            continue
        open_ = [m for m in range(len(free)) if free[m] > 0]
        if not open_:
            break
        m = max(open_, key=lambda m: chances[m])
        free[m] -= 1
        out["assign"].append((event.tasks[i], m))
    return out


OWN = {
    "workload": {"rate": 19000, "seed": 5, "tasks": 300, "trials": 4},
    "system": {"skip_first": 50, "skip_last": 50},
    "mapper": {"name": "PAM"},
}


def test_a_python_heuristic_maps_every_event_with_the_configured_pruner() -> None:
    seen = []

    def nothing(event: prunesim.MappingEvent):
        seen.append((event.now, len(event.tasks), len(event.free)))
        assert len(event.chance) == len(event.tasks) == len(event.deadline)
        assert all(0.0 <= p <= 1.0 for row in event.chance for p in row)
        assert all(t is not None and 0.0 <= t <= 1.0 for t in event.defer_threshold)
        return []

    idle = prunesim.run(OWN, jobs=1, bound=False, heuristic=nothing)
    assert seen and all(m == 8 for _, _, m in seen)
    assert max(idle.trials["robustness"]) == 0.0, "nothing mapped, nothing on time"
    assert idle.summary["heuristic"] == "nothing (Python)"

    one = prunesim.run(OWN, jobs=1, bound=False, heuristic=_greedy)
    two = prunesim.run(OWN, jobs=2, bound=False, heuristic=_greedy)
    assert one.trials["robustness"] == two.trials["robustness"], "the same whatever the threads"
    # Deadline order on the best chance, with PAM's pruner: about MSD-P (47-53 here), far
    # above unpruned MM (19-32).
    assert min(one.trials["robustness"]) > 40.0, one.trials["robustness"]
    # MM's configuration runs no pruner: no defer thresholds.
    unpruned = dict(OWN, mapper={"name": "MM"})

    def no_thresholds(event: prunesim.MappingEvent):
        assert all(t is None for t in event.defer_threshold)
        return _greedy(event)

    prunesim.run(unpruned, trials=1, bound=False, heuristic=no_thresholds)


def test_a_python_heuristic_that_answers_wrongly_or_raises_is_an_error_naming_the_event() -> None:
    def twice(event: prunesim.MappingEvent):
        return [(event.tasks[0], 0), (event.tasks[0], 1)]

    def stranger(event: prunesim.MappingEvent):
        return [(10**6, 0)]

    def crowded(event: prunesim.MappingEvent):
        return [(t, 0) for t in event.tasks[: event.free[0] + 1]]

    def nowhere(event: prunesim.MappingEvent):
        return [(event.tasks[0], 99)]

    def shapeless(event: prunesim.MappingEvent):
        return {"assing": []}

    for f, says in [
        (twice, "named twice"),
        (stranger, "not in the batch queue"),
        (crowded, "free slots"),
        (nowhere, "there are 8 machines"),
        (shapeless, 'the key "assing"'),
    ]:
        with pytest.raises(ValueError, match="at the mapping event at tick") as e:
            prunesim.run(OWN, trials=1, bound=False, heuristic=f)
        assert says in str(e.value), (f.__name__, str(e.value))

    def broken(event: prunesim.MappingEvent):
        return 1 / 0

    with pytest.raises(ZeroDivisionError):
        prunesim.run(OWN, trials=1, bound=False, heuristic=broken)
    with pytest.raises(TypeError, match="callable"):
        prunesim.run(OWN, trials=1, bound=False, heuristic=3)
    with pytest.raises(prunesim.PrunesimError, match="immediate"):
        prunesim.run(dict(OWN, mapper={"name": "MCT"}), trials=1, bound=False, heuristic=_greedy)


def test_compare_takes_a_python_heuristic_beside_the_named_ones() -> None:
    c = prunesim.compare(OWN, ["PAM", _greedy, "MM"], jobs=1, bound=False)
    assert c.table["heuristic"] == ["PAM", "_greedy (Python)", "MM"]
    # Its row is its own run's: the same trials as run(heuristic=...) gives.
    alone = prunesim.run(OWN, jobs=1, bound=False, heuristic=_greedy)
    mean = sum(alone.trials["robustness"]) / len(alone.trials["robustness"])
    assert abs(c.table["robustness_mean"][1] - mean) < 1e-9
    with pytest.raises(prunesim.ConfigError, match="given twice"):
        prunesim.compare(OWN, [_greedy, _greedy], bound=False)
    with pytest.raises(prunesim.ConfigError, match="a name .* or a Python callable"):
        prunesim.compare(OWN, ["PAM", 3], bound=False)

    def broken(event: prunesim.MappingEvent):
        raise RuntimeError("mine")

    with pytest.raises(RuntimeError, match="mine"):
        prunesim.compare(OWN, ["PAM", broken], trials=1, bound=False)
