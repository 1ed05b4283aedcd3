"""The user guide's chapters "Python" (docs/guide/src/python.md) and "Pruning on a Dask
cluster" (dask.md): their python blocks run, in order, in one namespace per chapter, in a
temporary folder (the Rust guide test runs the other blocks)."""

from __future__ import annotations

import os
import re
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


def test_every_python_block_of_the_dask_chapter_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("distributed", reason="the dask extra: pip install ./python[dask]")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "guide_dask"}
    codes = blocks(DASK.read_text())
    assert len(codes) >= 3
    try:
        for i, code in enumerate(codes):
            try:
                exec(compile(code, f"{DASK.name}, python block {i + 1}", "exec"), namespace)
            except Exception as e:  # pragma: no cover - the failure is the message
                raise AssertionError(f"python block {i + 1} of {DASK} failed: {e!r}") from e
    finally:
        for name in ("ds", "client", "cluster"):
            if name in namespace:
                namespace[name].close()
    assert namespace["ds"].counts()["submitted"] == 7
