"""PyTerrier: irpref measures inside pt.Experiment, preferences on result frames.

pt.Experiment runs on result frames (no index), so Java is never started.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import irpref
from irpref import examples
from irpref.interop import pyterrier as ipt

pt = pytest.importorskip("pyterrier")
im = pytest.importorskip("ir_measures")

NAMES = ["a", "b", "c"]


@pytest.fixture(scope="module")
def frames():
    q = irpref.read_qrels(examples.qrels_path())
    qrels = pd.DataFrame({"qid": q.query.to_pylist(), "docno": q.doc.to_pylist(), "label": q.grade})
    runs = []
    for path in examples.run_paths()[:3]:
        r = irpref.read_run(path)
        runs.append(pd.DataFrame(
            {"qid": r.query.to_pylist(), "docno": r.doc.to_pylist(), "score": r.score}
        ))
    topics = pd.DataFrame({"qid": sorted(set(qrels["qid"])), "query": "unused"})
    return qrels, runs, topics


def _means(qrels, runs, measure, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = irpref.evaluate(qrels, dict(zip(NAMES, runs)), [measure], missing="zero", **options)
    return t.groupby("run")["value"].mean()


def test_experiment_with_irpref_measures(frames):
    qrels, runs, topics = frames
    n = 8_841_823  # MS MARCO passage corpus
    metrics = ["map", im.nDCG @ 10, *ipt.measures("ASL", "TSE(e=ap)", corpus_size=n)]
    res = pt.Experiment(runs, topics, qrels, eval_metrics=metrics, names=NAMES, baseline=0)
    assert not pt.java.started()
    res = res.set_index("name")
    for text, options in (("ASL", {}), ("TSE(e=ap)", {"corpus_size": n})):
        expected = _means(qrels, runs, text, **options)
        for name in NAMES:
            assert res.loc[name, text] == pytest.approx(expected[name], rel=1e-12)
    assert {"ASL p-value", "TSE(e=ap) +"} <= set(res.columns)  # per-query values reach pt's tests


@pytest.mark.slow
def test_irpref_provider_computes_standard_measures_in_experiment(frames):
    qrels, runs, topics = frames
    before = list(im.DefaultPipeline.providers)
    try:
        mine = ipt.use_irpref_provider()
        assert ipt.use_irpref_provider() is mine and im.DefaultPipeline.providers[0] is mine
        res = pt.Experiment(runs, topics, qrels, eval_metrics=[im.AP(rel=2), im.nDCG @ 10],
                            names=NAMES).set_index("name")
    finally:
        im.DefaultPipeline.providers[:] = before
    ap = _means(qrels, runs, "AP(rel=2)")
    ndcg = _means(qrels, runs, "nDCG@10")
    for name in NAMES:
        assert res.loc[name, "AP(rel=2)"] == pytest.approx(ap[name], rel=1e-12)
        assert res.loc[name, "nDCG@10"] == pytest.approx(ndcg[name], rel=1e-12)


def test_preferences_on_result_frames(frames):
    qrels, runs, _ = frames
    got = ipt.compare(qrels, runs, ["sgnLP", "RPP"], names=NAMES, rel=2)
    paths = dict(zip(NAMES, examples.run_paths()[:3]))
    ref = irpref.compare(examples.qrels_path(), paths, ["sgnLP", "RPP"], rel=2)
    key = ["run_a", "run_b", "query", "measure"]
    a = got.astype({k: str for k in key}).sort_values(key).reset_index(drop=True)
    b = ref.astype({k: str for k in key}).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="names"):
        ipt.compare(qrels, runs, ["sgnLP"], names=["a"])
