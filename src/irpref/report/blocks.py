"""The parts of a report: sections of blocks (tables, figures, folds, text).

The section builders (:mod:`~irpref.report.sections`, :mod:`~irpref.report.trust`,
:mod:`~irpref.report.judgments`) make them from a
:class:`~irpref.report.context.ReportContext`; :mod:`irpref.report.document`
writes them as HTML, Markdown or JSON. A figure block holds the function that
draws it: HTML and Markdown draw it (once), JSON never does.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

__all__ = ["Block", "Report", "Section", "png_of"]


@dataclass(eq=False)
class Block:
    """``kind``: ``table`` (``table``), ``figure`` (``draw``: returns a matplotlib Figure,
    drawn when written; or ``png``: the image already drawn), ``details`` (a fold of
    ``children``) or ``text`` (``title``). ``rows``: what the JSON output writes for the
    block, one frame or several, when the table shows its data otherwise (marks in
    cells) or the block is not a table."""

    kind: str
    title: str = ""
    table: pd.DataFrame | None = None
    png: bytes = b""
    children: list[Block] = field(default_factory=list)
    open: bool = True
    wide: bool = False  # a big figure shown at its natural size in a scrolling box
    rows: pd.DataFrame | list[pd.DataFrame] | None = None
    draw: Callable | None = None

    @cached_property
    def image(self) -> bytes:
        """The figure as PNG bytes: ``png``, or ``draw`` drawn on first use."""
        return self.png or (png_of(self.draw()) if self.draw is not None else b"")

    def figures(self) -> list[Block]:
        """This block's figure blocks and those folded inside it, in order."""
        if self.kind == "figure":
            return [self]
        return [f for c in self.children for f in c.figures()]


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
    rule: str = ""  # the family rule of every verdict, in words
    population: str = ""  # over how many queries the values are taken
    settings: dict = field(default_factory=dict)  # the judging settings, by name

    def figures(self) -> list[Block]:
        return [f for s in self.sections for b in s.blocks for f in b.figures()]


def png_of(fig) -> bytes:
    """A matplotlib Figure as PNG bytes (90 dpi); the figure is closed."""
    from irpref.report.figure_kit import pyplot, save

    buf = io.BytesIO()
    save(fig, buf, format="png", dpi=90)
    pyplot().close(fig)
    return buf.getvalue()
