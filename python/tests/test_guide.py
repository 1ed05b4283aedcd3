"""The user guide's chapter "Python" (docs/guide/src/python.md): its python blocks run, in
order, in one namespace, in a temporary folder (the Rust guide test runs the other blocks)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import ROOT

CHAPTER = ROOT / "docs" / "guide" / "src" / "python.md"


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
