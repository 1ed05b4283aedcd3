"""Shared fixtures: small experiments, and the command-line binary to compare with."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A small experiment: 2 trials of 300 tasks, fast enough for every test.
SMALL = """\
name = "small"
[workload]
rate = 34000
seed = 11
tasks = 300
trials = 2
[system]
skip_first = 30
skip_last = 30
[mapper]
name = "PAM"
"""

SMALL_DICT = {
    "name": "small",
    "workload": {"rate": 34000, "seed": 11, "tasks": 300, "trials": 2},
    "system": {"skip_first": 30, "skip_last": 30},
    "mapper": {"name": "PAM"},
}


@pytest.fixture
def small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def cli() -> "str | None":
    """The `prunesim` binary: $PRUNESIM_CLI, else the workspace's release or debug build,
    else one on the PATH."""
    given = os.environ.get("PRUNESIM_CLI")
    if given:
        return given
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "prunesim"
        if path.is_file():
            return str(path)
    return shutil.which("prunesim")
