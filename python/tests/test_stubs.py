"""The type stubs and the docstrings describe what the module has."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import prunesim
from prunesim import _prunesim

STUB = Path(prunesim.__file__).with_name("_prunesim.pyi")


def test_the_package_is_typed() -> None:
    assert STUB.exists()
    assert Path(prunesim.__file__).with_name("py.typed").exists()


def test_every_name_of_the_stub_exists_and_every_native_name_is_in_the_stub() -> None:
    tree = ast.parse(STUB.read_text())
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stubbed.add(node.name)
            assert hasattr(_prunesim, node.name), node.name
        if isinstance(node, ast.ClassDef):
            cls = getattr(_prunesim, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    assert hasattr(cls, item.name), f"{node.name}.{item.name}"
    native = {n for n in dir(_prunesim) if not n.startswith("__")}
    assert native <= stubbed, native - stubbed


def test_the_public_api_has_docstrings() -> None:
    for name in prunesim.__all__:
        obj = getattr(prunesim, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name
    for cls in (prunesim.Pmf, prunesim.Pet, prunesim.Scheduler, prunesim.Estimator):
        for name, member in inspect.getmembers(cls):
            if not name.startswith("_") and callable(member):
                assert inspect.getdoc(member), f"{cls.__name__}.{name}"
