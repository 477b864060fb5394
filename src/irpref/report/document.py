"""A report written out: one self-contained HTML file, Markdown with its figures
beside it, or JSON data.

- HTML (:func:`render_html`, :func:`write_html`): images are base64 PNG data
  URIs, the style sheet is inline, no scripts, no external fonts; big parts
  fold into ``<details>``.
- Markdown (:func:`write_markdown`): the figures as ``<stem>_figNN.png``
  beside the file.
- JSON (:func:`report_data`, :func:`write_json`): ``{"title", "family" (the
  rule of every verdict, in words), "population", "settings", "runs",
  "baselines", "sections": [{"id", "title", "sentence", "text": [...], "rows":
  [...]}]}``; a section's rows are the rows of its tables (each with ``table``,
  its title), as tidy records where a table shows them otherwise (marks in
  cells). Every row that states a verdict on a comparison has ``measure``,
  ``run``, ``baseline`` (the run it is compared with), ``p_adjusted`` and
  ``verdict`` (``better``, ``worse``, ``n.s.``, ``untested``; the run's point
  of view). No figure is drawn.

Every name is data: each format's one escape rule
(:func:`irpref.report.formats.escape_text`) applies to every title,
sentence, table cell, heading and figure caption; a figure's file name is
percent-encoded in the Markdown link. Files are written to a temporary name
in the target directory and renamed.
"""

from __future__ import annotations

import base64
import json
import math
import os
import tempfile
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Report
from irpref.report.formats import escape_text, report_html_table, report_markdown_table

__all__ = ["CSS", "render_html", "report_data", "write_html", "write_json",
           "write_markdown", "write_report"]

CSS = """
body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#111;background:#fff}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #999;margin-top:1.6em}
p.what{color:#333;font-style:italic}p.rule{border-left:3px solid #555;padding-left:.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
th,td{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#eee}td:first-child,th:first-child,td.t,th.t{text-align:left}
img{max-width:100%;height:auto;display:block;margin:.5em 0}
tbody tr:nth-child(even){background:#f4f4f4}thead th{position:sticky;top:0}
div.wide{overflow:auto;max-height:95vh;border:1px solid #ccc}div.wide img{max-width:none}
div.rows{overflow:auto;max-height:70vh}
details{margin:.4em 0 .8em 0}summary{cursor:pointer;font-weight:bold}
nav a{margin-right:1em}
"""


def write_report(report: Report, path) -> list[Path]:
    """Write ``report`` by the suffix of ``path``: ``.html``/``.htm``, ``.md`` (returns
    the figure files written beside it) or ``.json``."""
    suffix = Path(path).suffix.lower()
    if suffix == ".md":
        return write_markdown(report, path)
    if suffix == ".json":
        write_json(report, path)
    else:
        write_html(report, path)
    return []


# --- HTML ------------------------------------------------------------------------------

def _esc(text) -> str:
    return escape_text(text, "html")


def _html_block(b: Block) -> str:
    if b.kind == "table":
        cap = f"<h3>{_esc(b.title)}</h3>" if b.title else ""
        table = report_html_table(b.table)
        if len(b.table) > 30:  # a long table scrolls in place, its header stays
            table = f'<div class="rows">{table}</div>'
        return cap + table
    if b.kind == "figure":
        data = base64.b64encode(b.image).decode("ascii")
        img = f'<img alt="{_esc(b.title)}" src="data:image/png;base64,{data}">'
        if b.wide:
            img = f'<div class="wide">{img}</div>'
        return f"<figure>{img}</figure>"
    if b.kind == "details":
        inner = "".join(_html_block(c) for c in b.children)
        return (f"<details{' open' if b.open else ''}><summary>{_esc(b.title)}"
                f"</summary>{inner}</details>")
    return f"<p>{_esc(b.title)}</p>"


def _key_table(report: Report) -> pd.DataFrame | None:
    """label -> run for the names the figures abbreviate (None when none is)."""
    pairs = [(s, r) for r, s in report.labels.items() if s != r]
    return pd.DataFrame(pairs, columns=["label", "run"]) if pairs else None


def _intro(report: Report, fmt: str, bold) -> str:
    """"6 runs, measures AP, nDCG@10, baselines X, Y. Runs: ..." escaped for ``fmt``."""
    names = report.baselines or [report.baseline]
    runs = (f" Runs: {escape_text(', '.join(report.runs), fmt)}."
            if len(report.runs) <= 15 or fmt != "html" else "")
    return (f"{len(report.runs)} runs, measures {escape_text(', '.join(report.measures), fmt)}, "
            f"baseline{'s' if len(names) > 1 else ''} "
            + ", ".join(bold(escape_text(n, fmt)) for n in names) + f".{runs}")


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (figures drawn here)."""
    import irpref.runtime.progress as progress

    nav = "".join(f'<a href="#{_esc(s.id)}">{_esc(s.title)}</a>' for s in report.sections)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_esc(report.title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{_esc(report.title)}</h1>",
        f"<p>{_intro(report, 'html', lambda t: '<b>' + t + '</b>')}</p>",
        *(f'<p class="rule">{_esc(text)}</p>' for text in (report.rule, report.population)
          if text),
        f"<nav>{nav}</nav>",
    ]
    key = _key_table(report)
    if key is not None:
        parts.append(_html_block(Block("details", "Run labels used in the figures",
                                       open=True, children=[Block("table", table=key)])))
    with progress.task(len(report.figures()), "report", "figure") as bar:
        for s in report.sections:
            parts.append(f'<section id="{_esc(s.id)}"><h2>{_esc(s.title)}</h2>'
                         f'<p class="what">{_esc(s.sentence)}</p>')
            for b in s.blocks:
                parts.append(_html_block(b))
                bar.update(len(b.figures()))
            parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(report: Report, path) -> None:
    """Write the report as one self-contained HTML file (temp name, then rename)."""
    _atomic_write(Path(path), render_html(report).encode("utf-8"))


# --- Markdown --------------------------------------------------------------------------

def _md(text) -> str:
    return escape_text(text, "markdown")


def write_markdown(report: Report, path) -> list[Path]:
    """Write Markdown to ``path`` and its figures as PNG files beside it
    (``<stem>_figNN.png``); returns the figure paths."""
    import irpref.runtime.progress as progress

    path = Path(path)
    figures: list[Path] = []
    out = [f"# {_md(report.title)}", "", _intro(report, "markdown", lambda t: f"**{t}**"), ""]
    out += [line for text in (report.rule, report.population) if text
            for line in (f"> {_md(text)}", "")]
    key = _key_table(report)
    if key is not None:
        out.extend(["Run labels used in the figures:", "", report_markdown_table(key), ""])

    def emit(b: Block, level: int) -> None:
        if b.kind == "table":
            if b.title:
                out.extend([f"{'#' * level} {_md(b.title)}", ""])
            out.extend([report_markdown_table(b.table), ""])
        elif b.kind == "figure":
            name = f"{path.stem}_fig{len(figures) + 1:02d}.png"
            _atomic_write(path.parent / name, b.image)
            figures.append(path.parent / name)
            bar.update()
            out.extend([f"![{_md(b.title)}]({quote(name)})", ""])
        elif b.kind == "details":
            out.extend([f"{'#' * level} {_md(b.title)}", ""])
            for c in b.children:
                emit(c, level + 1)
        else:
            out.extend([_md(b.title), ""])

    with progress.task(len(report.figures()), "report", "figure") as bar:
        for s in report.sections:
            out.extend([f"## {_md(s.title)}", "", f"*{_md(s.sentence)}*", ""])
            for b in s.blocks:
                emit(b, 3)
    _atomic_write(path, "\n".join(out).encode("utf-8"))
    return figures


# --- JSON ------------------------------------------------------------------------------

def _records(frame: pd.DataFrame, table: str) -> list[dict]:
    """Rows as JSON-ready dicts: NaN and infinities null, NumPy scalars as Python's."""
    def plain(v):
        if v is None or v is pd.NA:
            return None
        if isinstance(v, (np.bool_, bool)):
            return bool(v)
        if isinstance(v, (np.integer,)):
            return int(v)
        if isinstance(v, (float, np.floating)):
            return float(v) if math.isfinite(v) else None
        return v if isinstance(v, (int, str)) else str(v)

    cols = [str(c) for c in frame.columns]
    return [{"table": table, **{c: plain(v) for c, v in zip(cols, row)}}
            for row in frame.itertuples(index=False, name=None)]


def _block_data(b: Block, rows: list[dict], text: list[str], title: str = "") -> None:
    title = b.title or title
    if b.rows is not None:
        for frame in b.rows if isinstance(b.rows, list) else [b.rows]:
            rows.extend(_records(frame, title))
    elif b.kind == "table":
        rows.extend(_records(b.table, title))
    if b.kind == "text":
        text.append(b.title)
    for c in b.children:
        _block_data(c, rows, text, title)


def report_data(report: Report) -> dict:
    """The report as data (see the module doc); no figure is drawn."""
    sections = []
    for s in report.sections:
        rows: list[dict] = []
        text: list[str] = []
        for b in s.blocks:
            _block_data(b, rows, text)
        sections.append({"id": s.id, "title": s.title, "sentence": s.sentence, "text": text,
                         "rows": rows})
    return {"title": report.title, "family": report.rule, "population": report.population,
            "settings": report.settings, "runs": report.runs, "baselines": report.baselines,
            "measures": report.measures, "sections": sections}


def write_json(report: Report, path) -> None:
    """Write :func:`report_data` as JSON (temp name, then rename)."""
    text = json.dumps(report_data(report), ensure_ascii=False, indent=1, allow_nan=False)
    _atomic_write(Path(path), (text + "\n").encode("utf-8"))


def _atomic_write(path: Path, data: bytes) -> None:
    path = Path(path)
    if path.exists() and not path.is_file():
        # a device or FIFO is written in place: a file renamed over it would replace it
        path.write_bytes(data)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
