"""Write nested-dict qrels and runs as TREC files, for CLI tests."""

from __future__ import annotations

from pathlib import Path


def write_trec(directory: Path, qrels: dict, runs: dict) -> tuple[Path, list[Path]]:
    """``qrels`` {q: {d: grade}} and ``runs`` {name: {q: {d: score}}} -> (qrels path, run paths)."""
    qpath = directory / "qrels"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items()
                             for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = directory / name
        p.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items()
                             for d, s in docs.items()))
        paths.append(p)
    return qpath, paths
