"""The lower floors import only downwards: io never imports interop or the
judging modules, the judged-rankings value never imports store, and no
module of these floors is over 600 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "irpref"

# module -> prefixes of irpref modules it must not import (at the top or inside a function)
FORBIDDEN = {
    "io": ["irpref.interop", "irpref.judged", "irpref.interning", "irpref.ranking",
           "irpref.store", "irpref.scan", "irpref.evaluate", "irpref.measures",
           "irpref.cli"],
    "interning": ["irpref.judged", "irpref.ranking", "irpref.store", "irpref.scan",
                  "irpref.evaluate", "irpref.interop"],
    "judged": ["irpref.ranking", "irpref.store", "irpref.scan", "irpref.evaluate",
               "irpref.interop"],
    "ranking": ["irpref.store", "irpref.scan", "irpref.evaluate", "irpref.interop"],
    "params": ["irpref.io", "irpref.judged", "irpref.measures", "irpref.cli"],
    "threads": ["irpref.io", "irpref.judged", "irpref.measures", "irpref.cli"],
    "memory": ["irpref."],
    "errors": ["irpref."],
}


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


@pytest.mark.parametrize("name", ["io", "judged", "interning", "ranking", "store", "scan",
                                  "params", "threads", "memory", "evaluate", "distributed",
                                  "hashing", "progress", "errors"])
def test_no_module_over_600_lines(name):
    for path in _files(name):
        assert len(path.read_text().splitlines()) <= 600, path.name
