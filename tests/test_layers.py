"""Imports run one way: the floors of the layout diagram (docs/architecture.md), bottom up.

Every module of a floor imports (at its top or inside a function) only
modules of the floors below it, never one beside it or above it, so the
import graph has no circle and nothing runs back up; a new top-level module
or package must be placed on a floor here (and in the diagram of docs/architecture.md).
A few lower floors name what they must never import, and no module of the
package is over 600 lines (docstrings aside, as for functions over 100)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "irpref"

# module -> prefixes of irpref modules it must not import (at the top or inside a function)
J = "irpref.judging."
FORBIDDEN = {
    "io": ["irpref.interop", "irpref.judging", "irpref.evaluate", "irpref.measures", "irpref.cli"],
    "judging/interning": [J + "judged", J + "ranking", J + "store", J + "scan",
                          "irpref.evaluate", "irpref.interop"],
    "judging/judged": [J + "ranking", J + "store", J + "scan", "irpref.evaluate",
                       "irpref.interop"],
    "judging/ranking": [J + "store", J + "scan", "irpref.evaluate", "irpref.interop"],
    "judging": ["irpref.measures", "irpref.evaluate", "irpref.interop", "irpref.cli"],
    "params": ["irpref.io", "irpref.judging", "irpref.measures", "irpref.cli"],
    "runtime": ["irpref.io", "irpref.judging", "irpref.measures", "irpref.params",
                "irpref.cli"],
    "runtime/memory": ["irpref."],
    "errors": ["irpref."],
    "stats": ["irpref.llm_judged", "irpref.evaluate", "irpref.compare", "irpref.cli"],
}


FLOORS: list[tuple[str, ...]] = [
    ("_native", "errors", "examples"),
    ("params", "runtime"),
    ("io",),
    ("judging",),
    ("measures",),
    ("preferences", "trec_eval"),
    ("evaluate", "stats"),
    ("asl", "distributed", "topic_sets"),
    ("compare", "meta"),
    ("inference", "interop", "llm_judged"),
    ("report", "__init__"),
    ("cli", "plot"),
    ("__main__",),
]
"""The package's top-level modules and sub-packages by floor, bottom up (the
layout diagram of docs/architecture.md): each imports only from the floors below."""

TOP_LEVEL_MODULES = 12
"""At most this many modules beside the packages: a concept with more than
one module, or one that is not part of the public surface, lives in a package."""


def test_the_top_level_holds_few_modules():
    modules = sorted(p.name for p in SRC.glob("*.py"))
    assert len(modules) <= TOP_LEVEL_MODULES, modules
    assert not list(SRC.glob("*.[ch]")), "the C sources live in src/irpref/_native/"


def _unit(module: str) -> str | None:
    """The top-level unit of an irpref module name (``irpref.measures.ndcg`` ->
    ``measures``; ``irpref`` -> ``__init__``); None for a C extension (a leaf)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    if parts[1].startswith("_") and parts[1] != "__main__":
        return None
    return parts[1]


def _units_imported(path: Path) -> set[str]:
    """The units a module imports (``from irpref import x`` imports unit x)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("irpref"):
            names = ([f"irpref.{a.name}" for a in node.names] if node.module == "irpref"
                     else [node.module])
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("irpref")]
        out.update(u for u in map(_unit, names) if u is not None)
    return out


def _unit_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_every_unit_is_in_the_diagram():
    diagram = (SRC.parents[1] / "docs" / "architecture.md").read_text()
    units = {_unit_of(p) for p in SRC.rglob("*.py")} - {"__init__", "__main__"}
    missing = sorted(u for u in units
                     if f"{u}/" not in diagram and f"{u}.py" not in diagram)
    assert not missing, f"not in the diagram of docs/architecture.md: {missing}"


def test_every_unit_is_on_a_floor():
    units = {_unit_of(p) for p in SRC.rglob("*.py")}
    placed = {u for floor in FLOORS for u in floor}
    assert units == placed, (units - placed, placed - units)


@pytest.mark.slow
def test_every_import_runs_down_the_floors():
    floor_of = {u: i for i, floor in enumerate(FLOORS) for u in floor}
    checked = 0
    for path in sorted(SRC.rglob("*.py")):
        mine = _unit_of(path)
        for other in _units_imported(path) - {mine}:
            assert floor_of[other] < floor_of[mine], (
                f"{path.relative_to(SRC)} (floor {floor_of[mine]}, {mine}) imports {other} "
                f"(floor {floor_of[other]})")
            checked += 1
    assert checked > 200


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("irpref")}


def _files(name: str) -> list[Path]:
    folder = SRC / name
    return sorted(folder.glob("*.py")) if folder.is_dir() else [SRC / f"{name}.py"]


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_imports_go_down(name):
    for path in _files(name):
        bad = sorted(m for m in _imports(path)
                     if any(m == p or m.startswith(p if p.endswith(".") else p + ".")
                            or m == p.rstrip(".") for p in FORBIDDEN[name]))
        assert not bad, f"{path.relative_to(SRC)} imports {bad}"


def _docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers of the module, class and function docstrings of ``tree``:
    the sizes below count code, so that the numpydoc docstrings of the public
    API (Parameters, Returns, Raises, Examples) do not count against them."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def test_no_module_over_600_lines():
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        code = len(text.splitlines()) - len(_docstring_lines(ast.parse(text)))
        assert code <= 600, (path.relative_to(SRC), code)


@pytest.mark.slow
def test_no_function_over_100_lines():
    longest = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        docs = _docstring_lines(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = range(node.lineno, node.end_lineno + 1)
                code = len(span) - len(docs.intersection(span))
                longest.append((code, f"{path.name}:{node.name}"))
    assert max(longest)[0] <= 100, max(longest)
