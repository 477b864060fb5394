"""Recommendation-shaped inputs: the qrels C pass, the column mapping, Parquet output.

- ``irpref.judging.scan.qrels_index`` reads a TREC qrels file in one C pass; its
  collection must be the one ``intern(read_qrels(path), [])`` makes (queries,
  row order, grades, document keys) and runs judged against it must give the
  same blocks, whatever the order of the queries in either file;
- ``columns=`` / ``--columns`` names the columns of tables and DataFrames;
- ``--format parquet`` writes the values the TSV writer prints.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli

import irpref
import irpref.judging.scan as scan
from irpref.errors import InputError, UsageError
from irpref.io.columns import check_columns
from irpref.io.trec import read_qrels
from irpref.judging.interning import intern
from irpref.params import Settings
from irpref.report.records import write_parquet

STYLES = {
    "numeric": lambda i: str(i * 7919 % 100_003),
    "uuid": lambda i: f"{i * 2654435761 % 2**32:08x}-4e2a-9c1d-{i:012x}",
    "mixed": lambda i: ["u", "user_", "ü-", "x" * 20][i % 4] + str(i),
}


def _collection(rng, style, n_users=60, n_items=40):
    user, item = STYLES[style], STYLES["numeric" if style == "uuid" else style]
    rows = []
    for u in range(n_users):
        k = int(rng.integers(1, 25))  # some users above the small-query threshold (16)
        for d in rng.choice(n_items * 3, size=k, replace=False):
            rows.append((user(u), item(int(d) + 1000), int(rng.integers(-1, 4))))
    order = rng.permutation(len(rows))
    if rng.random() < 0.5:  # grouped by user, as most files are
        order = np.argsort([rows[i][0] for i in order], kind="stable")
    return [rows[i] for i in order]


def _write_qrels(path, rows, comment=True):
    lines = ["# ratings"] if comment else []
    lines += [f"{q}\t0 {d}  {g}\r" if i % 7 == 3 else f"{q} 0 {d} {g}" for i, (q, d, g)
              in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_run(path, rows, rng):
    users = sorted({q for q, _, _ in rows}, key=lambda _: rng.random())  # another order
    items = sorted({d for _, d, _ in rows})
    lines = []
    for q in users[:-3]:  # some users without recommendations
        for r, d in enumerate(rng.choice(items, size=8, replace=False)):
            lines.append(f"{q} Q0 {d} {r + 1} {round(float(rng.random()), 2)} sys")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("seed", range(4))
def test_qrels_pass_is_intern(tmp_path, style, seed):
    if not scan.enabled():
        pytest.skip("the C extension is not built")
    rng = np.random.default_rng(seed)
    rows = _collection(rng, style)
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    _write_qrels(qrels_path, rows)
    _write_run(run_path, rows, rng)
    index = scan.qrels_index(str(qrels_path))
    assert index.qrels is not None and index.capsule is not None
    ref = intern(read_qrels(str(qrels_path)), [])
    got = index.collection
    assert list(got.queries) == list(ref.queries)
    assert np.array_equal(got.qrels_offsets, ref.qrels_offsets)
    assert np.array_equal(got.qrels_grade, ref.qrels_grade)
    assert np.array_equal(got.qrels_doc_key, ref.qrels_doc_key)
    assert got.docs.to_pylist() == ref.docs.to_pylist()
    for ties in ("docid", "input", "expected"):
        ours, _ = scan.judge_file(index, str(run_path), Settings(ties=ties))
        theirs, _ = scan.judge_file(scan.QrelsIndex(read_qrels(str(qrels_path))),
                                    str(run_path), Settings(ties=ties))
        for a, b in zip(ours[1:-1], theirs[1:-1]):
            assert (a is None and b is None) or np.array_equal(a, b)


def test_qrels_pass_refusals_name_the_line(tmp_path):
    path, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    run.write_text("u1 Q0 i1 1 0.5 r\n")
    for body, line in [("u1 0 i1 1\nu2 0 i2 1\nu1 0 i1 2\n", 3), ("u1 0 i1 +1\n", 1),
                       ("u1 0 i1 1 x\n", 1), ("u1 0 i1 99999999999\n", 1)]:
        path.write_text(body)
        with pytest.raises(InputError, match=f"qrels.txt:{line}:"):
            irpref.evaluate(str(path), [str(run)], ["AP"])


def test_mapping_is_checked():
    assert check_columns("query=user_id, doc=item_id") == {"query": "user_id", "doc": "item_id"}
    for bad in ["usr=user_id", "query=a,query=b", "query=", "query=a,doc=a", "query"]:
        with pytest.raises(UsageError):
            check_columns(bad)


def _frames():
    qrels = pd.DataFrame({"user_id": ["u1", "u1", "u2"], "item_id": ["a", "b", "a"],
                          "rating": [1, 0, 2]})
    run = pd.DataFrame({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["b", "a", "a", "c"],
                        "pred": [0.9, 0.5, 0.4, 0.8], "model": ["m", "m", "m", "m"]})
    return qrels, run


def test_mapping_on_frames_and_files(tmp_path):
    qrels, run = _frames()
    columns = {"query": "user_id", "doc": "item_id", "grade": "rating", "score": "pred",
               "run": "model"}
    got = irpref.evaluate(qrels, run, ["AP", "RR"], columns=columns)
    assert got["run"].dtype == "category" and got["query"].dtype == "category"
    ref = irpref.evaluate(
        qrels.rename(columns={"user_id": "query_id", "item_id": "doc_id", "rating": "relevance"}),
        run.rename(columns={"user_id": "query_id", "item_id": "doc_id", "pred": "score",
                            "model": "run"}), ["AP", "RR"])
    assert got["value"].tolist() == ref["value"].tolist()
    assert got["value"].tolist() == [0.5, 0.5, 0.5, 0.5]  # AP u1, u2; RR u1, u2: rank 2
    qrels.to_parquet(tmp_path / "q.parquet")
    run.to_csv(tmp_path / "m.csv", index=False)
    files = irpref.evaluate(str(tmp_path / "q.parquet"), [str(tmp_path / "m.csv")],
                            ["AP", "RR"], columns=columns)
    assert files["value"].tolist() == got["value"].tolist()
    with pytest.raises(InputError, match=r"q\.parquet.*no column 'uid'"):
        irpref.evaluate(str(tmp_path / "q.parquet"), [str(tmp_path / "m.csv")], ["AP"],
                        columns={**columns, "query": "uid"})
    with pytest.raises(UsageError, match="unknown role"):
        irpref.evaluate(qrels, run, ["AP"], columns={"user": "user_id"})


@pytest.mark.slow
def test_mapping_on_the_command_line(tmp_path):
    qrels, run = _frames()
    qrels.to_parquet(tmp_path / "q.parquet")
    run.drop(columns="model").to_csv(tmp_path / "m.csv", index=False)
    files = [str(tmp_path / "q.parquet"), str(tmp_path / "m.csv")]
    ok = irpref_cli("evaluate", *files, "-m", "AP", "--format", "tsv", "--columns",
                    "query=user_id,doc=item_id,grade=rating,score=pred")
    assert ok.returncode == 0 and ok.stdout.splitlines()[1] == "m\tAP\t0.5"
    bad = irpref_cli("evaluate", *files, "-m", "AP", "--columns", "usr=user_id")
    assert bad.returncode == 2 and "unknown role 'usr'" in bad.stderr
    missing = irpref_cli("evaluate", *files, "-m", "AP", "--columns",
                         "query=user_id,doc=item_id,grade=stars,score=pred")
    assert missing.returncode == 1 and "q.parquet" in missing.stderr and "'stars'" in missing.stderr


def test_parquet_output_equals_tsv(tmp_path):
    qrels, run = _frames()
    cols = {"query": "user_id", "doc": "item_id", "grade": "rating", "score": "pred"}
    results = irpref.evaluate(qrels, run, ["AP", "nDCG@10"], columns=cols)
    means = irpref.summarize(results)
    sink = io.BytesIO()
    write_parquet([results, means], sink, ["run", "query", "measure", "value"], sort_by="query")
    back = pd.read_parquet(io.BytesIO(sink.getvalue()))
    assert back["value"].tolist() == [*results.sort_values("query", kind="stable")["value"],
                                      *means["value"]]
    assert back["query"].isna().sum() == len(means)

    class Terminal(io.BytesIO):
        def isatty(self):
            return True

    with pytest.raises(UsageError, match="-o FILE"):
        write_parquet(results, Terminal())
    qrels.to_parquet(tmp_path / "q.parquet")
    run.to_csv(tmp_path / "m.csv", index=False)
    out = tmp_path / "out.parquet"
    done = irpref_cli("evaluate", str(tmp_path / "q.parquet"), str(tmp_path / "m.csv"), "-m",
                      "AP", "--per-query", "--format", "parquet", "-o", str(out), "--columns",
                      "query=user_id,doc=item_id,grade=rating,score=pred,run=model")
    assert done.returncode == 0, done.stderr
    assert pd.read_parquet(out)["value"].tolist() == [0.5, 0.5, 0.5]
