"""The parts of a report: sections of blocks (tables, figures, folds), and a
figure as PNG bytes. :mod:`irpref.report.html` assembles and writes them;
the section builders (:mod:`~irpref.report.trust`,
:mod:`~irpref.report.judgments`) make them."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["Block", "Report", "Section"]


@dataclass
class Block:
    kind: str  # "table" | "figure" | "details" | "text"
    title: str = ""
    table: pd.DataFrame | None = None
    png: bytes = b""
    children: list[Block] = field(default_factory=list)
    open: bool = True
    wide: bool = False  # a big figure shown at its natural size in a scrolling box


@dataclass
class Section:
    id: str
    title: str
    sentence: str  # what it shows and which paper it comes from
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    title: str
    runs: list[str]
    measures: list[str]
    baseline: str
    sections: list[Section]
    labels: dict[str, str] = field(default_factory=dict)  # run -> label in the figures
    baselines: list[str] = field(default_factory=list)  # every baseline; ``baseline`` first


def _png(fig) -> bytes:
    from irpref.report.plots import _plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    _plt().close(fig)
    return buf.getvalue()
