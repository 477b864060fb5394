"""Helpers shared by the test modules: the installed command, the example
collection, small collections written to a temporary folder.

Every test that runs ``irpref`` as a user would goes through :func:`irpref_cli`
(never its own ``subprocess`` wrapper), so that the command found, the text
mode and the environment are the same everywhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from irpref import examples

QRELS = examples.qrels_path()
RUNS = [Path(p) for p in examples.run_paths()]
RUN_NAMES = [p.name.removesuffix(".gz") for p in RUNS]


def irpref_exe() -> str:
    """The installed ``irpref`` command of the running interpreter's environment."""
    exe = Path(sys.executable).with_name("irpref")
    if exe.exists():
        return str(exe)
    found = shutil.which("irpref")
    if found is None:
        raise RuntimeError("the irpref command is not installed (pip install -e .)")
    return found


def irpref_cli(*args: object, env: Mapping[str, str] | None = None, input: str | None = None,
               timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``irpref ARGS...`` and return the finished process (text stdout/stderr).
    ``env`` adds variables to the current environment."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run([irpref_exe(), *map(str, args)], capture_output=True, text=True,
                          env=full_env, input=input, timeout=timeout)


def write_qrels(path: Path, rows: Iterable[tuple[str, str, int]]) -> Path:
    """qrels lines ``query 0 doc grade``."""
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows))
    return path


def write_run(path: Path, rows: Iterable[tuple[str, str, float]], tag: str = "r") -> Path:
    """run lines ``query Q0 doc rank score tag``, ranks numbered per query in the order given."""
    lines, rank = [], {}
    for q, d, s in rows:
        rank[q] = rank.get(q, 0) + 1
        lines.append(f"{q} Q0 {d} {rank[q]} {s} {tag}\n")
    path.write_text("".join(lines))
    return path


def write_runs(directory: Path, runs: Mapping) -> list[Path]:
    """``runs`` {name: {query: {doc: score}}} -> one TREC run file per name in ``directory``."""
    paths = []
    for name, run in runs.items():
        path = directory / name
        path.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                                for d, s in docs.items()))
        paths.append(path)
    return paths


def write_trec(directory: Path, qrels: Mapping, runs: Mapping) -> tuple[Path, list[Path]]:
    """``qrels`` {query: {doc: grade}} and ``runs`` {name: {query: {doc: score}}} written as
    TREC files in ``directory`` -> (qrels path, run paths)."""
    qpath = write_qrels(directory / "qrels", ((q, d, g) for q, docs in qrels.items()
                                              for d, g in docs.items()))
    return qpath, write_runs(directory, runs)


def sharing(rows: list[tuple], qrels: Iterable[tuple], doc: str) -> list[tuple]:
    """A generated run's ``(query, doc, score)`` rows, given one row (``doc`` on the
    first qrels query) when it has rows but none on a qrels query: irpref refuses a
    run sharing no query with the qrels, and the generators test other things."""
    judged = {q for q, *_ in qrels}
    if rows and not any(q in judged for q, *_ in rows):
        first = next(iter(qrels))[0]
        rows = [*rows, (first, doc, 0.0)]
    return rows
