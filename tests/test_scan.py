"""The one-pass C reader of run files (``irpref._native.scan``) against the Python reader.

Invariant: for any run file, ``judge_inputs(..., layout="compact")`` with
``IRPREF_SCAN=c`` and with ``IRPREF_SCAN=python`` either raises the same
exception (type and message: file, line, problem) or gives identical compact
judged rankings (every array compared exactly) and identical warnings about
queries the qrels lack. Valid generated files are also checked against a
brute-force oracle written here (ranking by score, trec_eval's docid-descending
tie-break, file order, tie groups cut at the depth), against the full layout
(the older, independent path) and through the measures computed on each; the
score parser is compared bit for bit with Python's ``float`` and pyarrow's
float64 conversion (what the Python reader uses).
"""

from __future__ import annotations

import gzip
import math
import os
import random
import re
import struct
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from environment import setenv
from helpers import irpref_exe
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irpref.evaluate import _unjudged_message, evaluate, judge_inputs
from irpref.io.lines import read_buffer
from irpref.io.trec import read_qrels
from irpref.judging import scan

try:  # the suite fails, never skips, when the extension is not built
    from irpref._native import scan as _scan
except ImportError as exc:  # pragma: no cover - depends on the build
    raise ImportError("irpref._native.scan is not built; reinstall with a C compiler") from exc

SETTINGS = settings(
    max_examples=100, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ------------------------------------------------------------------ helpers


def scan_mode(mode: str):
    """Run with ``IRPREF_SCAN=mode``."""
    return setenv(scan.ENV, mode)


FIELDS = ("offsets", "item_rank", "grade", "seg_num_ret", "present", "tie_first", "tie_size",
          "doc_key")


@dataclass
class Outcome:
    judged: object = None
    error: tuple | None = None
    warned: tuple = ()


def outcome(qrels, runs, *, layout: str = "compact", **kw) -> Outcome:
    """judge_inputs(...) as a value: the judged rankings and warnings, or the error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            judged = judge_inputs(qrels, [str(r) for r in runs], layout=layout, **kw)
        except Exception as exc:  # noqa: BLE001 - compared, type and message
            return Outcome(error=(type(exc).__name__, str(exc)),
                           warned=tuple(str(w.message) for w in caught))
    return Outcome(judged=judged, warned=tuple(str(w.message) for w in caught))


def assert_same(c: Outcome, p: Outcome) -> None:
    """The C and Python outcomes are identical (error, or every array and warning)."""
    assert c.error == p.error
    assert c.warned == p.warned
    if c.error is not None:
        return
    a, b = c.judged, p.judged
    assert a.layout == b.layout == "compact"
    assert a.run_names == b.run_names
    assert list(a.queries) == list(b.queries)
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        assert np.array_equal(x, y), name


def judge_both(qrels, runs, **kw) -> Outcome:
    """The outcome under IRPREF_SCAN=c, asserted identical to IRPREF_SCAN=python."""
    with scan_mode("c"):
        assert scan.enabled()
        c = outcome(qrels, runs, **kw)
    with scan_mode("python"):
        assert not scan.enabled()
        p = outcome(qrels, runs, **kw)
    assert_same(c, p)
    return c


def c_code(qrels, path, *, ties: str = "docid", depth=None, use_tag: bool = False) -> int:
    """The code the C pass returns for one file (0: it read the file itself)."""
    with scan_mode("c"):
        index = scan.QrelsIndex(read_qrels(str(qrels)))
        return _scan.judge(read_buffer(str(path)), index.capsule,
                           {"docid": 0, "input": 1, "expected": 2}[ties], depth or 0, use_tag)[0]


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    if name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)
    return path


def qrels_bytes(qrels: dict) -> bytes:
    return b"".join(f"{q} 0 {d} {g}\n".encode() for q, docs in qrels.items()
                    for d, g in docs.items())


# ------------------------------------------------------------------ the oracle


def oracle(qrels: dict, runs: list, ties: str, depth: int | None) -> dict:
    """What the compact layout must hold, by brute force.

    ``qrels`` {query: {doc: grade}}; ``runs`` [(name, [(query, doc, score text)]
    in file order)]. Per run and qrels query (byte order): the number retrieved
    (cut at depth), and for every retrieved document the qrels mention: its
    0-based rank, grade, id and (ties="expected") tie group start and size
    within the cut ranking.
    """
    queries = sorted(qrels, key=str.encode)
    segments, unknown = [], {}
    for name, lines in runs:
        missing = sorted({q for q, _, _ in lines if q not in qrels})
        if missing:
            unknown[name] = missing
        by_query: dict = {}
        for q, d, s in lines:
            by_query.setdefault(q, []).append((float(s), d))
        for q in queries:
            mine = by_query.get(q, [])
            if ties == "input":
                ranked = sorted(mine, key=lambda x: x[0], reverse=True)  # stable
            else:  # score descending, then docid descending (byte order), as trec_eval
                ranked = sorted(mine, key=lambda x: (x[0], x[1].encode()), reverse=True)
            cut = ranked[:depth] if depth else ranked
            items = []
            for i, (score, d) in enumerate(cut):
                if d not in qrels[q]:
                    continue
                first = i
                while first > 0 and cut[first - 1][0] == score:
                    first -= 1
                last = i
                while last + 1 < len(cut) and cut[last + 1][0] == score:
                    last += 1
                group = (first, last - first + 1) if ties == "expected" else None
                items.append((i, qrels[q][d], d, group))
            segments.append((len(cut), bool(mine), items))
    sharing_none = [n for n, lines in runs if not any(q in qrels for q, _, _ in lines)]
    return {"runs": [n for n, _ in runs], "queries": queries, "segments": segments,
            "unknown": unknown, "refused": sharing_none[0] if sharing_none else None}


def compact_view(j) -> dict:
    """The compact judged rankings in the oracle's shape."""
    codes = j.doc_ids.codes(j.doc_key)
    docs = j.doc_ids.strings.take(pa.array(codes, pa.int32())).to_pylist() if len(codes) else []
    segments = []
    present = j.present.ravel()
    for s in range(j.n_segments):
        lo, hi = j.offsets[s], j.offsets[s + 1]
        items = []
        for i in range(lo, hi):
            group = None
            if j.tie_first is not None:
                group = (int(j.tie_first[i]), int(j.tie_size[i]))
            items.append((int(j.item_rank[i]), int(j.grade[i]), docs[i], group))
        segments.append((int(j.seg_num_ret[s]), bool(present[s]), items))
    return {"runs": list(j.run_names), "queries": list(j.queries), "segments": segments}


def assert_oracle(out: Outcome, expected: dict) -> None:
    if expected["refused"] is not None:  # a run sharing no query with the qrels
        assert out.error[0] == "InputError", out.error
        assert out.error[1].startswith(f"run {expected['refused']}: it shares no query")
        return
    assert out.error is None, out.error
    got = compact_view(out.judged)
    assert got["runs"] == expected["runs"]
    assert got["queries"] == expected["queries"]
    assert len(got["segments"]) == len(expected["segments"])
    for k, (g, e) in enumerate(zip(got["segments"], expected["segments"])):
        assert g == e, f"segment {k} (run {k // len(got['queries'])})"
    want = (_unjudged_message(expected["unknown"]),) if expected["unknown"] else ()
    assert out.warned == want


MEASURES = ["AP", "nDCG@10", "RR", "P@5", "R@1000", "nDCG", "Rprec", "NumRelRet", "NumRet"]


def measures_agree(qrels, runs, *, ties: str, depth, use_tag: bool = False) -> None:
    """The measures computed on the compact layout (C pass and Python reader)
    equal those on the full layout, exactly (NaN where NaN)."""
    tables = []
    for mode, layout in (("c", "compact"), ("python", "compact"), ("python", "full")):
        with scan_mode(mode), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            judged = judge_inputs(qrels, [str(r) for r in runs], layout=layout, ties=ties,
                                  depth=depth, use_tag=use_tag)
            tables.append(evaluate(qrels, runs, MEASURES, judged=judged))
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other, check_exact=True)


# ------------------------------------------------------------------ scores


def arrow_floats(texts: list[bytes]) -> list:
    """pyarrow's CSV float64 conversion of each token (None: refused or null)."""
    out = []
    for t in texts:
        try:
            table = pcsv.read_csv(
                pa.BufferReader(t + b"\n"),
                read_options=pcsv.ReadOptions(column_names=["x"]),
                parse_options=pcsv.ParseOptions(delimiter=" ", quote_char=False),
                convert_options=pcsv.ConvertOptions(column_types={"x": pa.float64()}),
            )
            out.append(table["x"][0].as_py())
        except pa.ArrowInvalid:
            out.append(None)
    return out


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


# the grammar of the rules (irpref.io.trec, checked in irpref.io.lines), written again here
SCORE_RULE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity))\Z")


def check_score(text: bytes) -> None:
    """parse_score(text) is float(text) bit for bit when the rule accepts it
    (and not NaN), else None; pyarrow agrees wherever it reads a number."""
    got = _scan.parse_score(text)
    if not SCORE_RULE.match(text):
        assert got is None, text
        return
    want = float(text)
    assert got is not None, text
    assert bits(got) == bits(want), (text, got.hex(), want.hex())
    (arrow,) = arrow_floats([text])
    assert arrow is not None and bits(arrow) == bits(want), (text, arrow, want.hex())


SCORE_CASES = [
    b"0", b"-0", b"+0", b"0.0", b"-0.0", b"00", b"000.000", b"0e0", b"-0e-999", b"0e99999999999",
    b"1", b"+1", b"-1", b"1.", b".5", b"-.5", b"+.5e-3", b"5.e2", b"1e5", b"1E5", b"1e+5",
    b"1e-5", b"1.5e308", b"1.7976931348623157e308", b"1.7976931348623159e308", b"1e309",
    b"1e999", b"-1e999", b"1e99999999999999999999", b"2.2250738585072014e-308",
    b"2.2250738585072011e-308", b"4.9e-324", b"5e-324", b"2.4703282292062327e-324",
    b"2.4703282292062328e-324", b"1e-400", b"-1e-400", b"1e-99999999999999",
    b"9007199254740992", b"9007199254740993", b"9007199254740993.0000000000000000001",
    b"9007199254740995", b"18446744073709551615", b"18446744073709551616",
    b"123456789012345678901234567890", b"0.1", b"0.2", b"0.3",
    b"0.1000000000000000055511151231257827021181583404541015625",
    b"0.1000000000000000055511151231257827021181583404541015624",
    b"0.1000000000000000055511151231257827021181583404541015626",
    b"1.00000000000000011102230246251565404236316680908203125",
    b"1.000000000000000111022302462515654042363166809082031249999",
    b"1.000000000000000111022302462515654042363166809082031250001",
    b"3.14159265358979323846264338327950288", b"1e22", b"1e23", b"9.999999999999999e22",
    b"123456789e-22", b"1234567890123456789e-30", b"0.000000000000000000000000000001",
    b"00000000000000000000000000000000000001", b"1" + b"0" * 400, b"0." + b"0" * 400 + b"1",
    b"1" + b"0" * 400 + b"e-400", b"0." + b"0" * 400 + b"1e400",
    b"inf", b"-inf", b"+inf", b"INF", b"Inf", b"infinity", b"-Infinity", b"INFINITY", b"iNfInItY",
    # refused
    b"", b"+", b"-", b".", b"+.", b"e5", b".e5", b"1e", b"1e+", b"1e-", b"1.2.3", b"--1", b"+-1",
    b"1..2", b"0x10", b"0X1p3", b"1_0", b"1,5", b"1 ", b" 1", b"nan", b"NaN", b"-nan", b"+NAN",
    b"nan(1)", b"in", b"infin", b"infinit", b"infinityy", b"info", b"-", b"1e5.5", b"1d5", b"1f",
    b"\xef\xbc\x91", b"\x001", b"1\x00", b"NULL", b"N/A", b"null", b"NA", b"#N/A", b"1e5e5",
]


@pytest.mark.parametrize("text", SCORE_CASES)
def test_parse_score_cases(text):
    check_score(text)


def test_parse_score_refusals_are_the_rules():
    assert _scan.parse_score(b"nan") is None
    assert _scan.parse_score(b"1e") is None
    assert _scan.parse_score(b"1e999") == math.inf
    assert _scan.parse_score(b"-Infinity") == -math.inf
    assert bits(_scan.parse_score(b"-0")) == bits(-0.0)
    assert bits(_scan.parse_score(b"1e-400")) == bits(0.0)
    assert _scan.parse_score(b"4.9e-324") == 5e-324


digits = st.text("0123456789", max_size=30)
score_texts = st.builds(
    lambda sign, whole, frac, exp: sign + whole + frac + exp,
    st.sampled_from(["", "+", "-"]),
    digits,
    st.one_of(st.just(""), st.builds(lambda f: "." + f, digits)),
    st.one_of(
        st.just(""),
        st.builds(lambda e, s, n: e + s + str(n), st.sampled_from("eE"),
                  st.sampled_from(["", "+", "-"]),
                  st.one_of(st.integers(0, 30), st.integers(280, 345), st.integers(0, 10**6))),
    ),
).filter(lambda t: any(c.isdigit() for c in t.split("e")[0].split("E")[0]))


@SETTINGS
@given(st.lists(score_texts, min_size=1, max_size=60))
def test_parse_score_grammar(texts):
    """Every form of [+-]digits[.digits][e[+-]digits]: bit for bit Python's float
    (correctly rounded) and pyarrow's conversion."""
    raw = [t.encode() for t in texts]
    for t, arrow in zip(raw, arrow_floats(raw)):
        want = float(t)
        got = _scan.parse_score(t)
        assert got is not None, t
        assert bits(got) == bits(want), (t, got.hex(), want.hex())
        assert arrow is not None and bits(arrow) == bits(want), (t, arrow, want.hex())


doubles = st.floats(allow_nan=False, allow_infinity=False)


def _halfway(x: float, above: bool, nudge: int, extra: int) -> str:
    """The exact decimal midpoint between |x| and the next double, nudged by a
    tiny amount (nudge -1/0/+1 at the ``extra``-th digit beyond the exact expansion)."""
    x = abs(x)
    y = math.nextafter(x, math.inf if above else 0.0)
    if math.isinf(y):
        y = x
    with localcontext() as ctx:
        ctx.prec = 2000  # exact: a midpoint has at most ~770 significant digits
        mid = (Decimal(x) + Decimal(y)) / 2
        if nudge and mid:
            mid += Decimal(nudge) * Decimal(10) ** (mid.adjusted() - 800 - extra)
        return format(mid, "f") if abs(mid.adjusted()) < 40 else format(mid, "e")


@SETTINGS
@given(st.lists(st.tuples(doubles, st.booleans(), st.sampled_from([-1, 0, 1]),
                          st.integers(0, 20), st.sampled_from(["repr", ".17e", ".25g", "half"])),
                min_size=1, max_size=30))
def test_parse_score_round_trips_and_halfway_cases(cases):
    """Shortest repr, 17 and 25 significant digits, exact and nudged midpoints
    between adjacent doubles (round half to even), subnormals included."""
    texts = []
    for x, above, nudge, extra, form in cases:
        if form == "half":
            texts.append(_halfway(x, above, nudge, extra))
        elif form == "repr":
            texts.append(repr(x))
        else:
            texts.append(format(x, form))
    raw = [t.encode() for t in texts]
    for t, arrow in zip(raw, arrow_floats(raw)):
        want = float(t)
        got = _scan.parse_score(t)
        assert got is not None and bits(got) == bits(want), (t, got, want.hex())
        assert arrow is not None and bits(arrow) == bits(want), (t, arrow, want.hex())


@SETTINGS
@given(st.lists(st.binary(max_size=12) | st.text("0123456789+-.eEinfatyINFATY _x", max_size=12)
                .map(str.encode), min_size=1, max_size=80))
def test_parse_score_accepts_exactly_the_rule(texts):
    for t in texts:
        check_score(t)


# ------------------------------------------------------------------ generated collections

QUERY_IDS = ["q1", "q2", "q10", "1", "é", "中", "q\x0bv", "Q1", "😀", "NULL", "q\u2028"]
UNKNOWN_IDS = ["u1", "q3", "q1x", "中文", "q\x0c"]
TRICKY_DOCS = [
    "d1", "d10", "d1x", "d", "D1", "d2", "a", "b", "z",
    "abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefghi", "abcdefgi",
    "abcdefghijklmnop", "abcdefghijklmnop1", "abcdefghijklmnop2", "abcdefghijklmnoq",
    "é", "é1", "e", "ê", "中文", "中文2", "中", "😀", "😀😀", "\U0010ffff",
    "d\x0bx", "d\x0c", "d\x0b", "#d", "d#", "x" * 201, "x" * 201 + "y", "x" * 200 + "w",
    "y" * 300, "n\x00", "\x7f", '"d"', "d\\", "d\x1c", "d\u2028", "d\x85", "'", "d,1", "NULL",
    "nan", "NA",
]
# one width (the Python reader's packed keys), and one length but wide variety
UNIFORM_DOCS = [f"D{i:04d}" for i in range(0, 3000, 37)]

VALUES = {  # several spellings of one double: ties across spellings
    "1": ["1", "1.0", "+1", "1e0", "10e-1", ".1e1", "1.", "01", "1.000000000000000000001"],
    "2": ["2", "2.0", "0.2e1", "2e+0"],
    "0.5": ["0.5", ".5", "5e-1", "5E-1", "0.50000000000000000000001"],
    "0": ["0", "-0", "0.0", "+0", "0e10", "-0.0", "1e-400", "-1e-400"],
    "inf": ["inf", "Infinity", "+INF", "1e999"],
    "-inf": ["-inf", "-Infinity", "-1e999"],
    "1.5": ["1.5", "15e-1"],
    "0.1": ["0.1", "0.1000000000000000055511151231257827"],
    "3": ["3", "3e0"],
    "-1": ["-1", "-1.0", "-1e0"],
    "tiny": ["1e-320", "0.00000000001e-309"],
    "big": ["1e300", "1E+300"],
    "long": ["0.30000000000000004", "0.300000000000000044408920985006261616945"],
}

SEPARATORS = [" ", " ", " ", "\t", "  ", " \t", "\t\t ", " \r ", "\r", " " * 15, " " * 16,
              " " * 17, "\t" * 31]
LEADS = ["", "", "", " ", "\t", " \t  ", " " * 15, "\r"]
TRAILS = ["", "", "", " ", "\t", "\r", " \r", " " * 16]
BLANKS = ["", " ", "\t", "\r", "  \t "]
COMMENTS = ["#", "# comment", "  # q1 Q0 d1 1 1 r", "\t#x", "#\xff\xfe", "#" * 40]
RANKS = ["1", "0", "x", "-5", "1.5", "\xff", "99999999999999999999"]


@dataclass
class RunSpec:
    name: str
    lines: list  # (query, doc, score text) in file order
    six: bool
    tag: str


@st.composite
def collections(draw):
    """Qrels and 1-3 runs of valid content (tricky ids, tied scores in several
    spellings, queries the qrels lack, any order)."""
    pool = draw(st.sampled_from(["tricky", "tricky", "uniform"]))
    docs = TRICKY_DOCS if pool == "tricky" else UNIFORM_DOCS
    doc_st = st.sampled_from(docs)
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    qrels = {}
    for q in queries:
        judged = draw(st.lists(doc_st, min_size=1, max_size=12, unique=True))
        qrels[q] = {d: draw(st.sampled_from([-2, -1, 0, 0, 1, 1, 2, 3])) for d in judged}
    value_keys = draw(st.lists(st.sampled_from(sorted(VALUES)), min_size=1, max_size=5,
                               unique=True))
    n_runs = draw(st.integers(1, 3))
    runs = []
    for r in range(n_runs):
        run_queries = draw(st.lists(st.sampled_from(QUERY_IDS + UNKNOWN_IDS), min_size=1,
                                    max_size=5, unique=True))
        lines = []
        for q in run_queries:
            known = list(qrels.get(q, {}))
            size = draw(st.sampled_from([6, 15, 15, 40]))  # > 16: the merge sorts
            mine = draw(st.lists(st.sampled_from(known) | doc_st if known else doc_st,
                                 min_size=1, max_size=size, unique=True))
            for d in mine:
                if draw(st.integers(0, 9)) == 0:
                    score = repr(draw(st.floats(allow_nan=False, width=16)))
                else:
                    score = draw(st.sampled_from(VALUES[draw(st.sampled_from(value_keys))]))
                lines.append((q, d, score))
        order = draw(st.sampled_from(["file", "sorted", "ascending", "shuffled", "interleaved"]))
        if order == "sorted":
            lines.sort(key=lambda x: (run_queries.index(x[0]), -float(x[2])))
        elif order == "ascending":
            lines.sort(key=lambda x: (run_queries.index(x[0]), float(x[2])))
        elif order in ("shuffled", "interleaved"):
            lines = draw(st.permutations(lines))
        runs.append(RunSpec(f"run{r}", lines, draw(st.booleans()), f"tag{r}"))
    return qrels, runs


@st.composite
def styles(draw):
    """How a run file is written: separators, blanks, comments, CR/LF, BOM, gzip."""
    return {
        "seps": draw(st.lists(st.sampled_from(SEPARATORS), min_size=1, max_size=4)),
        "lead": draw(st.lists(st.sampled_from(LEADS), min_size=1, max_size=3)),
        "trail": draw(st.lists(st.sampled_from(TRAILS), min_size=1, max_size=3)),
        "crlf": draw(st.sampled_from([0.0, 0.0, 0.5, 1.0])),
        "noise": draw(st.sampled_from([0.0, 0.0, 0.2, 0.5])),
        "bom": draw(st.booleans()),
        "final_newline": draw(st.booleans()),
        "gz": draw(st.sampled_from([False, False, False, True])),
        "q0": draw(st.sampled_from(["Q0", "0", "q\xff"])),
    }


def render(spec: RunSpec, style: dict, rnd: random.Random, use_tag: bool) -> bytes:
    """The bytes of a run file holding ``spec.lines`` in the given style."""
    out = [b"\xef\xbb\xbf"] if style["bom"] else []

    def enc(s: str) -> bytes:
        return s.encode("utf-8", "surrogateescape") if "\xff" not in s else \
            s.replace("\xff", "").encode() + b"\xff"

    for k, (q, d, score) in enumerate(spec.lines):
        while rnd.random() < style["noise"]:
            noise = rnd.choice([rnd.choice(BLANKS), rnd.choice(COMMENTS)])
            out.append(enc(noise) + (b"\r\n" if rnd.random() < style["crlf"] else b"\n"))
        tag = spec.tag if use_tag else rnd.choice([spec.tag, "other", "\xff"])
        fields = [q, style["q0"], d, rnd.choice(RANKS), score] + ([tag] if spec.six else [])
        line = enc(rnd.choice(style["lead"]))
        for i, f in enumerate(fields):
            if i:
                line += enc(rnd.choice(style["seps"]))
            line += enc(f)
        line += enc(rnd.choice(style["trail"]))
        last = k == len(spec.lines) - 1
        if not (last and not style["final_newline"]):
            line += b"\r\n" if rnd.random() < style["crlf"] else b"\n"
        out.append(line)
    return b"".join(out)


_TMP = tempfile.TemporaryDirectory(prefix="irpref-test-scan-")


def fresh_dir() -> Path:
    return Path(tempfile.mkdtemp(dir=_TMP.name))


def write_collection(qrels, runs, style, rnd, use_tag) -> tuple[Path, list[Path], list]:
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(qrels))
    paths, named = [], []
    for spec in runs:
        name = spec.tag if use_tag and spec.six else spec.name
        fname = f"input.{spec.name}.gz" if style["gz"] else f"input.{spec.name}.txt"
        paths.append(write(d, fname, render(spec, style, rnd, use_tag)))
        named.append((name, spec.lines))
    return qpath, paths, named


TIE_POLICIES = ("docid", "input", "expected")
DEPTHS = (None, 1, 2, 3, 5, 1000)


@pytest.mark.slow
@SETTINGS
@given(collections(), styles(), st.randoms(use_true_random=False),
       st.sampled_from(TIE_POLICIES), st.sampled_from(DEPTHS), st.booleans())
def test_generated_runs_match_the_oracle(coll, style, rnd, ties, depth, use_tag):
    """C pass == Python reader == brute force, on valid files of every shape."""
    qrels, runs = coll
    qpath, paths, named = write_collection(qrels, runs, style, rnd, use_tag)
    for p in paths:  # the C pass read every file itself (no fallback)
        assert c_code(qpath, p, ties=ties, depth=depth, use_tag=use_tag) == 0, p.read_bytes()
    out = judge_both(qpath, paths, ties=ties, depth=depth, use_tag=use_tag)
    assert_oracle(out, oracle(qrels, named, ties, depth))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(collections(), styles(), st.randoms(use_true_random=False),
       st.sampled_from(TIE_POLICIES), st.sampled_from(DEPTHS))
def test_generated_runs_give_the_same_measures(coll, style, rnd, ties, depth):
    """AP, nDCG, RR, P, R, ... on the C pass's compact layout, the Python
    reader's and the full layout: equal (the tie-aware kernels under expected)."""
    qrels, runs = coll
    runs = [r for r in runs if any(q in qrels for q, _, _ in r.lines)]  # others: refused
    assume(runs)
    qpath, paths, _ = write_collection(qrels, runs, style, rnd, False)
    measures_agree(qpath, paths, ties=ties, depth=depth)


# ------------------------------------------------------------------ explicit shapes

QRELS = {"q1": {"d1": 1, "d10": 0, "d1x": 2, "d2": -1, "abcdefghX": 1, "abcdefghY": 0},
         "q2": {"d1": 2, "d3": 1}}


def check_file(data: bytes, qrels=QRELS, lines=None, *, name="run.txt", depths=DEPTHS,
               use_tag=False, measures=False):
    """One run file through both paths and the oracle, for every tie policy and depth."""
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(qrels))
    path = write(d, name, data)
    for ties in TIE_POLICIES:
        for depth in depths:
            assert c_code(qpath, path, ties=ties, depth=depth, use_tag=use_tag) == 0
            out = judge_both(qpath, [path], ties=ties, depth=depth, use_tag=use_tag)
            if lines is not None:
                run_name = out.judged.run_names[0]
                assert_oracle(out, oracle(qrels, [(run_name, lines)], ties, depth))
            if measures and depth in (None, 2):
                measures_agree(qpath, [path], ties=ties, depth=depth, use_tag=use_tag)


def lines_of(text: str) -> list:
    """(query, doc, score) of the data lines of a well-formed run text."""
    out = []
    for line in text.splitlines():
        tokens = line.split()
        if tokens and not tokens[0].startswith("#"):
            out.append((tokens[0], tokens[2], tokens[4]))
    return out


def test_whole_queries_tied_and_ties_across_judged_and_unjudged():
    text = "".join(f"q1 Q0 {d} 1 5 r\n" for d in
                   ["u9", "d1", "u1", "d10", "abcdefghY", "d1x", "u5", "d2", "abcdefghX", "zz"])
    text += "q2 Q0 d3 1 2 r\nq2 Q0 u 2 2 r\nq2 Q0 d1 3 2 r\n"
    check_file(text.encode(), lines=lines_of(text), depths=(None, 1, 2, 3, 4, 7, 9, 10, 11),
               measures=True)


def test_integer_and_one_decimal_scores_with_many_ties():
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(60)]
    qrels = {"q1": {d: int(rng.integers(-1, 3)) for d in docs[::2]},
             "q2": {d: int(rng.integers(0, 3)) for d in docs[::3]}}
    for fmt in ("{:.0f}", "{:.1f}"):
        text = "".join(f"{q} Q0 {d} 0 {fmt.format(rng.integers(0, 5) / (10 if '.1' in fmt else 1))}"
                       f" r\n" for q in ("q2", "q1") for d in rng.permutation(docs))
        check_file(text.encode(), qrels, lines_of(text), depths=(None, 1, 2, 7, 30, 59, 60, 61))


def test_depth_cuts_through_tie_groups():
    # groups: [5 5 5] [4 4 4 4] [3]: depth 1, 2 inside the first, 5 inside the second
    text = ("q1 Q0 u1 1 5 r\nq1 Q0 d1 2 5 r\nq1 Q0 d10 3 5 r\n"
            "q1 Q0 d2 4 4 r\nq1 Q0 u2 5 4 r\nq1 Q0 d1x 6 4 r\nq1 Q0 abcdefghX 7 4 r\n"
            "q1 Q0 abcdefghY 8 3 r\n")
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    path = write(d, "run", text.encode())
    out = judge_both(qpath, [path], ties="expected", depth=5)
    j = out.judged
    # docid order: u1 d10 d1 | u2 d2 d1x abcdefghX | abcdefghY; depth 5 keeps ranks 0-4
    assert j.seg_num_ret.tolist() == [5, 0]
    assert j.item_rank.tolist() == [1, 2, 4]
    assert j.tie_first.tolist() == [0, 0, 3]
    assert j.tie_size.tolist() == [3, 3, 2]  # the 4-group holds 2 items within the depth
    check_file(text.encode(), lines=lines_of(text), depths=(None, 1, 2, 3, 4, 5, 6, 7, 8, 9))


def test_large_tie_groups_and_unsorted_queries():
    """Tie groups beyond the counting shortcut (size x judged > 256) and beyond
    insertion sort (> 16), scores out of order, ids sharing 8- and 16-byte prefixes."""
    rng = np.random.default_rng(11)
    docs = [f"abcdefgh{i:03d}" for i in range(150)] + [f"abcdefghijklmnop{i}" for i in range(150)]
    qrels = {"q1": {d: int(rng.integers(0, 3)) for d in docs[::3]},
             "q2": {d: 1 for d in docs[:40]}}
    lines = []
    for d in rng.permutation(docs):
        lines.append(("q1", str(d), "1"))
    for d in rng.permutation(docs):
        lines.append(("q2", str(d), str(int(rng.integers(0, 40)))))
    for d in rng.permutation(docs)[:50]:
        lines.append(("q3", str(d), "0"))
    order = rng.permutation(len(lines))
    lines = [lines[i] for i in order]  # interleaved queries, scores unsorted
    text = "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s in lines)
    check_file(text.encode(), qrels, lines, depths=(None, 1, 17, 100, 299, 300, 301))


def test_many_tie_groups_out_of_docid_order():
    """Thousands of tie groups listed in ascending id order (the docid tie-break
    reverses every one): ids of one width whose packed keys span ~2**52 (the
    Python reader sorts such groups chunk by chunk)."""
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyz"
    qrels, lines = {}, []
    for i in range(3000):
        a, b, c = sorted("".join(rng.choice(letters) for _ in range(11)) for _ in range(3))
        qrels[f"q{i}"] = {a: 1, b: 2}
        s = str(rng.randrange(3))
        lines += [(f"q{i}", a, s), (f"q{i}", b, s), (f"q{i}", c, s)]
    text = "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s in lines)
    check_file(text.encode(), qrels, lines, depths=(None,))


def test_id_shapes():
    ids = ["d1", "d10", "d1x", "d", "x", "abcdefgh1", "abcdefgh2", "abcdefghijklmnop1",
           "abcdefghijklmnop2", "abcdefghijklmnopq", "é", "éé", "中文", "中文字", "😀", "😀x",
           "d\x0b", "d\x0c1", "\x0b", "k" * 250, "k" * 250 + "a", "k" * 249 + "b", "n\x00", "#"]
    qrels = {"q1": {d: i % 3 for i, d in enumerate(ids[::2])},
             "é": {d: 1 for d in ids[1::2]}, "中": {"k" * 250: 2}}
    lines = [(q, d, s) for q in ("é", "q1", "中", "😀") for d, s in zip(ids, "1" * 12 + "2" * 12)]
    text = "".join(f"{q} Q0 {d} 9 {s} r\n" for q, d, s in lines)
    check_file(text.encode(), qrels, lines, measures=True)


def test_token_boundaries_at_every_offset():
    """The splitter reads 16-byte chunks: a token and a line may start and end at
    any offset mod 16, lines may be longer than 16, 64 and 256 bytes."""
    qrels = {"q": {f"d{'x' * n}": n % 4 for n in range(0, 70, 3)}}
    lines, text, seen = [], [], set()
    k = 0
    for lead in range(0, 19):
        for n in range(0, 70):
            doc = f"d{'x' * n}"
            q = "q" if n % 2 else "q" + "y" * (lead % 5)
            gap = " " * (1 + (lead + n) % 17)
            tail = " " * ((lead * n) % 19)
            tag = "t" * (1 + (k % 33))
            score = str((n * 7 + lead) % 5)
            if (q, doc) in seen:
                continue
            seen.add((q, doc))
            lines.append((q, doc, score))
            text.append(f"{' ' * lead}{q}{gap}Q0{gap}{doc}\t{k}{gap}{score}{gap}{tag}{tail}\n")
            k += 1
    data = "".join(text).encode()
    check_file(data, qrels, lines, depths=(None, 5))
    check_file(data.rstrip(b"\n"), qrels, lines, depths=(None,))
    check_file(data.replace(b"\n", b"\r\n"), qrels, lines, depths=(None,))


def test_last_token_ends_at_every_offset_without_final_newline():
    d = fresh_dir()
    qpath = write(d, "qrels", b"q 0 d 1\n")
    with scan_mode("c"):
        capsule = scan.QrelsIndex(read_qrels(str(qpath))).capsule
    for lead in (0, 5, 16):
        for n in range(1, 300):
            data = f"{' ' * lead}q Q0 d 1 1 {'t' * n}".encode()
            out = _scan.judge(data, capsule, 0, 0, True)
            assert out[0] == 0 and out[-1] == b"t" * n
            assert np.frombuffer(out[3], np.int32).tolist() == [0]
            assert _scan.judge(data + b"\n", capsule, 0, 0, True)[-1] == b"t" * n
            assert _scan.judge(data + b" x", capsule, 0, 0, True)[0] != 0  # 7 fields
            score = data[: -n - 1] + b"1" * n  # 5 fields, the score last
            assert _scan.judge(score, capsule, 0, 0, True)[0] == 0
    path = write(d, "r", b"q Q0 d 1 1 " + b"t" * 100)
    assert judge_both(qpath, [path], use_tag=True).judged.run_names == ["t" * 100]


STRUCTURE_CASES = {
    "tabs": b"q1\tQ0\td1\t1\t1\tr\nq1\t\tQ0  d2 2\t0.5 r\n",
    "crlf": b"q1 Q0 d1 1 1 r\r\nq1 Q0 d2 2 2 r\r\n",
    "cr separators": b"q1\rQ0\rd1\r1\r1\rr\r\n",
    "multiple spaces": b"q1    Q0  d1   1     1          r\n",
    "leading blanks": b"   \t q1 Q0 d1 1 1 r\n\t\tq1 Q0 d2 1 3 r\n",
    "trailing blanks": b"q1 Q0 d1 1 1 r   \t\r\nq1 Q0 d2 1 3 r \n",
    "blank lines": b"\n\n  \n\t\nq1 Q0 d1 1 1 r\n\n\r\n\nq1 Q0 d2 1 3 r\n\n\n",
    "comments": b"# header\nq1 Q0 d1 1 1 r\n  # q1 Q0 d2 1 3 r\n\t#\nq1 Q0 d#2 1 3 r#\n#",
    "hash data": b"q1 Q0 #d 1 1 #r\nq1 Q0 d# 1 1 r#\n",
    "bom": b"\xef\xbb\xbfq1 Q0 d1 1 1 r\n",
    "two boms": b"\xef\xbb\xbf\xef\xbb\xbfq1 Q0 d1 1 1 r\n",
    "bom after blank lines": b"\n\n\xef\xbb\xbfq1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 r\n",
    "bom inside": b"q1 Q0 d1 1 1 r\n\xef\xbb\xbfq1 Q0 d2 1 1 r\n",
    "no final newline": b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 3 r",
    "5 fields": b"q1 Q0 d1 1 1\nq1 Q0 d2 2 2\n",
    "5 fields no newline": b"q1 Q0 d1 1 1",
    "rank ignored": b"q1 Q0 d1 3 1 r\nq1 Q0 d2 abc 2 r\nq1 Q0 d10 -1 2 r\n",
    "interleaved": b"q2 Q0 d1 1 1 r\nq1 Q0 d1 1 1 r\nq2 Q0 d3 1 2 r\nq1 Q0 d1x 1 2 r\n",
    "queries out of order": b"q2 Q0 d1 1 1 r\nq2 Q0 d3 1 2 r\nq1 Q0 d1x 1 2 r\n",
    "ascending scores": b"q1 Q0 d1 1 1 r\nq1 Q0 d10 1 2 r\nq1 Q0 d1x 1 3 r\nq1 Q0 d2 1 4 r\n",
    "vt and ff are data": b"q1 Q0 d1\x0b 1 1 r\nq1 Q0 \x0cd1 1 1 r\nq1 Q0 d1 1 1 r\x0c\n",
    "nul is data": b"q1 Q0 d1\x00 1 1 r\nq1 Q0 d1 1 1 r\n",
    "invalid utf-8 in ignored columns": b"q1 \xff d1 \xc0\xaf 1 r\xed\xa0\x80\n",
    "doc in two queries": b"q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\nq9 Q0 d1 1 1 r\n",
    "unknown query": b"q9 Q0 d1 1 1 r\nq1 Q0 d1 1 1 r\nq8 Q0 x 1 1 r\nq9 Q0 d2 1 1 r\n",
    "long ids": b"q1 Q0 " + b"d" * 300 + b" 1 1 r\nq1 Q0 " + b"d" * 301 + b" 1 1 r\n",
    "one-byte ids": b"q Q0 d 1 1 r\n1 Q0 2 3 4 5\n",
}


@pytest.mark.parametrize("case", sorted(STRUCTURE_CASES))
def test_file_structure(case):
    check_file(STRUCTURE_CASES[case], depths=(None, 2))


@pytest.mark.parametrize("case", ["tabs", "blank lines", "comments", "no final newline",
                                  "5 fields"])
def test_file_structure_gzip(case):
    check_file(STRUCTURE_CASES[case], name="run.gz", depths=(None,))


def test_use_tag_names_the_run():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    a = write(d, "a.txt", b"q1 Q0 d1 1 1 alpha\nq1 Q0 d2 1 1 alpha\n")
    b = write(d, "b.txt.gz", b"q1 Q0 d1 1 1 \xc3\xa9t\xc3\xa9\n")
    c = write(d, "input.c.run", b"q1 Q0 d1 1 1\n")  # 5 fields: named by its file
    out = judge_both(qpath, [a, b, c], use_tag=True)
    assert out.judged.run_names == ["alpha", "été", "c"]
    out = judge_both(qpath, [a, b, c])
    assert out.judged.run_names == ["a", "b", "c"]


def test_unknown_queries_warn_identically():
    d = fresh_dir()
    qpath = write(d, "qrels", b"q1 0 d1 1\nq2 0 d1 0\n")
    runs = [write(d, f"r{i}", "".join(f"{q} Q0 d1 1 1 r\n" for q in qs).encode())
            for i, qs in enumerate([["q1", "z", "é", "a1", "a2"], ["q2", "z"], ["q1"],
                                    ["zz", "中", "😀", "q\x0b"]])]
    out = judge_both(qpath, runs[:3])
    assert len(out.warned) == 1
    assert out.warned[0].startswith("4 queries absent from the qrels ignored in 2 runs")
    # every query unknown: the run is refused, alike in both paths
    out = judge_both(qpath, runs)
    assert out.error[0] == "InputError"
    assert out.error[1].startswith("run r3: it shares no query with the qrels")


def test_qrels_queries_the_run_lacks_and_grades_below_one():
    qrels = {"q1": {"d1": -3, "d2": 0, "d3": 0, "d4": 1}, "q2": {"d1": 1}, "q3": {"x": 0}}
    text = "q1 Q0 d1 1 3 r\nq1 Q0 d2 1 2 r\nq1 Q0 d5 1 2 r\nq1 Q0 d4 1 1 r\n"
    check_file(text.encode(), qrels, lines_of(text), measures=True)


def test_large_file_read_through_a_memory_map():
    """A file of 1 MB or more is mapped, not copied (irpref.io.lines.read_buffer)."""
    rng = np.random.default_rng(3)
    docs = [f"doc{i:05d}" for i in range(4000)]
    queries = [f"q{i}" for i in range(12)]
    qrels = {q: {d: int(rng.integers(-1, 3)) for d in rng.choice(docs, 200, replace=False)}
             for q in queries[:10]}
    lines = [(q, d, str(int(rng.integers(0, 50)))) for q in queries for d in docs]
    text = "".join(f"{q} Q0 {d} 0 {s} run\n" for q, d, s in lines)
    data = text.encode()[:-1]  # no final newline at the end of the map
    assert len(data) >= 1 << 20
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(qrels))
    path = write(d, "big.run", data)
    for ties, depth in [("docid", None), ("input", 100), ("expected", 1000)]:
        assert c_code(qpath, path, ties=ties, depth=depth) == 0
        out = judge_both(qpath, [path], ties=ties, depth=depth)
        assert_oracle(out, oracle(qrels, [("big", lines)], ties, depth))
    # tabs and CRLF: the Python reader normalises the map
    path = write(d, "big.run", data.replace(b" ", b"\t").replace(b"\n", b"\r\n"))
    out = judge_both(qpath, [path], ties="docid", depth=None)
    assert_oracle(out, oracle(qrels, [("big", lines)], "docid", None))


def _colliding_ids(first: bytes, count: int, seed: int = 0) -> list[str]:
    """16-byte printable ids whose hash in the C pass (``_scan.hash_id``) equals
    that of ``first``: the hash is mix64(A(u) ^ mix64(B(v))) of the two 8-byte
    words u, v, with A invertible, so for a random second word v' the first
    word u' = A^-1(A(u) ^ mix64(B(v)) ^ mix64(B(v'))); kept when printable."""
    m = (1 << 64) - 1
    k1, k2 = 0x100000001B3, 0x9FB21C651E98DF25

    def mix64(h: int) -> int:
        h ^= h >> 33
        h = (h * 0xFF51AFD7ED558CCD) & m
        h ^= h >> 33
        h = (h * 0xC4CEB9FE1A85EC53) & m
        return h ^ (h >> 33)

    def lane_b(v: int) -> int:
        b = ((0xC2B2AE3D27D4EB4F ^ v) * k2) & m
        return b ^ (b >> 31)

    seed_a = 0x9E3779B97F4A7C15 ^ 16
    u = int.from_bytes(first[:8], "little")
    a = ((seed_a ^ u) * k1) & m
    target = (a ^ (a >> 29)) ^ mix64(lane_b(int.from_bytes(first[8:], "little")))
    inverse = pow(k1, -1, 1 << 64)
    rng, out = random.Random(seed), [first.decode()]
    while len(out) < count:
        tail = bytes(rng.randrange(0x21, 0x7F) for _ in range(8))
        y = target ^ mix64(lane_b(int.from_bytes(tail, "little")))
        x = y ^ (y >> 29) ^ (y >> 58)  # undo a ^= a >> 29
        head = (((x * inverse) & m) ^ seed_a).to_bytes(8, "little")
        if all(0x21 <= c < 0x7F for c in head):
            out.append((head + tail).decode())
    return out


# ids of 16 bytes whose hashes in the C pass coincide, and short ids besides
COLLIDING = _colliding_ids(b"abcdefghijklmnop", 4)
COLLIDING_16 = _colliding_ids(b"0123456789ABCDEF", 3, seed=1)


def test_hash_collisions_are_confirmed_byte_for_byte():
    for group in (COLLIDING, COLLIDING_16):
        hashes = {_scan.hash_id(d.encode()) for d in group}
        assert len(hashes) == 1 and len(set(group)) == len(group)
    ids = COLLIDING + COLLIDING_16
    qrels = {"q1": {d: i % 3 for i, d in enumerate(ids[::2])}, "a": {ids[1]: 1, ids[0]: 2},
             "b\x00": {"a": 1}}
    lines = [(q, d, str(k % 2)) for q in ("q1", "a", "b\x00", "c\x00\x00") for k, d in
             enumerate(ids)]
    random.Random(1).shuffle(lines)
    text = "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s in lines)
    check_file(text.encode(), qrels, lines, depths=(None, 3))
    a, b = COLLIDING[0], COLLIDING[1]
    for repeat in (f"q1 Q0 {a} 1 1 r\nq1 Q0 {b} 1 1 r\nq1 Q0 {a} 1 1 r\n",
                   f"zz Q0 {a} 1 1 r\nzz Q0 {b} 1 1 r\nzz Q0 {a} 1 1 r\n",
                   f"{a} Q0 {COLLIDING_16[0]} 1 1 r\n{a} Q0 {COLLIDING_16[1]} 1 1 r\n"
                   f"{a} Q0 {COLLIDING_16[0]} 1 1 r\n"):
        d = fresh_dir()
        qpath = write(d, "qrels", qrels_bytes(qrels))
        path = write(d, "r", repeat.encode())
        out = judge_both(qpath, [path])
        assert out.error is not None and out.error[1].startswith(f"{path}:3: document ")


def test_many_unknown_queries_and_many_queries():
    rng = random.Random(2)
    qrels = {f"q{i}": {f"d{j}": (i + j) % 3 for j in range(3)} for i in range(300)}
    lines = [(f"{p}{i}", f"d{j}", str(rng.randrange(3))) for i in range(400) for j in range(4)
             for p in ("q", "u")]
    rng.shuffle(lines)
    text = "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s in lines)
    check_file(text.encode(), qrels, lines, depths=(None, 2))
    bad = text + "u399 Q0 d3 1 1 r\n"  # a repeat in the last unknown query
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(qrels))
    out = judge_both(qpath, [write(d, "r", bad.encode())])
    assert out.error is not None and "retrieved twice for query 'u399'" in out.error[1]


def test_environment_variable():
    for value, on in (("c", True), ("", True), (" C ", True), ("python", False),
                      ("PYTHON", False)):
        with scan_mode(value):
            assert scan.enabled() is on
    with scan_mode("fortran"), pytest.raises(ValueError, match="IRPREF_SCAN must be"):
        scan.enabled()


def test_path_objects_and_strings_alike():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    path = write(d, "r.run", b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 r\n")
    with scan_mode("c"):
        assert scan.takes([path]) and scan.takes([str(path)])
        a = judge_inputs(qpath, [path], layout="compact")
    b = judge_both(str(qpath), [str(path)]).judged
    for name in FIELDS[:-3]:
        assert np.array_equal(getattr(a, name), getattr(b, name))


MUTATION_BYTES = [b" ", b"\t", b"\r", b"\n", b"\n\n", b"#", b"\xff", b"\xc0", b"\xed\xa0",
                  b".", b"e", b"-", b"+", b"0", b"9", b"n", b"a", b"i", b"x", b"d1", b"\x0b",
                  b"\x00", b"\xc3\xa9", b"Q0", b" x", b"q1 Q0 d1 1 1 r\n"]


@pytest.mark.slow
@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(collections(), styles(), st.randoms(use_true_random=False), st.booleans(),
       st.lists(st.tuples(st.floats(0, 1), st.integers(0, 3), st.sampled_from(MUTATION_BYTES)),
                min_size=1, max_size=4),
       st.sampled_from(TIE_POLICIES), st.sampled_from((None, 2)))
def test_mutated_files_give_the_same_outcome(coll, style, rnd, use_tag, edits, ties, depth):
    """Valid files with bytes inserted, deleted or replaced: the same error, or
    the same numbers, through both paths (and the C pass refuses nothing the
    Python reader reads, or reads the same thing)."""
    qrels, runs = coll
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(qrels))
    data = render(runs[0], dict(style, bom=False), rnd, use_tag)
    for where, delete, piece in edits:
        at = int(where * len(data))
        data = data[:at] + piece + data[at + delete:]
    paths = [write(d, "mutated.run", data)]
    if len(runs) > 1:
        paths.append(write(d, "second.run", render(runs[1], dict(style, bom=False), rnd,
                                                   use_tag)))
    judge_both(qpath, paths, ties=ties, depth=depth, use_tag=use_tag)


# ------------------------------------------------------------------ bad input

BAD_CASES = {
    "4 fields": (b"q1 Q0 d1 1\n", {}),
    "7 fields": (b"q1 Q0 d1 1 1 r x\n", {}),
    "1 field": (b"q1 Q0 d1 1 1 r\nq1\n", {}),
    "7 fields later": (b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 r\nq1 Q0 d3 1 1 r x\n", {}),
    "mixed 5 then 6": (b"q1 Q0 d1 1 1\nq1 Q0 d2 1 1 r\n", {}),
    "mixed 6 then 5": (b"q1 Q0 d1 1 1 r\n\n# c\nq1 Q0 d2 1 1\n", {}),
    "cr inside a token": (b"q1 Q0 d\r1 1 1 r\n", {}),
    "score 1.2.3": (b"q1 Q0 d1 1 1.2.3 r\n", {}),
    "score nan": (b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 nan r\n", {}),
    "score NaN": (b"q1 Q0 d1 1 NaN r\n", {}),
    "score -nan": (b"q1 Q0 d1 1 -nan r\n", {}),
    "score 0x10": (b"q1 Q0 d1 1 0x10 r\n", {}),
    "score 1e": (b"q1 Q0 d1 1 1e r\n", {}),
    "score --1": (b"q1 Q0 d1 1 --1 r\n", {}),
    "score +": (b"q1 Q0 d1 1 + r\n", {}),
    "score .": (b"q1 Q0 d1 1 . r\n", {}),
    "score 1_0": (b"q1 Q0 d1 1 1_0 r\n", {}),
    "score NULL": (b"q1 Q0 d1 1 NULL r\n", {}),
    "score N/A": (b"q1 Q0 d1 1 N/A r\n", {}),
    "score header": (b"qid Q0 docno rank score tag\nq1 Q0 d1 1 1 r\n", {}),
    "score infinit": (b"q1 Q0 d1 1 infinit r\n", {}),
    "score fullwidth digit": ("q1 Q0 d1 1 １ r\n".encode(), {}),
    "utf8 query": (b"q\xff Q0 d1 1 1 r\n", {}),
    "utf8 query later": (b"q1 Q0 d1 1 1 r\nq1\xff Q0 d1 1 1 r\n", {}),
    "utf8 doc": (b"q1 Q0 d1 1 1 r\nq1 Q0 d\xe9 1 1 r\n", {}),
    "utf8 tag": (b"q1 Q0 d1 1 1 r\xff\n", {"use_tag": True}),
    "utf8 tag later": (b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 r\xff\n", {"use_tag": True}),
    "overlong": (b"q1 Q0 d\xc0\xaf 1 1 r\n", {}),
    "overlong 3 bytes": (b"q1 Q0 d\xe0\x80\xaf 1 1 r\n", {}),
    "surrogate": (b"q1 Q0 d\xed\xa0\x80 1 1 r\n", {}),
    "surrogate query": (b"\xed\xbf\xbf Q0 d1 1 1 r\n", {}),
    "beyond U+10FFFF": (b"q1 Q0 d\xf4\x90\x80\x80 1 1 r\n", {}),
    "truncated sequence": (b"q1 Q0 d\xe2\x82 1 1 r\n", {}),
    "lone continuation": (b"q1 Q0 \x80d 1 1 r\n", {}),
    "utf8 in a long id": (b"q1 Q0 " + b"d" * 40 + b"\xff" + b"d" * 40 + b" 1 1 r\n", {}),
    "twice": (b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 r\nq1 Q0 d1 1 0 r\n", {}),
    "twice apart": (b"q1 Q0 d1 1 1 r\nq2 Q0 d1 1 1 r\nq1 Q0 d1 1 0 r\n", {}),
    "twice unknown query": (b"q1 Q0 d1 1 1 r\nzz Q0 x 1 1 r\nzz Q0 x 1 0 r\n", {}),
    "twice long id": (b"q1 Q0 " + b"d" * 300 + b" 1 1 r\nq1 Q0 " + b"d" * 300 + b" 1 1 r\n",
                      {}),
    "tags differ": (b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 1 s\n", {"use_tag": True}),
    "tags differ by a prefix": (b"q1 Q0 d1 1 1 run\nq1 Q0 d2 1 1 run1\n", {"use_tag": True}),
    "empty": (b"", {}),
    "only blanks": (b"\n \n\t\r\n", {}),
    "only comments": (b"# a\n  # b\n#", {}),
    "only a bom": (b"\xef\xbb\xbf", {}),
    "bom and comments": (b"\xef\xbb\xbf# x\n", {}),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_gives_the_same_error(case):
    data, kw = BAD_CASES[case]
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    for name, policies in (("bad.run", TIE_POLICIES), ("bad.run.gz", ("docid",))):
        path = write(d, name, data)
        assert c_code(qpath, path, **kw) != 0
        for ties in policies:
            out = judge_both(qpath, [path], ties=ties, **kw)
            assert out.error is not None and out.error[0] == "TrecFormatError"
            assert str(path) in out.error[1]


def test_missing_file_and_directory():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    good = write(d, "good", b"q1 Q0 d1 1 1 r\n")
    out = judge_both(qpath, [good, d / "missing.run"])
    assert out.error == ("TrecFormatError", f"{d / 'missing.run'}: no such file")
    (d / "adir").mkdir()
    out = judge_both(qpath, [d / "adir", good])
    assert out.error[0] == "TrecFormatError" and "is a directory" in out.error[1]


def test_corrupt_gzip():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    path = d / "r.gz"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 1 r\n" * 50)[:-10])
    out = judge_both(qpath, [path])
    assert out.error[0] == "TrecFormatError" and "gzip" in out.error[1]


def test_several_files_first_failing_raises():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    good = [write(d, f"good{i}", f"q1 Q0 d1 1 {i} r\nq2 Q0 d3 1 1 r\n".encode())
            for i in range(10)]
    bad_score = write(d, "bad_score", b"q1 Q0 d1 1 x r\n")
    bad_fields = write(d, "bad_fields", b"q1 Q0 d1 1 1 r\nq1 Q0 d2\n")
    bad_utf8 = write(d, "bad_utf8", b"q1 Q0 d\xff 1 1 r\n")
    for paths, first in [
        ([*good[:3], bad_score, *good[3:], bad_fields], bad_score),
        ([bad_fields, *good, bad_score], bad_fields),
        ([*good, bad_utf8], bad_utf8),
        ([*good[:9], bad_utf8, bad_fields, bad_score], bad_utf8),
    ]:
        out = judge_both(qpath, paths)
        assert out.error is not None and out.error[1].startswith(f"{first}:")
    # eleven runs (more than one block of the Python reader): all judged, in order
    out = judge_both(qpath, [*good, write(d, "last.gz", b"q2 Q0 d1 1 1 r\n")])
    assert out.judged.run_names == [*(f"good{i}" for i in range(10)), "last"]


def test_run_names_must_be_distinct():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    a = write(d, "a.txt", b"q1 Q0 d1 1 1 same\n")
    (d / "sub").mkdir()
    b = write(d, "sub/a.txt", b"q1 Q0 d1 1 2 other\n")
    c = write(d, "c.txt", b"q1 Q0 d1 1 2 same\n")
    out = judge_both(qpath, [a, b])
    assert out.error == ("ValueError", "run names must be distinct; repeated: a")
    out = judge_both(qpath, [a, c], use_tag=True)
    assert out.error == ("ValueError", "run names must be distinct; repeated: same")
    assert judge_both(qpath, [a, c]).judged.run_names == ["a", "c"]


# ------------------------------------------------------------------ discrepancies found


def test_bom_after_a_comment_line():
    d = fresh_dir()
    qpath = write(d, "qrels", b"q1 0 d1 1\n")
    path = write(d, "r", b"# comment\n\xef\xbb\xbfq1 Q0 d1 1 1 r\n")
    out = judge_both(qpath, [path])  # only a BOM at the start of a file is skipped
    assert out.error[0] == "InputError" and "\ufeffq1" in out.error[1]


def test_bom_after_a_comment_line_of_qrels_is_data():
    d = fresh_dir()
    qrels = read_qrels(write(d, "qrels", b"# c\n\xef\xbb\xbfq1 0 d1 1\n"))
    assert qrels.query.to_pylist() == ["\ufeffq1"]


def test_repeat_in_first_file_and_format_error_in_second():
    d = fresh_dir()
    qpath = write(d, "qrels", qrels_bytes(QRELS))
    a = write(d, "a", b"q1 Q0 d1 1 1 r\nq1 Q0 d1 2 0 r\n")
    b = write(d, "b", b"q1 Q0 d1 1 x r\n")
    out = judge_both(qpath, [a, b])  # the first failing file in path order
    assert out.error[0] == "TrecFormatError" and out.error[1].startswith(f"{a}:2:")


@pytest.mark.parametrize("depth", [0, -1, 2.5])
def test_depth_below_one_is_refused_alike(depth):
    d = fresh_dir()
    qpath = write(d, "qrels", b"q1 0 d1 1\nq1 0 d2 1\n")
    path = write(d, "r", b"q1 Q0 d1 1 1 r\nq1 Q0 d2 1 2 r\n")
    out = judge_both(qpath, [path], depth=depth)
    rule = "must be an integer" if isinstance(depth, float) else "must be >= 1"
    assert out.error == ("UsageError", f"depth={depth}: {rule}")  # the rule of irpref.params


def test_no_warning_before_refusing_repeated_run_names():
    d = fresh_dir()
    qpath = write(d, "qrels", b"q1 0 d1 1\n")
    (d / "sub").mkdir()
    a = write(d, "a", b"zz Q0 d1 1 1 r\n")
    b = write(d, "sub/a", b"q1 Q0 d1 1 1 r\n")
    with scan_mode("c"):
        c = outcome(qpath, [a, b])
    with scan_mode("python"):
        p = outcome(qpath, [a, b])
    assert c.error == p.error == ("ValueError", "run names must be distinct; repeated: a")
    assert c.warned == p.warned


# ------------------------------------------------------------------ the command line


def _irpref(args, mode: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, **{scan.ENV: mode})
    # bytes, not text: the C pass and the Python reader are compared byte for byte
    return subprocess.run([irpref_exe(), *map(str, args)], capture_output=True, env=env)


CLI_OPTIONS = [
    (1, ["evaluate", "-m", "AP", "nDCG", "P@10", "--format", "tsv", "--per-query"]),
    (2, ["evaluate", "-m", "AP", "nDCG", "P@10", "--ties", "expected", "--depth", "7"]),
    (3, ["compare", "--ties", "input", "--format", "tsv", "--tag-names"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "command"), CLI_OPTIONS)
def test_cli_output_is_byte_identical(seed, command, tmp_path):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(40)] + ["é", "中文", "d1x", "x" * 70]
    qrels = {f"q{i}": {d: rng.choice([-1, 0, 1, 2]) for d in rng.sample(docs, 15)}
             for i in range(6)}
    qpath = write(tmp_path, "qrels.txt", qrels_bytes(qrels))
    runs = []
    for r in range(3):
        lines = [(f"q{i}", d, rng.choice(["1", "2", "2.0", "0.5", ".5", "-0", "3e0"]))
                 for i in range(7) for d in rng.sample(docs, 20)]
        rng.shuffle(lines)
        text = "".join(f"{q}\t Q0 {d} {k} {s} sys{r}\r\n" for k, (q, d, s) in enumerate(lines))
        runs.append(write(tmp_path, f"input.sys{r}" + (".gz" if r == 2 else ""), text.encode()))
    args = [command[0], qpath, *runs, *command[1:]]
    c, p = _irpref(args, "c"), _irpref(args, "python")
    assert c.returncode == p.returncode == 0, c.stderr
    assert c.stdout == p.stdout and c.stdout
    assert c.stderr == p.stderr and b"1 query absent from the qrels" in c.stderr


@pytest.mark.slow
def test_cli_error_is_byte_identical(tmp_path):
    qpath = write(tmp_path, "qrels.txt", qrels_bytes(QRELS))
    good = write(tmp_path, "good.run", b"q1 Q0 d1 1 1 r\n")
    bad = write(tmp_path, "bad.run", b"q1 Q0 d1 1 1 r\nq1 Q0 d\xff 1 1 r\n")
    c, p = (_irpref(["evaluate", qpath, good, bad, "-m", "AP"], m) for m in ("c", "python"))
    assert c.returncode == p.returncode == 1
    assert c.stdout == p.stdout and c.stderr == p.stderr and b"bad.run:2" in c.stderr
