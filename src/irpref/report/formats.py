"""Markdown, LaTeX (booktabs) and HTML renderings of a wide run x measure table.

``render(values, fmt, markers=None, bold_best=True, higher_is_better=None,
digits=4, caption=None, legend=None)``: ``values`` is a DataFrame indexed by
run with one column per measure (e.g. :func:`irpref.report.baseline.wide`);
``markers`` a DataFrame of the same shape holding significance markers
(``▲``/``▼`` or empty), written after the value (Markdown/HTML) or as a
superscript (LaTeX ``$^{\\uparrow}$``, as ranx's ``to_latex`` does with
letters). The best value of each measure is bold: the largest or the
smallest as the measure's record says (``ASL``: the smallest; a count such as
``NumRet``: none), unless ``higher_is_better[measure]`` says (True, False, or
None for no bold). NaN prints empty.
"""

from __future__ import annotations

import html as _html

import numpy as np
import pandas as pd

from irpref.report.tables import PAPER_FORMATS as FORMATS  # the one list of paper formats

__all__ = ["FORMATS", "render", "render_frame"]

LATEX_MARKERS = {"▲": r"$^{\uparrow}$", "▼": r"$^{\downarrow}$"}
LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(c, c) for c in str(text))


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
    """The table as ``markdown``, ``latex`` (booktabs) or ``html`` text."""
    from irpref.errors import UsageError

    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if markers is not None:
        markers = markers.reindex(index=values.index, columns=values.columns).fillna("")
    best = _best(values, higher_is_better) if bold_best else None
    index_name = values.index.name or "run"

    def number(v) -> str:
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

    rows = []  # by position: row labels need not be unique
    for i, run in enumerate(values.index):
        cells = []
        for j in range(values.shape[1]):
            text = number(values.iat[i, j])
            mark = "" if markers is None else str(markers.iat[i, j])
            bold = best is not None and bool(best.iat[i, j]) and text != ""
            cells.append((text, mark, bold))
        rows.append((str(run), cells))

    if fmt == "markdown":
        def md(s: str) -> str:
            return s.replace("|", "\\|")
        lines = ["| " + " | ".join([md(index_name), *map(md, map(str, values.columns))]) + " |",
                 "|---|" + "|".join("---:" for _ in values.columns) + "|"]
        for run, cells in rows:
            parts = [(f"**{t}**" if b else t) + m for t, m, b in cells]
            lines.append("| " + " | ".join([md(run), *parts]) + " |")
        out = "\n".join(lines) + "\n"
        if legend:
            out += f"\n{legend}\n"
        return out

    if fmt == "latex":
        lines = [r"\begin{table}[t]", r"\centering"]
        if caption:
            lines.append(rf"\caption{{{_latex_escape(caption)}}}")
        lines += [r"\begin{tabular}{l" + "r" * len(values.columns) + "}", r"\toprule",
                  " & ".join([_latex_escape(index_name),
                              *(_latex_escape(c) for c in values.columns)]) + r" \\",
                  r"\midrule"]
        for run, cells in rows:
            parts = [(rf"\textbf{{{_latex_escape(t)}}}" if b else _latex_escape(t))
                     + LATEX_MARKERS.get(m, _latex_escape(m))
                     for t, m, b in cells]
            lines.append(" & ".join([_latex_escape(run), *parts]) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        if legend:
            lines.append(r"\par\smallskip{\footnotesize " + _latex_escape(legend)
                         .replace("▲", r"$\uparrow$").replace("▼", r"$\downarrow$") + "}")
        lines.append(r"\end{table}")
        return "\n".join(lines) + "\n"

    esc = _html.escape
    head = "".join(f"<th>{esc(str(c))}</th>" for c in [index_name, *values.columns])
    body = []
    for run, cells in rows:
        tds = "".join(
            f"<td>{'<b>' if b else ''}{esc(t)}{'</b>' if b else ''}"
            f"{f'<sup>{esc(m)}</sup>' if m else ''}</td>" for t, m, b in cells)
        body.append(f"<tr><th>{esc(run)}</th>{tds}</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    out = f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>\n"
    if legend:
        out += f"<p>{esc(legend)}</p>\n"
    return out


def render_frame(frame: pd.DataFrame, fmt: str, *, digits: int = 4, caption: str | None = None,
                 legend: str | None = None) -> str:
    """Any flat frame (e.g. a significance table) as Markdown/LaTeX/HTML, no bolding:
    the first column is the row label; floats with ``digits`` decimals, integers
    and booleans as they are, NaN empty."""
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
