"""Table writing, as other modules import it: the record engine
(:mod:`irpref.report.records`: TSV/JSON at full precision, natural orders) and
the one table writer (:mod:`irpref.report.formats`: terminal, TSV, JSON,
Markdown, LaTeX, HTML).

:data:`FORMATS` is the one list of ``--format`` choices every table command
offers. This module defines nothing of its own; it imports from both, which
import nothing from it.
"""

from __future__ import annotations

from irpref.report.formats import (
    FORMATS,
    PAPER_FORMATS,
    TEXT_FORMATS,
    render_text,
    write_frame,
    write_table,
)
from irpref.report.records import (
    escape,
    format_value,
    natural_key,
    natural_sorted,
    sort_queries,
    sort_runs,
    tsv_chunks,
    write_json,
    write_tsv,
)

__all__ = [
    "FORMATS",
    "PAPER_FORMATS",
    "TEXT_FORMATS",
    "escape",
    "format_value",
    "natural_key",
    "natural_sorted",
    "render_text",
    "sort_queries",
    "sort_runs",
    "tsv_chunks",
    "write_frame",
    "write_json",
    "write_table",
    "write_tsv",
]
