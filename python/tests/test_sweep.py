"""prunesim.sweep runs sweep files as `prunesim sweep` does."""

from __future__ import annotations

from pathlib import Path

import pytest

import prunesim

SWEEP = """\
id = "tiny"
title = "Robustness vs arrival rate"
chart = "lines"
trials = 2
seed = 7

[base]
workload = { rate = 19000, seed = 0, tasks = 400 }
mapper = { name = "PAM" }

[x]
label = "Arrival rate"
values = [19000, 34000]
set = ["workload.rate"]

[[series]]
label = "PAM"

[[series]]
label = "MM"
set = { "mapper.name" = "MM" }
"""


def test_a_sweep_writes_its_files_and_returns_its_table(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(SWEEP)
    out = tmp_path / "out"
    done = prunesim.sweep(path, out, jobs=2)
    tiny = done["tiny"]
    assert tiny.csv == out / "tiny.csv" and tiny.csv.exists()
    assert (out / "tiny.svg").exists()
    assert tiny.table.rows == 4  # 2 rates x 2 series
    assert "PAM" in tiny.text and "MM" in tiny.text
    again = prunesim.sweep([str(path)], out, trials=2)  # from the point files
    assert again["tiny"].table == tiny.table


def test_a_bad_sweep_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(SWEEP.replace('chart = "lines"', 'chart = "pie"'))
    with pytest.raises(prunesim.PrunesimError, match=r"bad\.toml:3"):
        prunesim.sweep(path, tmp_path / "out")
