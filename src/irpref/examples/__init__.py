"""The example collection shipped with irpref.

``dl19``: a small real slice of the TREC 2019 Deep Learning passage task — its
qrels (43 topics, grades 0-3; the track counts grade >= 2 as relevant) and six
submitted runs cut to the top 100 documents per topic. Rebuilt from the
official files by ``scripts/make_example.py``; see ``dl19/README.md``.

``python -m irpref.examples`` prints the paths: qrels first, then the runs.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["EXAMPLE_DIR", "qrels_path", "run_paths"]

EXAMPLE_DIR = Path(__file__).resolve().parent / "dl19"


def qrels_path() -> Path:
    """Path of the example qrels."""
    return EXAMPLE_DIR / "qrels.txt"


def run_paths() -> list[Path]:
    """Paths of the example runs, sorted by name."""
    return sorted(EXAMPLE_DIR.glob("*.gz"))
