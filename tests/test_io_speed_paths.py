"""The fast paths of TREC reading and interning give what the careful paths give.

Every file is written in a clean form (one space, ``\\n``) and in messy forms
(tabs, runs of blanks, CRLF, blank lines, leading/trailing blanks, no final
newline, gzip); all must read to the same columns. The hash-based duplicate
check must still catch every duplicate, and the hash interning must number
documents exactly as a sort of the distinct strings does.
"""

from __future__ import annotations

import gzip
import os
import random

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irpref.io.hashing import hash_strings
from irpref.io.lines import normalise
from irpref.io.records import TrecFormatError
from irpref.io.trec import read_qrels, read_run
from irpref.judging.interning import intern
from irpref.judging.ranking import judge

RUN_ROWS = [
    ("q1", "d3", "1", "2.5"),
    ("q1", "d1", "2", "2.5"),
    ("q1", "doc-22", "3", "1.25"),
    ("q2", "d1", "1", "7"),
    ("q10", "d9", "1", "0.5"),
    ("q10", "d3", "2", "-1e3"),
]


def _write(path, text: str, gz: bool = False):
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _clean_run(rows=RUN_ROWS, tag: str | None = "sys") -> str:
    tail = f" {tag}" if tag else ""
    return "".join(f"{q} Q0 {d} {r} {s}{tail}\n" for q, d, r, s in rows)


MESSY = {
    "tabs": lambda t: t.replace(" ", "\t"),
    "mixed": lambda t: t.replace(" Q0 ", " \t Q0\t\t"),
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "blank_lines": lambda t: "\n\n" + t.replace("\n", "\n\n", 2) + "\n \n",
    "leading_trailing": lambda t: "".join(f"  {line} \t\n" for line in t.splitlines()),
    "no_final_newline": lambda t: t.rstrip("\n"),
    "trailing_blank_at_eof": lambda t: t.rstrip("\n") + "  ",
}


def _columns(run):
    return run.query.to_pylist(), run.doc.to_pylist(), run.score.tolist()


@pytest.mark.parametrize("tag", ["sys", None], ids=["6-columns", "5-columns"])
@pytest.mark.parametrize("variant", sorted(MESSY))
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gz"])
def test_messy_runs_read_like_clean(tmp_path, variant, tag, gz):
    clean = read_run(_write(tmp_path / "clean.txt", _clean_run(tag=tag)), use_tag=True)
    messy = read_run(
        _write(tmp_path / "messy.txt", MESSY[variant](_clean_run(tag=tag)), gz), use_tag=True
    )
    assert _columns(messy) == _columns(clean)
    assert messy.tag == clean.tag == tag


@pytest.mark.parametrize("variant", sorted(MESSY))
def test_messy_qrels_read_like_clean(tmp_path, variant):
    text = "".join(f"{q} 0 {d} {i % 3}\n" for i, (q, d, _, _) in enumerate(RUN_ROWS))
    clean = read_qrels(_write(tmp_path / "clean", text))
    messy = read_qrels(_write(tmp_path / "messy.gz", MESSY[variant](text), gz=True))
    assert messy.query.to_pylist() == clean.query.to_pylist()
    assert messy.doc.to_pylist() == clean.doc.to_pylist()
    assert messy.grade.tolist() == clean.grade.tolist()


_token = st.text(alphabet="abcxyz019-._", min_size=1, max_size=12)
_blank = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t"])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(_token, _token, _token, _token), min_size=1, max_size=8),
    blanks=st.lists(_blank, min_size=40, max_size=40),
    newline=st.sampled_from(["\n", "\r\n", "\n\n", "\n \n"]),
)
def test_normalise_matches_split(rows, blanks, newline):
    """Normalising any spacing gives the fields ``str.split`` sees, one line per row."""
    it = iter(blanks * 10)
    text = newline.join(next(it).join(row) for row in rows) + newline
    out = normalise(text.encode()).decode()
    assert out == "".join(" ".join(row) + "\n" for row in rows)


def test_clean_input_is_returned_unchanged():
    data = _clean_run().encode()
    assert normalise(data) is data


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s\nq1 Q0 d1 3 0.5 s\n", 3),
        ("q1\tQ0\td1\t1\t2.0\ts\n\nq2 Q0 d1 1 1.0 s\n  q1  Q0 d1 9 0.1 s\n", 4),
        ("q1 Q0 d1 1 2.0\r\nq1 Q0 d1 2 1.0\r\n", 2),
    ],
    ids=["clean", "messy", "5-columns-crlf"],
)
def test_duplicate_doc_is_caught(tmp_path, text, line):
    with pytest.raises(TrecFormatError, match="retrieved twice") as err:
        read_run(_write(tmp_path / "dup.txt", text))
    assert err.value.line == line


def test_duplicate_judgement_is_caught(tmp_path):
    with pytest.raises(TrecFormatError, match="judged twice"):
        read_qrels(_write(tmp_path / "q", "1 0 a 1\n1 0 b 0\n1 0 a 2\n"))


def test_same_doc_in_two_queries_is_fine(tmp_path):
    run = read_run(_write(tmp_path / "r", "1 Q0 a 1 2 s\n2 Q0 a 1 2 s\n11 Q0 a 1 2 s\n"))
    assert run.doc.to_pylist() == ["a", "a", "a"]


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2\n",
        "q1 Q0 d1 1 2.0 s x y\n",
        "q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s x\n",
        "q1 Q0 d1 1 2.0\nq1 Q0 d2 2 1.0 s\tx\n",
    ],
)
def test_wrong_column_count_is_an_error(tmp_path, text):
    with pytest.raises(TrecFormatError, match="fields"):
        read_run(_write(tmp_path / "bad.txt", text))


def test_bad_score_is_an_error(tmp_path):
    with pytest.raises(TrecFormatError, match="not a number"):
        read_run(_write(tmp_path / "bad.txt", "q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 x s\n"))


def test_large_file_crosses_csv_blocks(tmp_path):
    """More than one 4 MB CSV block: rows stay in file order, duplicates still caught."""
    n = 120_000
    lines = [
        f"q{i // 1000} Q0 clueweb12-{i:08d}-xx {i % 1000} {1e3 - i % 1000} tag\n" for i in range(n)
    ]
    text = "".join(lines)
    assert len(text) > 4 << 20
    run = read_run(_write(tmp_path / "big.txt", text))
    assert len(run) == n and run.doc[n - 1].as_py() == f"clueweb12-{n - 1:08d}-xx"
    dup = text + lines[5]
    with pytest.raises(TrecFormatError, match="retrieved twice") as err:
        read_run(_write(tmp_path / "dup.txt", dup))
    assert err.value.line == n + 1


# ---- hashing -----------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=30), min_size=1, max_size=40), st.integers(0, 5))
def test_hash_strings_equal_strings_equal_hashes(strings, cut):
    arr = pa.array(strings)
    h = hash_strings(arr)
    for i in range(len(strings)):
        for j in range(len(strings)):
            if strings[i] == strings[j]:
                assert h[i] == h[j]
    assert len(set(h.tolist())) == len(set(strings))  # no collision in practice
    cut = min(cut, len(strings))
    assert (hash_strings(arr.slice(cut)) == h[cut:]).all()
    assert (hash_strings(pa.array(strings, pa.large_string())) == h).all()


@pytest.mark.parametrize("width", [1, 3, 7, 8, 9, 15, 16, 17, 25])
@pytest.mark.parametrize("n", [1, 2, 50])
def test_hash_strings_fixed_width_equals_general_path(width, n):
    rng = random.Random(width * 100 + n)
    strings = ["".join(rng.choice("ab0z") for _ in range(width)) for _ in range(n)]
    fixed = pa.array(strings)
    mixed = pa.array([*strings, "x" * (width + 1)])
    assert (hash_strings(fixed) == hash_strings(mixed)[:-1]).all()
    assert (hash_strings(fixed.slice(n // 2)) == hash_strings(fixed)[n // 2 :]).all()


# ---- interning ---------------------------------------------------------------
def _brute_codes(qrels, runs):
    docs = sorted(
        {*qrels.doc.to_pylist(), *(d for r in runs for d in r.doc.to_pylist())},
        key=lambda s: s.encode(),
    )
    return docs


def test_intern_numbers_docs_in_byte_order(tmp_path):
    q = read_qrels(_write(tmp_path / "q", "1 0 b 1\n1 0 Z 0\n2 0 é 2\n2 0 a 1\n"))
    r1 = read_run(_write(tmp_path / "r1", "1 Q0 b 1 1 s\n1 Q0 c 2 0.5 s\n3 Q0 b 1 1 s\n"))
    r2 = read_run(_write(tmp_path / "r2", "2 Q0 é 1 1 t\n2 Q0 aa 2 1 t\n"))
    coll = intern(q, [r1, r2])
    docs = _brute_codes(q, [r1, r2])
    assert coll.docs.to_pylist() == docs
    assert [docs[i] for i in coll.run_doc] == ["b", "c", "b", "é", "aa"]
    assert coll.run_query.tolist() == [0, 0, -1, 1, 1]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("123"), st.text("abAB1é", min_size=1, max_size=6), st.integers(-1, 3)
        ),
        min_size=1,
        max_size=15,
        unique_by=lambda t: t[:2],
    ),
    st.lists(
        st.lists(
            st.tuples(
                st.sampled_from("1234"),
                st.text("abAB1é", min_size=1, max_size=6),
                st.sampled_from([0.0, 0.5, 1.0, 2.0]),
            ),
            min_size=1,
            max_size=15,
            unique_by=lambda t: t[:2],
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_intern_and_judge_match_brute_force(tmp_path_factory, qrels_rows, runs_rows):
    tmp = tmp_path_factory.mktemp("i")
    q = read_qrels(_write(tmp / "q", "".join(f"{a} 0 {d} {g}\n" for a, d, g in qrels_rows)))
    runs = [
        read_run(_write(tmp / f"r{i}", "".join(f"{a} Q0 {d} 1 {s} t\n" for a, d, s in rows)))
        for i, rows in enumerate(runs_rows)
    ]
    coll = intern(q, runs)
    docs = _brute_codes(q, runs)
    assert coll.docs.to_pylist() == docs
    assert [docs[i] for i in coll.run_doc] == [d for rows in runs_rows for _, d, _ in rows]
    judged = judge(coll)
    grades = {(a, d): g for a, d, g in qrels_rows}
    queries = list(coll.queries)
    for r, rows in enumerate(runs_rows):
        for qi, qid in enumerate(queries):
            mine = [(d, s) for a, d, s in rows if a == qid]
            mine.sort(key=lambda t: (-t[1], [-b for b in t[0].encode()] + [1]))
            s = r * len(queries) + qi
            lo, hi = judged.offsets[s], judged.offsets[s + 1]
            assert [docs[i] for i in judged.doc[lo:hi]] == [d for d, _ in mine]
            expect = [grades.get((qid, d), np.iinfo(np.int32).min) for d, _ in mine]
            assert judged.grade[lo:hi].tolist() == expect


_ID_KINDS = {
    "fixed-width digits (radix keys)": [
        f"clueweb12-{i % 97:04d}tw-{i % 13:02d}-{i:05d}" for i in range(0, 3000, 7)
    ],
    "fixed-width, wide alphabet (no keys)": [
        "".join(chr(33 + (i * k) % 90) for k in range(1, 21)) for i in range(300)
    ],
    "short, variable length (big-endian keys)": [str(i) for i in range(0, 2000, 3)] + ["", "9"],
    "long, variable length (no keys)": [f"msmarco_passage_{i % 7:02d}_{i}" for i in range(500)],
    "short with NUL byte (no keys)": ["a\x00", "a", "ab", "b"],
    "one width of one byte": list("zyxabc"),
}


@pytest.mark.parametrize("threads", [1, 3], ids=["serial", "threaded"])
@pytest.mark.parametrize("kind", sorted(_ID_KINDS))
def test_document_ids_match_exact_path(kind, threads, monkeypatch):
    """Keys order as the strings do and are injective; dense codes and the
    distinct strings equal Arrow's exact sorted dictionary."""
    from irpref.judging.doc_keys import document_ids, sorted_codes
    from irpref.runtime import threads as pools

    monkeypatch.setenv("IRPREF_THREADS", str(threads))
    monkeypatch.setattr(pools, "available_cpus", lambda: 8)
    monkeypatch.setattr(pools, "PARALLEL_MIN", 0 if threads > 1 else 1 << 20)

    strings = _ID_KINDS[kind]
    rng = random.Random(3)
    arrays = [pa.array(rng.sample(strings, len(strings))) for _ in range(3)]
    arrays.append(pa.array(strings[:5]).slice(2))  # a sliced array (offset != 0)
    n = sum(len(a) for a in arrays)
    blocks = np.array([[a, min(a + 7, n)] for a in range(0, n, 7)][::-1], np.int64)
    for order in (None, blocks):
        ids = document_ids(arrays, None if order is None else lambda o=order: o)
        exact_codes, exact_docs = sorted_codes(pa.chunked_array(arrays))
        assert ids.strings.to_pylist() == exact_docs.to_pylist()
        assert ids.codes(ids.keys).tolist() == exact_codes.tolist()
        assert len(ids) == len(set(strings))
        assert ids.strings.to_pylist() == sorted(set(strings), key=lambda s: s.encode())
        # keys compare as the strings: equal codes <=> equal keys, order kept
        by_key = np.argsort(ids.keys, kind="stable")
        assert np.all(np.diff(exact_codes[by_key]) >= 0)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=40).map(lambda b: bytes(b" \n\tab"[x % 5] for x in b)),
    st.sampled_from([1, 2, 3, 7, 1 << 18]),
)
def test_blank_pairs_blockwise_equals_brute_force(data, step):
    from irpref.io.lines import _blank_pairs

    seps = [c <= 32 for c in data]
    expect = bool(data) and (
        seps[0] or (seps[-1] and data[-1] != 10) or any(x and y for x, y in zip(seps, seps[1:]))
    )
    assert _blank_pairs(data, step) == expect


def test_read_runs_in_parallel_keeps_order_and_first_error(tmp_path):
    from irpref.io import as_runs
    from irpref.io.trec import read_runs

    paths = []
    for i in range(6):
        rows = [(f"q{j}", f"d{i}-{j}", "1", str(j)) for j in range(5)]
        paths.append(_write(tmp_path / f"r{i}.txt", _clean_run(rows, tag=f"t{i}")))
    serial = [read_run(p) for p in paths]
    for threads in (1, 2, 4, None):
        runs = read_runs(paths, threads=threads)
        assert [r.name for r in runs] == [f"r{i}" for i in range(6)]
        assert [_columns(r) for r in runs] == [_columns(r) for r in serial]
    assert [r.name for r in as_runs(paths)] == [r.name for r in serial]
    assert [r.name for r in as_runs(paths, use_tag=True)] == [f"t{i}" for i in range(6)]
    bad2 = _write(tmp_path / "bad2.txt", "q1 Q0 d1 1 x s\n")
    bad4 = _write(tmp_path / "bad4.txt", "q1 Q0 d1\n")
    with pytest.raises(TrecFormatError, match="bad2"):
        read_runs([paths[0], paths[1], bad2, paths[3], bad4], threads=3)


def _dense_reference(j, name: str, rel: int, cutoff: int | None) -> np.ndarray:
    """The dense (every item) formulas the sparse kernels replaced."""
    from irpref.measures.arithmetic import power_table, within_segment_cumsum

    inside = np.ones(j.n_items, bool) if cutoff is None else j.rank < cutoff
    is_rel = j.relevant(rel)
    shape = (j.n_runs, j.n_queries)
    num_rel = j.num_rel(rel)[None, :]
    if name == "AP":
        hits = within_segment_cumsum(j, is_rel)
        s = j.segment_sum(np.where(is_rel & inside, hits / (j.rank + 1.0), 0.0))
        return np.divide(s, num_rel, out=np.zeros(shape), where=num_rel > 0)
    if name == "nDCG":
        from irpref.measures.gains import ideal_dcg

        gain = np.where(j.grade > 0, j.grade, 0).astype(np.float64)
        gain[~inside] = 0.0
        dcg = j.segment_sum(gain / np.log2(j.rank + 2.0))
        ideal = np.broadcast_to(ideal_dcg(j, cutoff)[None, :], shape)
        return np.divide(dcg, ideal, out=np.zeros(shape), where=ideal > 0)
    if name == "RR":
        first = np.full(j.n_segments, np.inf)
        sel = is_rel & inside
        np.minimum.at(first, j.segment[sel], j.rank[sel] + 1.0)
        return (1.0 / first).reshape(shape)
    if name == "NumRelRet":
        return j.segment_count(is_rel & inside)
    if name == "Rprec":
        r = j.num_rel(rel)
        c = j.segment_count(is_rel & (j.rank < r[j.query_of_item]))
        return np.divide(c, r[None, :], out=np.zeros(shape), where=r[None, :] > 0)
    if name == "RBP":
        w = np.where(is_rel & inside, power_table(0.8, j)[j.rank], 0.0)
        return (1.0 - 0.8) * j.segment_sum(w)
    raise AssertionError(name)


GRADES = st.lists(st.integers(-1, 3), min_size=1, max_size=40)


def runs_rows(max_score: int):
    """1-3 runs of up to 40 (query 0-3, document 0-29, score 0..max_score) rows."""
    row = st.tuples(st.integers(0, 3), st.integers(0, 29), st.integers(0, max_score))
    return st.lists(st.lists(row, max_size=40), min_size=1, max_size=3)


@settings(max_examples=25, deadline=None)
@given(
    GRADES,
    runs_rows(max_score=4),
    st.integers(1, 2),
)
def test_sparse_kernels_bit_identical_to_dense(grades, runs_rows, rel):
    _check_sparse_kernels(grades, runs_rows, rel)


@settings(max_examples=25, deadline=None)
@given(
    GRADES,
    runs_rows(max_score=2),
)
def test_threaded_tie_sort_and_interning_match_serial(grades, runs_rows):
    """Interning and the docid tie sort cut into blocks on threads give the
    serial result (forced on tiny inputs: blocks of 3 items)."""
    from irpref.judging import ranking
    from irpref.runtime import threads as pools

    serial = _judged(grades, runs_rows)
    old = (os.environ.get("IRPREF_THREADS"), pools.PARALLEL_MIN, ranking._TIE_BLOCK,
           pools.available_cpus)
    os.environ["IRPREF_THREADS"] = "3"
    pools.PARALLEL_MIN, ranking._TIE_BLOCK, pools.available_cpus = 0, 3, lambda: 8
    try:
        threaded = _judged(grades, runs_rows)
    finally:
        if old[0] is None:
            os.environ.pop("IRPREF_THREADS", None)
        else:
            os.environ["IRPREF_THREADS"] = old[0]
        pools.PARALLEL_MIN, ranking._TIE_BLOCK, pools.available_cpus = old[1:]
    for name in ("offsets", "doc", "score", "grade"):
        assert np.array_equal(getattr(serial, name), getattr(threaded, name)), name
    assert serial.docs.to_pylist() == threaded.docs.to_pylist()


def _check_sparse_kernels(grades, runs_rows, rel):
    from irpref.measures import parse_measure

    j = _judged(grades, runs_rows, rel)
    for name in ("AP", "nDCG", "RR", "NumRelRet", "Rprec", "RBP"):
        for cutoff in (None, 1, 3):
            if name == "Rprec" and cutoff is not None:
                continue
            text = name + (f"@{cutoff}" if cutoff else "")
            got = parse_measure(text).compute(j)
            want = _dense_reference(j, name, rel, cutoff)
            assert np.array_equal(np.asarray(got, np.float64), np.asarray(want, np.float64)), text


def _judged(grades, runs_rows, rel=1):
    return judge(intern(*_inputs(grades, runs_rows)), rel=rel)


def _inputs(grades, runs_rows, sort_queries=False):
    """Qrels (query q{i % 3}, document d{i}, grade) and runs of (query,
    document, score) rows, the last score of a repeated pair kept; the rows
    in the order given, or sorted by query."""
    from irpref.io.records import Qrels, Run

    qrels = Qrels(
        pa.array([f"q{i % 3}" for i in range(len(grades))]),
        pa.array([f"d{i}" for i in range(len(grades))]),
        np.asarray(grades, np.int64),
    )
    runs = []
    for r, rows in enumerate(runs_rows):
        items = list({(q, d): s for q, d, s in rows}.items())
        if sort_queries:
            items.sort()
        runs.append(
            Run(
                f"r{r}",
                pa.array([f"q{q}" for (q, _), _ in items], pa.string()),
                pa.array([f"d{d}" for (_, d), _ in items], pa.string()),
                np.asarray([s / 2 for _, s in items], np.float64),
            )
        )
    return qrels, runs


# ---- duplicate check at interning, pair index, tie sort of keys --------------
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0 s\nq1 Q0 d1 3 0.5 s\n", 3),
        ("qX Q0 d1 1 2.0 s\nq1 Q0 d1 2 1.0 s\nqX Q0 d1 3 0.5 s\n", 3),  # unjudged query
    ],
    ids=["judged-query", "query-not-in-qrels"],
)
def test_intern_refuses_a_document_retrieved_twice(tmp_path, text, line):
    """Runs read without the reader's check: intern() still names file and line."""
    qrels = read_qrels(_write(tmp_path / "q", "q1 0 d1 1\n"))
    path = _write(tmp_path / "dup.run", text)
    run = read_run(path, check_duplicates=False)
    with pytest.raises(TrecFormatError, match="'d1' retrieved twice") as err:
        intern(qrels, [run])
    assert err.value.line == line and str(path) in str(err.value)


def test_intern_refuses_repeats_from_a_dataframe():
    import pandas as pd

    from irpref import evaluate

    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(TrecFormatError, match="'a' retrieved twice for query '1'"):
        evaluate({"1": {"a": 1}}, {"r": run}, "P@1")


def test_same_document_in_two_queries_is_not_a_repeat(tmp_path):
    qrels = read_qrels(_write(tmp_path / "q", "1 0 a 1\n2 0 a 0\n"))
    run = read_run(_write(tmp_path / "r", "1 Q0 a 1 2 s\n2 Q0 a 1 2 s\n"), check_duplicates=False)
    judged = judge(intern(qrels, [run]))
    assert judged.grade.tolist() == [1, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 40)), unique=True, max_size=60),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 45)), max_size=80),
    st.sampled_from([1, 1 << 20, (1 << 63) + 3]),
)
def test_pair_index_finds_exactly_the_members(members, probes, scale):
    from irpref.io.hashing import PairIndex

    q = np.array([m[0] for m in members], np.int64)
    k = np.array([m[1] * scale % (1 << 64) for m in members], np.uint64)
    index = PairIndex(q, k)
    where = {(a, b * scale % (1 << 64)): i for i, (a, b) in enumerate(members)}
    pq = np.array([p[0] for p in probes], np.int64)
    pk = np.array([p[1] * scale % (1 << 64) for p in probes], np.uint64)
    got = index.find(pq, pk).tolist()
    assert got == [where.get((a, b * scale % (1 << 64)), -1) for a, b in probes]


@pytest.mark.parametrize("span_bits", [3, 40, 52, 60, 64])
def test_tie_sort_of_keys_matches_brute_force(span_bits):
    """Groups sorted by key descending, whatever the width of the keys (packed
    in chunks of groups, or the two-key sort for the widest)."""
    from irpref.judging.ranking import _docid_desc_in_ties

    rng = np.random.default_rng(span_bits)
    sizes = rng.integers(1, 5, 6000)  # many groups: several packing chunks
    top = (1 << span_bits) - 1
    doc = rng.integers(0, top, sizes.sum(), dtype=np.uint64, endpoint=True)
    group = np.repeat(np.arange(len(sizes)), sizes)
    tied = group[1:] == group[:-1]
    wrong = tied & (doc[1:] > doc[:-1])
    sel, values = _docid_desc_in_ties(tied, wrong, doc)
    fixed = doc.copy()
    fixed[sel] = values
    want = np.concatenate([np.sort(doc[group == g])[::-1] for g in range(len(sizes))])
    assert np.array_equal(fixed, want)


@settings(max_examples=40, deadline=None)
@given(
    GRADES,
    runs_rows(max_score=2),
    st.sampled_from([None, 1, 3]),
    st.booleans(),
)
def test_judging_in_place_equals_judging_a_copy(grades, runs_rows, depth, sort_queries):
    """in_place reorders the collection's own keys within tie groups only: the
    judged rankings are the same, on the per-run fast path (queries in
    order) and the general one."""
    qrels, runs = _inputs(grades, runs_rows, sort_queries)
    want = judge(intern(qrels, runs), depth=depth)
    coll = intern(qrels, runs)
    got = judge(coll, depth=depth, in_place=True)
    for name in ("offsets", "doc_key", "score", "grade", "present"):
        assert np.array_equal(getattr(want, name), getattr(got, name)), name
    assert np.array_equal(judge(coll, depth=depth).doc_key, want.doc_key)
