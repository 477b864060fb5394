"""Shared helpers of the experiment scripts: data location, paper-vs-irpref
printing, figures. Data is read from ``../shared/data`` relative to the
repository root (override with the environment variable IRPREF_DATA)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def data_dir() -> Path:
    return Path(os.environ.get("IRPREF_DATA", ROOT.parent / "shared" / "data"))


def dl19(rel_note: bool = False):
    d = data_dir() / "dl19-passage"
    return d / "qrels.txt", sorted((d / "runs").glob("*.gz"))


def compare(label: str, paper, ours, digits: int = 2) -> str:
    """One line: label, the paper's number, irpref's, and whether they match at
    the paper's printed precision."""
    if paper is None:
        return f"{label:<40} paper {'-':>8}  irpref {ours:.{digits + 2}f}"
    same = round(float(ours), digits) == round(float(paper), digits)
    return (f"{label:<40} paper {paper:>8.{digits}f}  irpref {ours:.{digits + 2}f}  "
            f"{'exact' if same else 'DIFFERS'}")


def save(fig, name: str) -> Path:
    path = HERE / name
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path.relative_to(ROOT)}")
    return path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
