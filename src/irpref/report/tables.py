"""Writing tidy result tables as a terminal table, TSV or JSON.

TSV prints values at full double precision (``repr`` of the float), so no
digit is lost between irpref and a downstream tool.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TextIO

import pandas as pd

__all__ = ["FORMATS", "format_value", "write_table"]

FORMATS = ("table", "tsv", "json")


def format_value(value: float) -> str:
    """Shortest text that reads back as the same double (``repr``), e.g. ``0.1``, ``nan``."""
    return repr(float(value))


def write_table(
    frame: pd.DataFrame,
    keys: Sequence[str],
    fmt: str = "tsv",
    out: TextIO | None = None,
    *,
    wide_index: Sequence[str] | None = None,
    wide_columns: str = "measure",
    digits: int = 4,
) -> None:
    """Write ``frame`` (key columns + ``value``) as ``table``, ``tsv`` or ``json``.

    ``table`` pivots to a wide view: rows ``wide_index`` (default: all keys
    but ``wide_columns``), one column per ``wide_columns`` value.
    """
    out = out or sys.stdout
    if fmt == "tsv":
        out.write("\t".join([*keys, "value"]) + "\n")
        columns = [frame[k].astype(str).tolist() for k in keys]
        values = [format_value(v) for v in frame["value"].tolist()]
        for row in zip(*columns, values):
            out.write("\t".join(row) + "\n")
    elif fmt == "json":
        records = [
            {**{k: r[k] for k in keys}, "value": None if pd.isna(r["value"]) else float(r["value"])}
            for r in frame[[*keys, "value"]].to_dict("records")
        ]
        json.dump(records, out, indent=1)
        out.write("\n")
    elif fmt == "table":
        index = (
            list(wide_index) if wide_index is not None else [k for k in keys if k != wide_columns]
        )
        if frame.empty:
            out.write("(no results)\n")
            return
        wide = frame.pivot_table(
            index=index, columns=wide_columns, values="value", sort=False, aggfunc="first"
        )
        wide.columns.name = None
        with pd.option_context(
            "display.max_rows",
            None,
            "display.max_columns",
            None,
            "display.width",
            200,
            "display.float_format",
            lambda v: f"{v:.{digits}f}",
        ):
            out.write(wide.to_string() + "\n")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
