"""The examples of python/examples run, on short settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

EXAMPLES = ROOT / "python" / "examples"


def run(args: "list[str]", cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_comparison_of_pam_and_mm_runs(tmp_path: Path) -> None:
    figure = tmp_path / "rates.png"
    p = run(
        [str(EXAMPLES / "compare_pam_mm.py"), "--trials", "2", "--tasks", "400", "--plot",
         str(figure)],
        tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert "points over MM" in p.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "no figure" in p.stdout
    else:
        assert figure.exists()


def test_the_dispatcher_runs_real_processes_and_its_checks_hold(tmp_path: Path) -> None:
    p = run(
        [str(EXAMPLES / "dispatcher.py"), "--seconds", "3", "--rate", "15"],
        tmp_path,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "checks: ok" in p.stdout, p.stdout
    assert "robustness" in p.stdout


def test_the_dask_pool_beats_plain_dask_submission(tmp_path: Path) -> None:
    import pytest

    pytest.importorskip("distributed", reason="the dask extra: pip install ./python[dask]")
    p = run([str(EXAMPLES / "dask_pool.py"), "--tasks", "160", "--rate", "42"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "on time: scheduler" in p.stdout and "plain Dask" in p.stdout, p.stdout
    import re

    line = next(x for x in p.stdout.splitlines() if x.startswith("on time"))
    scheduler, plain, pinned = (float(v) for v in re.findall(r"([0-9.]+)%", line))
    # At 1.5 times the pool's capacity the scheduler beats plain submission, even pinned by
    # task type and cancelled at the deadline (by 18 to 32 points over 400 tasks).
    assert scheduler > pinned > plain, line
