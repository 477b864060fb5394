"""Interning, tie policies, depth and the qrels join; DataFrame and dict inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import irpref
from irpref.judging.judged import NONPOOL

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}, "q3": {"d9": 1}}
RUN = {"q1": {"d1": 0.5, "d4": 0.5, "d2": 0.9, "d3": 0.1}, "q2": {"d3": 1.0}}


def ranking(judged, r, q):
    s = r * judged.n_queries + q
    lo, hi = judged.offsets[s], judged.offsets[s + 1]
    return [judged.docs[int(d)].as_py() for d in judged.doc[lo:hi]], judged.grade[lo:hi].tolist()


def test_docid_tie_break_descending_and_grades():
    j = irpref.judge_inputs(QRELS, RUN)
    docs, grades = ranking(j, 0, 0)
    assert docs == ["d2", "d4", "d1", "d3"]  # d4 > d1 among the tie at 0.5
    assert grades == [0, NONPOOL, 1, 2]
    assert j.present.tolist() == [[True, True, False]]
    assert j.num_ret.tolist() == [[4, 1, 0]]
    assert j.num_rel().tolist() == [2, 1, 1]
    assert j.num_rel(2).tolist() == [1, 0, 0]


def test_input_tie_policy_keeps_file_order():
    frame = pd.DataFrame(
        {"query_id": ["q1"] * 3, "doc_id": ["d1", "d4", "d2"], "score": [0.5, 0.5, 0.9]}
    )
    j = irpref.judge_inputs(QRELS, {"r": frame}, ties="input")
    assert ranking(j, 0, 0)[0] == ["d2", "d1", "d4"]
    j = irpref.judge_inputs(QRELS, {"r": frame}, ties="docid")
    assert ranking(j, 0, 0)[0] == ["d2", "d4", "d1"]


def test_depth_applies_after_sorting():
    j = irpref.judge_inputs(QRELS, RUN, depth=2)
    assert ranking(j, 0, 0)[0] == ["d2", "d4"]
    assert j.num_ret.tolist() == [[2, 1, 0]]


def test_missing_queries_skip_or_zero():
    skip = irpref.summarize(irpref.evaluate(QRELS, RUN, ["AP", "NumRel"]))
    zero = irpref.summarize(irpref.evaluate(QRELS, RUN, ["AP", "NumRel"], missing="zero"))
    ap = irpref.evaluate(QRELS, RUN, ["AP"]).set_index("query")["value"]
    assert ap.to_dict() == {"q1": (1 / 3 + 2 / 4) / 2, "q2": 0.0}
    assert skip.set_index("measure").loc["AP", "value"] == ap.mean()
    assert zero.set_index("measure").loc["AP", "value"] == ap.sum() / 3
    assert zero.set_index("measure").loc["NumRel", "value"] == 4


def test_dict_frame_and_file_inputs_agree(tmp_path):
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    run_file = tmp_path / "r.run"
    run_file.write_text(
        "".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in RUN.items() for d, s in docs.items())
    )
    measures = ["AP", "nDCG", "RR", "P@2"]
    from_files = irpref.evaluate(qrels_file, run_file, measures)
    from_dicts = irpref.evaluate(QRELS, {"r": RUN}, measures)
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    qframe = pd.DataFrame(
        [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    from_frames = irpref.evaluate(qframe, {"r": frame}, measures)
    np.testing.assert_array_equal(from_files["value"], from_dicts["value"])
    np.testing.assert_array_equal(from_files["value"], from_frames["value"])


def test_run_frame_with_run_column_splits_runs():
    frame = pd.DataFrame(
        {
            "run": ["a", "a", "b"],
            "query_id": ["q1", "q1", "q1"],
            "doc_id": ["d1", "d2", "d3"],
            "score": [1.0, 0.5, 1.0],
        }
    )
    res = irpref.evaluate(QRELS, frame, ["RR"])
    assert res.set_index("run")["value"].to_dict() == {"a": 1.0, "b": 1.0}


ids = st.sampled_from([f"d{i}" for i in range(8)])


@settings(max_examples=60, deadline=None)
@given(
    scores=st.dictionaries(ids, st.integers(0, 3).map(float), min_size=1),
    grades=st.dictionaries(ids, st.integers(-1, 2), min_size=1),
)
def test_docid_policy_matches_python_sort(scores, grades):
    j = irpref.judge_inputs({"q": grades}, {"r": {"q": scores}})
    expected = sorted(scores, key=lambda d: (-scores[d], tuple(-ord(c) for c in d)))
    docs, got_grades = ranking(j, 0, 0)
    assert docs == expected
    assert got_grades == [grades.get(d, NONPOOL) for d in expected]
