"""The user guide's chapters "Python" (docs/guide/src/python.md) and "Pruning on a Dask
cluster" (dask.md): the first's python blocks run, in order, in one namespace, the second's
as one script file, each in a temporary folder (the Rust guide test runs the other blocks)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

CHAPTER = ROOT / "docs" / "guide" / "src" / "python.md"
DASK = ROOT / "docs" / "guide" / "src" / "dask.md"


def blocks(text: str) -> "list[str]":
    return re.findall(r"^```python[^\n]*\n(.*?)^```", text, flags=re.S | re.M)


def test_the_chapter_has_examples() -> None:
    assert len(blocks(CHAPTER.read_text())) >= 5


def test_every_python_block_of_the_chapter_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "guide"}
    for i, code in enumerate(blocks(CHAPTER.read_text())):
        try:
            exec(compile(code, f"{CHAPTER.name}, python block {i + 1}", "exec"), namespace)
        except Exception as e:  # pragma: no cover - the failure is the message
            raise AssertionError(f"python block {i + 1} of {CHAPTER} failed: {e!r}") from e
    assert os.path.exists(tmp_path / "results" / "rates.csv")


def test_the_dask_chapter_runs_as_a_script(tmp_path: Path) -> None:
    """Its blocks, one after the other, saved as a file and run as a user would: the
    ``__main__`` guards are what lets ``LocalCluster`` start its worker processes."""
    pytest.importorskip("distributed", reason="the dask extra: pip install ./python[dask]")
    codes = blocks(DASK.read_text())
    assert len(codes) >= 3
    script = tmp_path / "guide_dask.py"
    script.write_text("\n".join(codes))
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    lines = p.stdout.splitlines()
    assert lines[0] == "[None, None, None, None, None, None]", p.stdout
    assert lines[1] == "unmapped", p.stdout
    assert 'prunesim_tasks_total{outcome="dropped",task_type="thumbnail"} 1' in p.stdout
