"""prunesim.sweep runs sweep files as `prunesim sweep` does."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import List

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


def test_a_sweep_never_writes_over_a_file_it_did_not_write(tmp_path: Path) -> None:
    # A user's file of an output's name, and a sweep file that is an output: refused, kept.
    path = tmp_path / "tiny.toml"
    path.write_text(SWEEP)
    out = tmp_path / "out"
    out.mkdir()
    (out / "tiny.csv").write_text("mine\n")
    with pytest.raises(prunesim.PrunesimError, match=r"tiny\.csv is not a file prunesim wrote"):
        prunesim.sweep(path, out)
    assert (out / "tiny.csv").read_text() == "mine\n"
    assert not (out / "tiny.svg").exists()
    clash = tmp_path / "tiny.manifest.json"
    clash.write_text(SWEEP)
    with pytest.raises(prunesim.PrunesimError, match=r"would replace the sweep file"):
        prunesim.sweep(clash, tmp_path)
    assert clash.read_text() == SWEEP
    # A sweep id that is a path: refused at its line.
    escape = tmp_path / "escape.toml"
    escape.write_text(SWEEP.replace('id = "tiny"', 'id = "../escaped"'))
    with pytest.raises(prunesim.PrunesimError, match=r"escape\.toml:1"):
        prunesim.sweep(escape, out)
    assert not (tmp_path / "escaped.csv").exists()


# 12 rates x 2 series at 12 trials of 400 tasks: 2 to 3 seconds of trials on 2 cores, a
# point in a tenth of one.
LONG = SWEEP.replace('id = "tiny"', 'id = "long"').replace("trials = 2", "trials = 12").replace(
    "values = [19000, 34000]", f"values = {list(range(19000, 36001, 1500))}"
)


def test_ctrl_c_stops_a_sweep_within_a_second_and_a_rerun_reuses_its_saved_points(
    tmp_path: Path,
) -> None:
    path = tmp_path / "long.toml"
    path.write_text(LONG)
    out = tmp_path / "out"
    points = out / "long.points"
    sent: List[float] = []

    def interrupt() -> None:
        # Ctrl-C once the first point is saved.
        limit = time.monotonic() + 120
        while not list(points.glob("*.toml")) and time.monotonic() < limit:
            time.sleep(0.005)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    # A process started in the background by a shell without job control ignores SIGINT:
    # Ctrl-C's handler is set for the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    thread = threading.Thread(target=interrupt, daemon=True)
    try:
        thread.start()
        with pytest.raises(KeyboardInterrupt):
            prunesim.sweep(path, out, jobs=2)
        stopped = time.monotonic()
        thread.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    took = stopped - sent[0]
    assert took < 1.0, f"KeyboardInterrupt {took:.2f} s after Ctrl-C"
    saved = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in points.glob("*.toml")}
    assert 0 < len(saved) < 24, f"{len(saved)} of 24 points saved"
    assert not (out / "long.csv").exists()
    # The rerun loads the points saved (untouched) and computes the others.
    done = prunesim.sweep(path, out, jobs=2)
    assert done["long"].table.rows == 24
    assert len(list(points.glob("*.toml"))) == 24
    for p, (text, modified) in saved.items():
        assert (p.read_bytes(), p.stat().st_mtime_ns) == (text, modified), p.name
