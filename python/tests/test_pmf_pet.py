"""prunesim.Pmf and prunesim.Pet: the pmf and workload types, files read as the CLI reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

import prunesim

ETC = """\
machineCount=2;taskCount=2;
machine=0;task=0;
10 0.5
12 0.5
machine=1;task=0;
20 1.0
machine=0;task=1;
5 1.0
machine=1;task=1;
7 0.25
9 0.75
"""


def test_a_pmf_has_its_statistics() -> None:
    p = prunesim.Pmf([0.25, 0.5, 0.25], offset=2)
    assert (p.offset, p.min, p.max, len(p)) == (2, 2, 4, 3)
    assert p.mean() == 3.0
    assert p.variance() == 0.5
    assert p.cdf(2) == 0.25 and p.sf(3) == 0.25
    assert p.prob_before(4) == 0.75
    assert p.quantile(0.5) == 3
    assert p.items() == [(2, 0.25), (3, 0.5), (4, 0.25)]
    two = p.convolve(p)
    assert two.mean() == 6.0 and two.min == 4 and two.max == 8
    assert p.shift(10).mean() == 13.0
    assert prunesim.Pmf.from_weights([1, 3]).masses == [0.25, 0.75]
    assert prunesim.Pmf.point(7).mean() == 7.0
    assert prunesim.Pmf.from_samples([1, 2, 2, 3]).mean() == 2.0
    with pytest.raises(prunesim.ConfigError):
        prunesim.Pmf([0.5, 0.2])
    with pytest.raises(prunesim.ConfigError):
        prunesim.Pmf([-1.0, 2.0])


def test_the_default_pet_is_the_simulators() -> None:
    pet = prunesim.Pet.default(2019)
    assert (pet.task_types, pet.machines) == (12, 8)
    assert len(pet.type_names) == 12 and len(pet.machine_names) == 8
    assert pet == prunesim.Pet.default(2019) and pet != prunesim.Pet.default(1)
    assert pet.means()[3][5] == pytest.approx(pet.pmf(3, 5).mean())
    with pytest.raises(IndexError):
        pet.pmf(12, 0)
    swapped = pet.with_pmf(0, 0, prunesim.Pmf.point(3))
    assert swapped.pmf(0, 0) == prunesim.Pmf.point(3) and pet.pmf(0, 0) != swapped.pmf(0, 0)


def test_an_etc_file_reads_with_its_names(tmp_path: Path) -> None:
    path = tmp_path / "two.etc"
    path.write_text(ETC)
    pet = prunesim.Pet.read_etc(path)
    assert (pet.task_types, pet.machines) == (2, 2)
    assert pet.type_names == ["t0", "t1"]
    assert pet.pmf(0, 0).items() == [(10, 0.5), (12, 0.5)]
    assert pet.pmf(1, 1).mean() == pytest.approx(8.5)


def test_a_samples_csv_reads_as_histograms(tmp_path: Path) -> None:
    path = tmp_path / "samples.csv"
    rows = ["task_type,machine,execution_time"]
    rows += [f"a,fast,{x}" for x in (1.0, 1.5, 2.0, 2.0)]
    rows += [f"a,slow,{x}" for x in (3.0, 4.0)]
    path.write_text("\n".join(rows) + "\n")
    pet = prunesim.Pet.read_samples(path, bin_width=1)
    assert pet.type_names == ["a"] and pet.machine_names == ["fast", "slow"]
    # Each bin (k - 1, k] stands for its upper edge k.
    assert pet.pmf(0, 1).items() == [(3, 0.5), (4, 0.5)]
    ms = prunesim.Pet.read_samples(path, tick=0.5, bin_width=1, bin_value="lower")
    assert ms.pmf(0, 0).min == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("task_type,machine,execution_time\na,fast,oops\n")
    with pytest.raises(prunesim.ConfigError, match=r"bad\.csv:2"):
        prunesim.Pet.read_samples(bad)
    with pytest.raises(prunesim.ConfigError, match="bin_value"):
        prunesim.Pet.read_samples(path, bin_value="middle")


def test_times_that_look_like_seconds_warn_as_the_command_line_does(tmp_path: Path) -> None:
    path = tmp_path / "seconds.csv"
    rows = ["task_type,machine,execution_time"]
    rows += [f"a,fast,{x}" for x in (0.12, 0.3, 0.25, 1.4)]
    rows += [f"a,slow,{x}" for x in (0.5, 0.75)]
    path.write_text("\n".join(rows) + "\n")
    with pytest.warns(prunesim.PrunesimWarning, match=r"Times in seconds\?.*seconds\.csv"):
        prunesim.Pet.read_samples(path, bin_width=1)
    # The advice given (a tick of 0.001 reads seconds as milliseconds) silences it.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", prunesim.PrunesimWarning)
        prunesim.Pet.read_samples(path, tick=0.001)
