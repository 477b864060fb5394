"""The one table writer: terminal, TSV, JSON, Markdown, LaTeX (booktabs) and HTML.

Every command and the report write their tables through this module:

- :func:`write_table` (tidy key columns + ``value``; ``table`` and the paper
  formats pivot it to one column per measure) and :func:`write_frame` (any
  flat frame) write to a stream in any of :data:`FORMATS`;
- :func:`render` lays out a wide run x measure table as Markdown, LaTeX or
  HTML with significance markers and the best value of each measure in bold;
  :func:`render_frame` returns any flat frame as text in any format;
  :func:`render_text` is the aligned terminal table.

TSV and JSON come from the record engine of :mod:`irpref.report.records`
(shortest round-trip text of every double). ``render(values, fmt,
markers=None, bold_best=True, higher_is_better=None, digits=4, caption=None,
legend=None)``: ``values`` is a DataFrame indexed by run with one column per
measure (e.g. :func:`irpref.report.baseline.wide`); ``markers`` a DataFrame of
the same shape holding significance markers (``▲``/``▼`` or empty), written
after the value (Markdown/HTML) or as a superscript (LaTeX ``$^{\\uparrow}$``,
as ranx's ``to_latex`` does with letters). The best value of each measure is
bold: the largest or the smallest as the measure's record says (``ASL``: the
smallest; a count such as ``NumRet``: none), unless
``higher_is_better[measure]`` says (True, False, or None for no bold). NaN
prints empty.

Names are data: every format has one escape rule (:func:`escape_text`), applied
by every writer here to every row label, column name, text cell, caption and
legend: ``table`` writes control characters as backslash escapes, ``tsv``
escapes backslash, tab and line breaks, ``json`` quotes, ``markdown`` turns
``&``, ``<``, ``>`` into entities and backslash-escapes ``\\ ` * _ [ ] | ~ $``,
``latex`` escapes its specials and ``< > |`` (which print as other glyphs under
the default font encoding), ``html`` escapes ``& < > "``.

Terminal tables print floats with ``digits`` significant digits; in a column
that mixes integer-valued and fractional values (a percentage ``20`` beside
``66.67``) the integer-valued ones get the column's decimals (``20.00``).
"""

from __future__ import annotations

import html as _html
import io
import re
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np
import pandas as pd

from irpref.report.records import (
    escape,
    sort_queries,
    sort_runs,
    write_json,
    write_parquet,
    write_tsv,
)

__all__ = ["BINARY_FORMATS", "FORMATS", "PAPER_FORMATS", "TEXT_FORMATS", "check_format",
           "escape_frame", "escape_text", "render", "render_frame", "render_text",
           "report_html_table", "report_markdown_table", "write_frame", "write_json",
           "write_parquet", "write_table", "write_tsv"]

TEXT_FORMATS = ("table", "tsv", "json")
PAPER_FORMATS = ("markdown", "latex", "html")
FORMATS = (*TEXT_FORMATS, *PAPER_FORMATS)  # the one list of --format choices
BINARY_FORMATS = ("parquet",)  # records.write_parquet: -o FILE, or stdout that is not a tty;
# offered by the commands whose tables all go through write_table / write_frame

LATEX_MARKERS = {"▲": r"$^{\uparrow}$", "▼": r"$^{\downarrow}$"}
LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}", "\n": " ", "\r": " "}
"""Characters LaTeX would not print as themselves: under the default (OT1) font encoding
``<``, ``>`` and ``|`` print as other glyphs, so they get the kernel's text symbols."""

MARKDOWN_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\r": "&#13;",
                    **{c: "\\" + c for c in "\\`*[]|~$"}}
"""Markdown: HTML's three as entities (no raw tag survives), a line break as an entity
(a table row stays one line), and the characters of emphasis, code, links, tables,
strikethrough and math backslash-escaped (CommonMark, GitHub); ``_`` too, unless it
sits inside a word (``UNH_bm25``), where it cannot open or close emphasis."""

MARKDOWN_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
"""An underscore that does not have a letter or digit on both sides."""

CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7f, *range(0x80, 0xa0)]}
CONTROL.update({ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"})
"""The terminal table: control characters (a tab, a line break, an escape sequence)
written as backslash escapes, so a name cannot shift a column or drive the terminal."""


MARKDOWN_TABLE = str.maketrans(MARKDOWN_SPECIAL)
LATEX_TABLE = str.maketrans(LATEX_SPECIAL)


def escape_text(text, fmt: str) -> str:
    """``text`` as data in ``fmt``, by that format's one rule: ``table`` control
    characters as ``\\t``, ``\\n``, ``\\x1b``...; ``tsv`` backslash, tab, newline,
    carriage return escaped (:func:`irpref.report.records.escape`); ``json`` as is
    (the JSON writer quotes it); ``markdown`` :data:`MARKDOWN_SPECIAL`; ``latex``
    :data:`LATEX_SPECIAL`; ``html`` ``&``, ``<``, ``>`` and quotes as entities."""
    text = str(text)
    if fmt == "html":
        return _html.escape(text, quote=True)
    if fmt == "markdown":
        return MARKDOWN_UNDERSCORE.sub(r"\\_", text.translate(MARKDOWN_TABLE))
    if fmt == "latex":
        return text.translate(LATEX_TABLE)
    if fmt == "table":
        return text.translate(CONTROL)
    if fmt == "tsv":
        return escape(text)
    return text


def escape_frame(frame: pd.DataFrame, fmt: str, index: bool = True) -> pd.DataFrame:
    """``frame`` with every text cell, column name (and with ``index`` every index
    label) through :func:`escape_text`; numbers stay numbers. A copy when
    anything changes."""
    def text(values) -> list:
        return [escape_text(v, fmt) if isinstance(v, str) else v for v in values]

    out = frame.copy()
    for j in range(out.shape[1]):
        col = out.iloc[:, j]
        if col.dtype == object or isinstance(col.dtype, pd.CategoricalDtype) or \
                pd.api.types.is_string_dtype(col.dtype):
            out.isetitem(j, pd.Series(text(col.astype(object)), index=out.index,
                                      dtype=object))
    out.columns = pd.Index(text(out.columns), name=out.columns.name)
    if index:
        if isinstance(out.index, pd.MultiIndex):
            out.index = out.index.set_levels([text(level) for level in out.index.levels])
        else:
            out.index = pd.Index(text(out.index), name=out.index.name)
    return out


def check_format(fmt: str, allowed: Sequence[str] = (*FORMATS, *BINARY_FORMATS)) -> str:
    """``fmt`` if it is one of ``allowed``, else a UsageError naming them."""
    from irpref.errors import UsageError

    if fmt not in allowed:
        raise UsageError(f"format must be one of {', '.join(allowed)}, not {fmt!r}")
    return fmt


def _latex_mark(mark: str) -> str:
    """A marker as a LaTeX superscript: ``▲`` -> ``$^{\\uparrow}$``; several marks
    with baseline letters (``▲ᵃ▼ᵇ``, :func:`irpref.report.baseline.wide_marks`) ->
    ``$^{\\uparrow\\mathrm{a}\\downarrow\\mathrm{b}}$``; other text escaped."""
    from irpref.report.baseline import SUPERSCRIPTS

    if mark in LATEX_MARKERS:
        return LATEX_MARKERS[mark]
    letters = {sup: letter for letter, sup in SUPERSCRIPTS.items()}
    if mark and all(c in "▲▼" or c in letters for c in mark):
        parts = [r"\uparrow" if c == "▲" else r"\downarrow" if c == "▼"
                 else rf"\mathrm{{{letters[c]}}}" for c in mark]
        return "$^{" + "".join(parts) + "}$"
    return escape_text(mark, "latex")


def _column_sign(col, higher_is_better: dict | None) -> int:
    """+1/-1/0: the better direction of a measure column, from its record
    (:func:`irpref.report.orientation.sign_of`); ``higher_is_better[col]``
    overrides it; a column that names no measure has none."""
    if higher_is_better is not None and col in higher_is_better:
        flag = higher_is_better[col]
        return 0 if flag is None else (1 if flag else -1)
    from irpref.report.orientation import sign_of

    try:
        return sign_of(str(col))
    except (ValueError, TypeError):  # UsageError is a ValueError: not a measure name
        return 0


def _best(values: pd.DataFrame, higher_is_better: dict | None) -> pd.DataFrame:
    """Boolean frame: the best value(s) of each column (ties all bold); the best
    is the largest or the smallest as the measure's record says, none for a
    measure without a better direction (a count)."""
    out = pd.DataFrame(False, index=values.index, columns=values.columns)
    for j, col in enumerate(values.columns):
        v = pd.to_numeric(values.iloc[:, j], errors="coerce").to_numpy(np.float64)
        sign = _column_sign(col, higher_is_better)
        if np.isnan(v).all() or sign == 0:
            continue
        target = np.nanmax(v) if sign > 0 else np.nanmin(v)
        out.iloc[:, j] = v == target
    return out


def render(values: pd.DataFrame, fmt: str, markers: pd.DataFrame | None = None, *,
           bold_best: bool = True, higher_is_better: dict | None = None, digits: int = 4,
           caption: str | None = None, legend: str | None = None) -> str:
    """The table as ``markdown``, ``latex`` (booktabs) or ``html`` text; every name
    (row label, column, text cell, caption, legend) escaped by :func:`escape_text`."""
    check_format(fmt, PAPER_FORMATS)
    if markers is not None:
        markers = markers.reindex(index=values.index, columns=values.columns).fillna("")
    best = _best(values, higher_is_better) if bold_best else None
    rows = []  # by position: row labels need not be unique
    for i, run in enumerate(values.index):
        cells = []
        for j in range(values.shape[1]):
            text = _cell_text(values.iat[i, j], digits)
            mark = "" if markers is None else str(markers.iat[i, j])
            bold = best is not None and bool(best.iat[i, j]) and text != ""
            cells.append((text, mark, bold))
        rows.append((str(run), cells))
    head = [str(values.index.name or "run"), *map(str, values.columns)]
    layout = {"markdown": _markdown, "latex": _latex, "html": _html_table}[fmt]
    return layout(head, rows, caption, legend)


def _cell_text(v, digits: int) -> str:
    """A cell as text: strings as they are, booleans yes/no, integers whole, floats
    with ``digits`` decimals, NaN empty."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "" if np.isnan(f) else f"{f:.{digits}f}"


Cells = list[tuple[str, list[tuple[str, str, bool]]]]
"""Rows of :func:`render`: (row label, [(text, marker, bold), ...])."""


def _markdown(head: list[str], rows: Cells, caption: str | None, legend: str | None) -> str:
    def md(text: str) -> str:
        return escape_text(text, "markdown")

    lines = ["| " + " | ".join(map(md, head)) + " |",
             "|---|" + "|".join("---:" for _ in head[1:]) + "|"]
    for run, cells in rows:
        parts = [(f"**{md(t)}**" if b else md(t)) + md(m) for t, m, b in cells]
        lines.append("| " + " | ".join([md(run), *parts]) + " |")
    out = "\n".join(lines) + "\n"
    if legend:
        out += f"\n{md(legend)}\n"
    return out


def _latex(head: list[str], rows: Cells, caption: str | None, legend: str | None) -> str:
    def tex(text: str) -> str:
        return escape_text(text, "latex")

    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{tex(caption)}}}")
    lines += [r"\begin{tabular}{l" + "r" * (len(head) - 1) + "}", r"\toprule",
              " & ".join(map(tex, head)) + r" \\", r"\midrule"]
    for run, cells in rows:
        parts = [(rf"\textbf{{{tex(t)}}}" if b else tex(t)) + _latex_mark(m)
                 for t, m, b in cells]
        lines.append(" & ".join([tex(run), *parts]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if legend:
        lines.append(r"\par\smallskip{\footnotesize " + tex(legend)
                     .replace("▲", r"$\uparrow$").replace("▼", r"$\downarrow$") + "}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _html_table(head: list[str], rows: Cells, caption: str | None, legend: str | None) -> str:
    def esc(text: str) -> str:
        return escape_text(text, "html")

    cols = "".join(f"<th>{esc(c)}</th>" for c in head)
    body = []
    for run, cells in rows:
        tds = "".join(
            f"<td>{'<b>' if b else ''}{esc(t)}{'</b>' if b else ''}"
            f"{f'<sup>{esc(m)}</sup>' if m else ''}</td>" for t, m, b in cells)
        body.append(f"<tr><th>{esc(run)}</th>{tds}</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    out = f"<table>{cap}<thead><tr>{cols}</tr></thead><tbody>{''.join(body)}</tbody></table>\n"
    if legend:
        out += f"<p>{esc(legend)}</p>\n"
    return out



def render_frame(frame: pd.DataFrame, fmt: str, *, digits: int = 4, caption: str | None = None,
                 legend: str | None = None) -> str:
    """Any flat frame (e.g. a significance table) as text in any of :data:`FORMATS`.
    Markdown/LaTeX/HTML, no bolding: the first column is the row label; floats with
    ``digits`` decimals, integers and booleans as they are, NaN empty. ``table``,
    ``tsv``, ``json``: as :func:`write_frame` writes them."""
    if fmt not in PAPER_FORMATS:
        buf = io.StringIO()
        write_frame(frame, fmt, buf, digits=digits, caption=caption, legend=legend)
        return buf.getvalue()
    if frame.shape[1] == 0:
        return render(pd.DataFrame(), fmt, bold_best=False, caption=caption, legend=legend)
    first = frame.columns[0]
    view = frame.astype(object)
    for col in view.columns:  # p-values keep their magnitude
        if str(col) in ("p", "p_adjusted"):
            view[col] = ["" if v != v else f"{float(v):.3g}" for v in frame[col]]
    view = view.set_index(first)
    view.index = view.index.map(lambda v: "" if v is None or v != v else str(v))
    view.index.name = str(first)
    return render(view, fmt, bold_best=False, digits=digits, caption=caption, legend=legend)


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

    ``frame`` may be a list of frames printed as one table (tsv/json), e.g.
    per-query rows then mean rows without a query column (empty / null).
    ``table`` pivots to a wide view: rows ``wide_index`` (default: all keys
    but ``wide_columns``), one column per ``wide_columns`` value; a null key
    (a mean row) shows as ``(mean)`` there.
    """
    out = out or sys.stdout
    check_format(fmt)
    columns = [*keys, "value"]
    sort_by = "query" if "query" in keys else None  # natural query order
    if fmt == "tsv":
        write_tsv(frame, out, columns, sort_by=sort_by)
    elif fmt == "json":
        write_json(frame, out, columns, sort_by=sort_by)
    elif fmt == "parquet":
        write_parquet(frame, out, columns, sort_by=sort_by)
    elif fmt in ("table", *PAPER_FORMATS):
        if sort_by:
            frame = ([sort_queries(f) for f in frame] if isinstance(frame, (list, tuple))
                     else sort_queries(frame))
        if isinstance(frame, (list, tuple)):
            frame = pd.concat(frame, ignore_index=True)
        if fmt == "table":  # the terminal view: runs in natural order, as queries
            frame = sort_runs(frame)
        index = (
            list(wide_index) if wide_index is not None else [k for k in keys if k != wide_columns]
        )
        if frame.empty:
            out.write("(no results)\n")
            return
        view = frame[[*index, wide_columns, "value"]].copy()
        for k in index:
            if view[k].isna().any():
                view[k] = view[k].astype(object).where(view[k].notna(), "(mean)")
        wide = view.pivot_table(
            index=index, columns=wide_columns, values="value", sort=False, aggfunc="first",
            observed=True,
        )
        wide.columns.name = None
        if fmt in PAPER_FORMATS:
            if wide.index.nlevels == 1:
                out.write(render(wide, fmt, digits=digits))
            else:
                out.write(render_frame(wide.reset_index(), fmt, digits=digits))
            return
        wide = escape_frame(wide, "table")
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


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO | None = None, *,
                digits: int = 4, caption: str | None = None, legend: str | None = None) -> None:
    """Any flat frame in one of :data:`FORMATS`: ``table`` (aligned, ``digits``
    significant digits), ``tsv``/``json`` (full precision), or a paper format
    (:func:`render_frame`; ``caption``/``legend`` there, ``legend`` also under
    the terminal table)."""
    out = out or sys.stdout
    check_format(fmt)
    if fmt == "tsv":
        write_tsv(frame, out)
    elif fmt == "json":
        write_json(frame, out)
    elif fmt == "parquet":
        write_parquet(frame, out)
    elif fmt in PAPER_FORMATS:
        out.write(render_frame(frame, fmt, digits=digits, caption=caption, legend=legend))
    elif fmt == "table":
        if frame.empty:
            out.write("(no results)\n")
            return
        out.write(render_text(frame, digits=digits) + "\n")
        if legend:
            out.write(escape_text(legend, "table") + "\n")


def _decimals(values: np.ndarray, digits: int) -> int | None:
    """The decimals to print every value of a float column with, when it mixes
    integer-valued and fractional values without exponents (``20`` beside
    ``66.67`` -> 2, so ``20.00``); None when ``digits`` significant digits print
    it consistently already."""
    finite = values[np.isfinite(values)]
    texts = [f"{v:.{digits}g}" for v in finite]
    if not texts or any("e" in t for t in texts):
        return None
    plain = ["." not in t for t in texts]
    if all(plain) or not any(plain):
        return None
    return max(len(t) - t.index(".") - 1 for t in texts if "." in t)


def render_text(frame: pd.DataFrame, *, digits: int = 4, index: bool = False,
                float_format=None, width: int = 250, na_rep: str = "NaN") -> str:
    """The aligned terminal table of ``frame`` (no final newline): floats with
    ``digits`` significant digits, or ``float_format`` (a function of one float);
    a float column mixing integer-valued and fractional values prints them all
    with the same decimals (:func:`_decimals`)."""
    frame = escape_frame(frame, "table", index=index)
    fmt = float_format or (lambda v: f"{v:.{digits}g}")
    formatters = {}
    if float_format is None:
        for j, col in enumerate(frame.columns):
            column = frame.iloc[:, j]
            if pd.api.types.is_float_dtype(column.dtype):
                decimals = _decimals(column.to_numpy(np.float64), digits)
                if decimals is not None:
                    formatters[col] = (lambda v, d=decimals: na_rep if v != v
                                       else f"{v:.{d}f}")
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", width):
        return frame.to_string(index=index, na_rep=na_rep, float_format=fmt,
                               formatters=formatters or None)


# -- the report's tables (irpref report: HTML and Markdown) -----------------------

def _fmt(v) -> str:
    if v is None or v is pd.NA:
        return ""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{float(v):.4g}"
    return str(v)


def report_html_table(frame: pd.DataFrame) -> str:
    """A report table as HTML: numbers right-aligned, text (run names, labels)
    left-aligned (class ``t``), floats with 4 significant digits, NaN empty."""
    text = [not (pd.api.types.is_numeric_dtype(frame[c])
                 or frame[c].astype(str).str.match(r"^-?\d").all())
            or pd.api.types.is_bool_dtype(frame[c]) for c in frame.columns]
    cls = [' class="t"' if t else "" for t in text]

    def esc(v) -> str:
        return escape_text(v, "html")

    head = "".join(f"<th{k}>{esc(c)}</th>" for c, k in zip(frame.columns, cls))
    body = "".join(
        "<tr>" + "".join(f"<td{k}>{esc(_fmt(v))}</td>" for v, k in zip(row, cls))
        + "</tr>" for row in frame.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def report_markdown_table(frame: pd.DataFrame) -> str:
    """A report table as Markdown, cells as :func:`report_html_table` prints them,
    escaped by the Markdown rule (:func:`escape_text`)."""
    def cell(v) -> str:
        return escape_text(_fmt(v), "markdown")

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)
