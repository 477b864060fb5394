"""Measures whose record cites another tool's definition equal that tool on real data.

The records say which tool a definition follows (``Family.follows``); every
measure whose record names ir_measures as its definition is computed here by
ir_measures itself on TREC DL 2019 passage runs and compared per query. Score
ties are broken differently by the two tools (ir_measures: document id
ascending; irpref: trec_eval's order, document id descending), which the
record states; the comparison therefore gives every run distinct scores in
irpref's order first, so both read the same ranking.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irpref
from irpref.measures import REGISTRY

im = pytest.importorskip("ir_measures")

DATA = Path(__file__).parent / "data" / "dl19-passage"
QRELS = DATA / "qrels.txt"
# a 10-deep run (fewer than k retrieved), full-depth runs with many score ties
RUNS = ["ICT-BERT2", "UNH_exDL_bm25", "test1", "runid2"]


def _distinct_scores(name: str) -> pd.DataFrame:
    """The run with scores replaced by distinct ones in trec_eval's order
    (score descending, document id descending within a tie)."""
    with gzip.open(DATA / "runs" / f"{name}.gz", "rt") as handle:
        run = pd.read_csv(handle, sep=r"\s+", header=None, dtype={0: str, 2: str},
                          names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    run["score"] = -np.arange(len(run), dtype=np.float64)
    return run[["query_id", "doc_id", "score"]].reset_index(drop=True)


def _cited(tool: str) -> list[str]:
    return sorted(n for n, f in REGISTRY.items() if tool in f.follows)


def test_records_citing_another_tool_are_checked_here():
    assert "Judged" in _cited("ir_measures") and "nDCG" in _cited("ranx")
    assert set(_cited("ir_measures")) <= set(IR_MEASURES), "add the new measure to IR_MEASURES"
    assert set(_cited("ranx")) <= set(RANX), "add the new measure to RANX"


IR_MEASURES = {
    "Judged": (["Judged@5", "Judged@10", "Judged@100", "Judged@1000"],
               lambda k: im.Judged @ k),
}


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
@pytest.mark.parametrize("family", sorted(IR_MEASURES))
def test_equals_ir_measures_per_query(family, run_name):
    texts, make = IR_MEASURES[family]
    run = _distinct_scores(run_name)
    qrels = list(im.read_trec_qrels(str(QRELS)))
    scored = [im.ScoredDoc(q, d, s) for q, d, s in run.itertuples(index=False)]
    table = irpref.evaluate(str(QRELS), run, texts)
    got = {(r.query, r.measure): r.value for r in table.itertuples()}
    for text in texts:
        ref = {x.query_id: x.value for x in im.iter_calc([make(irpref.parse_measure(text)
                                                              .cutoff)], qrels, scored)}
        assert ref, text
        for query, value in ref.items():
            assert got[query, text] == pytest.approx(value, rel=1e-12, abs=0), (query, text)


def test_judged_divides_by_the_number_retrieved():
    """A ranking shorter than k: Judged@k is the judged share of what was retrieved."""
    qrels = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "grade": [1, 0, 2]})
    run = pd.DataFrame({"query": ["q"] * 4, "doc": ["a", "x", "b", "c"],
                        "score": [4.0, 3.0, 2.0, 1.0]})
    for ties in ("docid", "expected"):
        t = irpref.evaluate(qrels, run, ["Judged@2", "Judged@10"], ties=ties)
        assert t["value"].tolist() == [0.5, 0.75], ties
    empty = pd.DataFrame({"query": ["q"], "doc": ["x"], "score": [1.0]}).iloc[:0]
    t = irpref.evaluate(qrels, {"r": empty}, ["Judged@10"], missing="zero")
    assert t["value"].tolist() == [0.0]


# irpref text -> ranx metric, per family whose record follows ranx
RANX = {
    "nDCG": {"nDCG@10": "ndcg@10", "nDCG@100": "ndcg@100", "nDCG(gain=exp)@10": "ndcg_burges@10",
             "nDCG(gain=exp)@100": "ndcg_burges@100"},
}


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
@pytest.mark.parametrize("family", sorted(RANX))
def test_equals_ranx_per_query(family, run_name):
    ranx = pytest.importorskip("ranx")
    run = _distinct_scores(run_name)
    qrels = pd.read_csv(QRELS, sep=r"\s+", header=None, dtype={0: str, 2: str},
                        names=["query_id", "iter", "doc_id", "grade"])
    qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
    q_dict = {q: dict(zip(g["doc_id"], g["grade"].astype(int)))
              for q, g in qrels.groupby("query_id")}
    r_dict = {q: dict(zip(g["doc_id"], g["score"])) for q, g in run.groupby("query_id")
              if q in q_dict}
    ranx_run = ranx.Run.from_dict(r_dict)
    ranx.evaluate(ranx.Qrels.from_dict(q_dict), ranx_run, list(RANX[family].values()))
    table = irpref.evaluate(str(QRELS), run, list(RANX[family]))
    got = {(r.query, r.measure): r.value for r in table.itertuples()}
    for text, metric in RANX[family].items():
        ref = dict(ranx_run.scores[metric])
        assert ref, metric
        for query, value in ref.items():
            assert got[query, text] == pytest.approx(float(value), rel=1e-12, abs=1e-15), (
                query, text)
