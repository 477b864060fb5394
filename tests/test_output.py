"""The TSV / JSON writer (``irpref.report.formats``) against a row-by-row reference.

The reference prints each row the plain way: a value is pyarrow's shortest
round-trip text of the one double (``null`` in JSON when not finite), a key is
``json.dumps`` (JSON) or the escaped string (TSV), rows in natural query order.
The fast writer must give the same bytes, on the shipped example through the
``irpref`` command and on seeded random tables with awkward names and values.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from helpers import irpref_cli

import irpref
from irpref import examples
from irpref.report import records as record_engine
from irpref.report.formats import write_json, write_table, write_tsv
from irpref.report.records import escape, natural_key

QRELS = str(examples.qrels_path())
RUNS = [str(p) for p in examples.run_paths()]

ODD_NAMES = ['run "a"', "back\\slash", "tab\there", "new\nline", "cr\rx", "café ☕",
             "日本語", "", "plain", "x/y:z", "\u2028sep", "emoji 😀", "nul\x01"]
ODD_VALUES = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 1e-7, 5e-324, 2.2250738585072014e-308,
              1.7976931348623157e308, 1e16, 123456789012.0, 1e21, -2.5e-10, math.nan,
              math.inf, -math.inf, 0.30000000000000004]


def cli(*args):
    """The installed command; stdout as UTF-8 bytes (compared with the reference)."""
    proc = irpref_cli(*args)
    proc.stdout = proc.stdout.encode("utf-8")
    return proc


def _cell(col: pd.Series, i: int, fmt: str, texts: list | None) -> str:
    v = col.iloc[i]
    if pd.api.types.is_float_dtype(col.dtype):
        if fmt == "json" and not math.isfinite(v):
            return "null"
        return texts[i]
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return "" if fmt == "tsv" else "null"
    return escape(str(v)) if fmt == "tsv" else json.dumps(str(v), ensure_ascii=False)


def reference(frames, keys, fmt: str) -> bytes:
    """Row by row: what the writer prints for ``write_table(frames, keys, fmt)``."""
    columns = [*keys, "value"]
    frames = [f for f in (frames if isinstance(frames, list) else [frames]) if len(f)]
    lines = []
    for f in frames:
        rows = range(len(f))
        if "query" in keys and "query" in f:
            rows = sorted(rows, key=lambda i: natural_key(
                None if pd.isna(f["query"].iloc[i]) else f["query"].iloc[i]))
        cols = [f[name] if name in f else pd.Series([None] * len(f), dtype=object)
                for name in columns]
        texts = [pa.array(c.to_numpy(np.float64)).cast(pa.string()).to_pylist()  # one by one
                 if pd.api.types.is_float_dtype(c.dtype) else None for c in cols]
        for i in rows:
            cells = [_cell(col, i, fmt, t) for col, t in zip(cols, texts)]
            if fmt == "tsv":
                lines.append("\t".join(cells))
            else:
                lines.append("{" + ", ".join(f"{json.dumps(c)}: {t}"
                                             for c, t in zip(columns, cells)) + "}")
    if fmt == "tsv":
        return ("\t".join(columns) + "\n" + "".join(s + "\n" for s in lines)).encode()
    if not frames:
        return b"[]\n"
    return ("[\n" + ",\n".join(lines) + "\n]\n").encode()


def written(frames, keys, fmt: str) -> bytes:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    write_table(frames, keys, fmt, out)
    out.flush()
    return raw.getvalue()


def random_table(rng: np.random.Generator, rows: int, kind: str, repeat_values: bool):
    names = ODD_NAMES + [f"r{i}" for i in range(int(rng.integers(1, 30)))]
    queries = [str(q) for q in rng.integers(0, 3000, int(rng.integers(1, 40)))] + ["106_2",
                                                                                   "106_10"]
    values = rng.choice(ODD_VALUES + [0.25, 0.5], rows) if repeat_values else np.concatenate(
        [rng.choice(ODD_VALUES, rows // 4), rng.normal(size=rows - rows // 4)
         * 10.0 ** rng.integers(-300, 300, rows - rows // 4)])
    rng.shuffle(values)
    run = np.asarray(names, dtype=object)[rng.integers(0, len(names), rows)]
    query = np.asarray(queries, dtype=object)[rng.integers(0, len(queries), rows)]
    if kind == "category":
        frame = pd.DataFrame({
            "run_a": pd.Categorical(run), "run_b": pd.Categorical(run[::-1]),
            "query": pd.Categorical(query), "measure": pd.Categorical(["m\t1", "RPP"] * (rows // 2)
                                                                       + ["x"] * (rows % 2)),
            "value": values})
        return frame, ["run_a", "run_b", "query", "measure"]
    frame = pd.DataFrame({"run": run, "query": query, "measure": "AP", "value": values})
    if kind == "object":
        frame = frame.astype({"run": object, "query": object, "measure": object})
    return frame, ["run", "query", "measure"]


def _means(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    k = [c for c in keys if c != "query"]
    return frame.groupby(k, observed=True, sort=False)["value"].mean().reset_index()


@pytest.mark.parametrize("fmt", ["tsv", "json"])
@pytest.mark.parametrize("kind", ["category", "str", "object"])
@pytest.mark.parametrize("seed", range(3))
def test_random_tables_match_the_reference(fmt, kind, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(record_engine, "CHUNK_ROWS", int(rng.integers(7, 400)))  # many chunks
    for repeat in (False, True):  # dense values; few distinct values (a dictionary)
        frame, keys = random_table(rng, int(rng.integers(260, 700)), kind, repeat)
        parts = [frame, _means(frame, keys)]  # per-query rows, then null-query means
        assert written(parts, keys, fmt) == reference(parts, keys, fmt)
        assert written(frame, keys, fmt) == reference(frame, keys, fmt)


@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_small_and_empty_tables(fmt):
    one = pd.DataFrame({"run": ["a"], "query": [None], "measure": ["AP"], "value": [-0.0]})
    keys = ["run", "query", "measure"]
    assert written(one, keys, fmt) == reference(one, keys, fmt)
    empty = one.iloc[:0]
    assert written(empty, keys, fmt) == reference(empty, keys, fmt)
    assert written([empty, one], keys, fmt) == reference([empty, one], keys, fmt)


def test_json_reads_back_full_precision(monkeypatch):
    rng = np.random.default_rng(11)
    monkeypatch.setattr(record_engine, "CHUNK_ROWS", 64)
    frame, keys = random_table(rng, 1000, "str", False)
    # integers read as floats too: "-0" and "1" are -0.0 and 1.0
    records = json.loads(written([frame, _means(frame, keys)], keys, "json"), parse_int=float)
    assert len(records) == len(frame) + len(_means(frame, keys))
    order = sorted(range(len(frame)), key=lambda i: natural_key(frame["query"].iloc[i]))
    for rec, i in zip(records, order):
        v = frame["value"].iloc[i]
        assert rec["run"] == frame["run"].iloc[i] and rec["query"] == frame["query"].iloc[i]
        if math.isfinite(v):
            assert rec["value"] == v and math.copysign(1, rec["value"]) == math.copysign(1, v)
        else:
            assert rec["value"] is None
    assert all(r["query"] is None for r in records[len(frame):])


def test_other_column_types_and_missing_columns():
    frame = pd.DataFrame({"name": ["a\tb", None, "c"], "count": [1, 2, 3],
                          "flag": [True, False, True], "value": [0.5, math.nan, 2.0]})
    text = io.StringIO()
    write_json(frame, text)
    assert json.loads(text.getvalue()) == [
        {"name": "a\tb", "count": 1, "flag": True, "value": 0.5},
        {"name": None, "count": 2, "flag": False, "value": None},
        {"name": "c", "count": 3, "flag": True, "value": 2},
    ]
    text = io.StringIO()
    write_tsv(frame, text, ["name", "extra", "value"])
    assert text.getvalue() == "name\textra\tvalue\na\\tb\t\t0.5\n\t\tnan\nc\t\t2\n"


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["tsv", "json"])
def test_cli_example_matches_the_reference(fmt):
    results = irpref.evaluate(QRELS, RUNS, ["AP", "nDCG@10", "P@10"], rel=2)
    proc = cli("evaluate", QRELS, *RUNS, "-m", "AP", "nDCG@10", "P@10", "--rel", "2",
               "--per-query", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == reference([results, irpref.summarize(results)],
                                    ["run", "query", "measure"], fmt)
    prefs = irpref.compare(QRELS, RUNS[:5], ["sgnLP", "rrLP", "RPP"], rel=2)
    proc = cli("compare", QRELS, *RUNS[:5], "-m", "sgnLP", "rrLP", "RPP", "--rel", "2",
               "--per-query", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    expected = reference([prefs, irpref.mean_preferences(prefs)],
                         ["run_a", "run_b", "query", "measure"], fmt)
    if fmt == "json":  # the CLI's means come from the matrices: same numbers, read back
        assert json.loads(proc.stdout) == json.loads(expected)
    else:
        assert proc.stdout == expected


@pytest.mark.parametrize("command", [["evaluate", "-m", "AP", "--format", "tsv"], ["judge"]])
def test_output_to_a_fifo_or_device_is_written_in_place(tmp_path, command):
    """``-o`` names a FIFO (as ``/dev/null`` is a device): it is written in place,
    never replaced by a file renamed over it (which, as root, would replace
    /dev/null itself)."""
    import os
    import stat
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc = irpref_cli(command[0], examples.qrels_path(), examples.run_paths()[0], *command[1:],
                      "-o", fifo)
    reader.join(60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0]


# ------------------------------------------------ names are data: every format escapes them

HOSTILE = ["<img src=x onerror=alert(1)>|a_b&c%d$e#f{g}~h^i\\j*k`l[m]!",
           "new\nline\ttab\x1b[31mred"]
HTML_TAGS = {"table", "thead", "tbody", "tr", "th", "td", "b", "sup", "caption", "p"}
SWEEP = {
    "evaluate": ["evaluate", "-m", "AP", "RR"],
    "evaluate-baselines": ["evaluate", "-m", "AP", "--baseline", "plain", "--baseline",
                           HOSTILE[0], "--baseline", HOSTILE[1], "--ci"],  # names in legends
    "compare": ["compare", "-m", "sgnLP"],
    "significance": ["significance", "-m", "AP", "--seed", "0"],
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The example qrels and three runs, two of them named by a hostile file name."""
    import shutil

    d = tmp_path_factory.mktemp("hostile")
    runs = []
    for name, src in zip([*HOSTILE, "plain"], RUNS):
        shutil.copy(src, d / f"{name}.gz")
        runs.append(d / f"{name}.gz")
    return QRELS, runs


def markdown_cells(line: str) -> list[str]:
    """The cells of a Markdown table row, split at the pipes no backslash escapes."""
    cells, cell, i = [], "", 1
    while i < len(line) - 1:
        c = line[i]
        if c == "\\":
            cell += line[i:i + 2]
            i += 2
            continue
        if c == "|":
            cells.append(cell)
            cell = ""
        else:
            cell += c
        i += 1
    return [*cells, cell]


def check_markdown(text: str) -> None:
    """Every table's rows have as many cells as its header; no raw HTML tag."""
    import re

    assert not re.search(r"<[A-Za-z/!?]", text), text
    tables, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            tables.append(block)
            block = []
    assert tables
    for rows in tables:
        widths = {len(markdown_cells(r)) for r in rows}
        assert len(widths) == 1, rows


def html_tags(text: str) -> tuple[set[str], str]:
    """(the tags of ``text``, its character data unescaped)."""
    from html.parser import HTMLParser

    class Parser(HTMLParser):
        tags: set[str] = set()
        data: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)

        def handle_data(self, data):
            self.data.append(data)

    parser = Parser(convert_charrefs=True)
    parser.tags, parser.data = set(), []
    parser.feed(text)
    return parser.tags, "".join(parser.data)


def check_latex(text: str) -> None:
    """No raw < > | (other glyphs under OT1); every row has the header's columns."""
    import re

    assert not set("<>|") & set(text), text
    rows = [line for line in text.splitlines() if line.endswith(r" \\")]
    assert rows
    widths = {len(re.findall(r"(?<!\\)&", r)) for r in rows}
    assert len(widths) == 1, rows


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["table", "tsv", "json", "markdown", "latex", "html"])
@pytest.mark.parametrize("command", list(SWEEP))
def test_hostile_run_names_in_every_format(hostile, command, fmt):
    qrels, runs = hostile
    args = SWEEP[command]
    proc = irpref_cli(args[0], qrels, *runs, *args[1:], "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    if fmt == "table":
        assert not {c for c in out if ord(c) < 32 and c != "\n"}, out
        assert "new\\nline\\ttab\\x1b[31mred" in out and HOSTILE[0] in out
    elif fmt == "tsv":
        lines = out.splitlines()
        assert len({line.count("\t") for line in lines}) == 1
        fields = {f for line in lines for f in line.split("\t")}
        assert {escape(n) for n in HOSTILE} <= fields
    elif fmt == "json":
        strings = json.dumps(json.loads(out), ensure_ascii=False)
        assert all(json.dumps(n, ensure_ascii=False)[1:-1] in strings for n in HOSTILE)
    elif fmt == "markdown":
        check_markdown(out)
        assert r"&lt;img src=x onerror=alert(1)&gt;\|a_b&amp;c%d\$e#f{g}\~h^i\\j\*k\`l\[m\]!" in out
    elif fmt == "latex":
        check_latex(out)
        assert (r"\textless{}img src=x onerror=alert(1)\textgreater{}\textbar{}a\_b\&c\%d\$e\#f"
                r"\{g\}\textasciitilde{}h\textasciicircum{}i\textbackslash{}j*k`l[m]!") in out
    else:
        tags, data = html_tags(out)
        assert tags <= HTML_TAGS, tags
        assert all(n in data for n in HOSTILE)


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html", "table"])
def test_escape_rules(fmt):
    from irpref.report.formats import escape_text

    text = "<b>x</b> | a_b & _c_ \\ $1 ~ # % {} ^ \t\n\x1b"
    out = escape_text(text, fmt)
    if fmt == "markdown":
        assert out == (r"&lt;b&gt;x&lt;/b&gt; \| a_b &amp; \_c\_ \\ \$1 \~ # % {} ^ "
                       "\t&#10;\x1b")
    elif fmt == "latex":
        assert out == (r"\textless{}b\textgreater{}x\textless{}/b\textgreater{} \textbar{} "
                       r"a\_b \& \_c\_ \textbackslash{} \$1 \textasciitilde{} \# \% \{\} "
                       "\\textasciicircum{} \t \x1b")
    elif fmt == "html":
        assert out == ("&lt;b&gt;x&lt;/b&gt; | a_b &amp; _c_ \\ $1 ~ # % {} ^ \t\n\x1b")
    else:
        assert out == "<b>x</b> | a_b & _c_ \\ $1 ~ # % {} ^ \\t\\n\\x1b"
