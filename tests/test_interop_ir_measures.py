"""ir_measures interop: measure objects, iter_calc / calc_aggregate, provider, runtime measures.

Checked against ir_measures itself (pytrec_eval and cwl_eval providers) on the
shipped example collection. Scores are rounded to float32 first, because
pytrec_eval reads them so (README: where irpref differs).
"""

from __future__ import annotations

import gzip
import subprocess
import sys

import numpy as np
import pytest

import irpref
from irpref import examples
from irpref.errors import UsageError
from irpref.interop import ir_measures as interop

im = pytest.importorskip("ir_measures")

QRELS = str(examples.qrels_path())
# IPrec is left out on purpose: pytrec_eval has trec_eval 9's cut-off (README)
MEASURES = [
    im.nDCG @ 10, im.AP(rel=2), im.P(rel=2) @ 10, im.P @ 10, im.RR, im.RR(rel=2), im.R @ 100,
    im.nDCG, im.AP, im.AP @ 100, im.Rprec, im.Bpref, im.Success @ 10, im.NumRet, im.NumRelRet,
    im.NumRel, im.NumQ, im.SetP, im.SetR, im.SetF, im.SetAP, im.SetRelP, im.infAP,
]


def _run32(path):
    """The run as ir_measures ScoredDoc tuples, scores rounded to float32."""
    with gzip.open(path, "rt") as handle:
        docs = list(im.read_trec_run(handle.read()))
    return [d._replace(score=float(np.float32(d.score))) for d in docs]


@pytest.fixture(scope="module")
def qrels():
    return list(im.read_trec_qrels(QRELS))


@pytest.mark.parametrize("path", examples.run_paths(), ids=lambda p: p.name)
def test_calc_aggregate_and_iter_calc_equal_ir_measures(qrels, path):
    run = _run32(path)
    ref = im.calc_aggregate(MEASURES, qrels, run)
    got = irpref.calc_aggregate(MEASURES, QRELS, run)
    assert list(got) == MEASURES  # keyed by the objects passed
    for m in MEASURES:
        assert got[m] == pytest.approx(ref[m], rel=1e-12, abs=1e-12), m
    ref_q = {(x.query_id, x.measure): x.value for x in im.iter_calc(MEASURES, qrels, run)}
    got_q = list(irpref.iter_calc(MEASURES, qrels, run))
    assert all(type(x) is im.Metric for x in got_q)
    got_q = {(x.query_id, x.measure): x.value for x in got_q}
    assert got_q.keys() == ref_q.keys()
    for k, v in ref_q.items():
        assert got_q[k] == pytest.approx(v, rel=1e-12, abs=1e-12), k


def test_judged_equals_ir_measures(qrels):
    run = _run32(examples.run_paths()[3])
    ms = [im.Judged @ 10, im.Judged @ 100]
    ref = im.calc_aggregate(ms, qrels, run)
    got = irpref.calc_aggregate(ms, qrels, run)
    for m in ms:
        assert got[m] == pytest.approx(ref[m], rel=1e-12), m


def test_binary_rbp_equals_cwl_eval(qrels):
    pytest.importorskip("cwl")
    run = _run32(examples.run_paths()[1])
    ms = [im.RBP(rel=2), im.RBP(p=0.5, rel=1)]
    ref = im.calc_aggregate(ms, qrels, run)
    got = irpref.calc_aggregate(ms, qrels, run)
    for m in ms:
        assert got[m] == pytest.approx(ref[m], rel=1e-9), m


def test_evaluate_accepts_measure_objects():
    run = examples.run_paths()[0]
    t = irpref.evaluate(QRELS, run, [im.nDCG @ 10, im.AP(rel=2), im.P(rel=2) @ 10, "RR"])
    assert list(dict.fromkeys(t["measure"])) == ["nDCG@10", "AP(rel=2)", "P(rel=2)@10", "RR"]
    # an ir_measures object keeps its own rel (default 1), whatever evaluate's rel is
    a = irpref.evaluate(QRELS, run, [im.P @ 10], rel=2)
    b = irpref.evaluate(QRELS, run, ["P@10"], rel=1)
    assert a["measure"].iloc[0] == "P(rel=1)@10"
    np.testing.assert_array_equal(a["value"].to_numpy(), b["value"].to_numpy())


@pytest.mark.parametrize(
    ("measure", "text"),
    [
        (im.nDCG @ 10, "nDCG@10"), (im.AP(rel=2), "AP(rel=2)"), (im.P @ 10, "P(rel=1)@10"),
        (im.NumRelRet, "NumRelRet(rel=1)"), (im.SetRelP, "SetRelP(rel=1)"),
        (im.IPrec @ 0.2, "IPrec(recall=0.2,rel=1)"), (im.RBP(rel=2), "RBP(p=0.8,rel=2)"),
        (im.MRR @ 10, "RR(rel=1)@10"), (im.MAP, "AP(rel=1)"), ("nDCG@10", "nDCG@10"),
    ],
)
def test_to_irpref(measure, text):
    assert interop.to_irpref(measure) == text
    parsed = irpref.parse_measure(text)  # the current parser takes it
    assert irpref.parse_measure(str(parsed)) == parsed


@pytest.mark.parametrize(
    "measure",
    [
        im.nDCG(dcg="exp-log2") @ 10, im.RBP, im.ERR @ 10,
        im.alpha_nDCG @ 10,
    ],
)
def test_untranslatable_measures_are_refused(measure):
    with pytest.raises(UsageError, match="no equivalent"):
        interop.to_irpref(measure)
    with pytest.raises(UsageError):
        irpref.evaluate(QRELS, examples.run_paths()[0], [measure])


def test_strings_and_irpref_only_measures():
    run = str(examples.run_paths()[0])
    got = irpref.calc_aggregate(["nDCG@10", "ASL", "RBP(p=0.5)"], QRELS, run)
    assert isinstance(next(iter(got)), im.Measure)  # ir_measures parses what it knows
    assert "ASL" in got  # irpref-only measures stay strings
    assert "RBP(p=0.5)" in got  # ir_measures' RBP needs rel: irpref's meaning is kept
    means = irpref.summarize(irpref.evaluate(QRELS, run, ["ASL"], missing="zero"))
    assert got["ASL"] == pytest.approx(means["value"].iloc[0])


def test_provider_and_runtime_measure(qrels):
    run = _run32(examples.run_paths()[2])
    provider = interop.provider()
    assert provider.supports(im.nDCG @ 10) and not provider.supports(im.ERR @ 10)
    ref = im.pytrec_eval.calc_aggregate([im.nDCG @ 10, im.AP(rel=2)], qrels, run)
    got = provider.calc_aggregate([im.nDCG @ 10, im.AP(rel=2)], qrels, run)
    for m, v in ref.items():
        assert got[m] == pytest.approx(v, rel=1e-12)
    asl = interop.define("ASL(golds=5)")
    assert str(asl) == "ASL(golds=5)" and interop.to_irpref(asl) == "ASL(golds=5)"
    through = im.calc_aggregate([asl, im.nDCG @ 10], qrels, run)  # ir_measures' own pipeline
    direct = irpref.calc_aggregate(["ASL(golds=5)"], qrels, run)
    assert through[asl] == pytest.approx(direct["ASL(golds=5)"], rel=1e-12)
    with pytest.raises(UsageError, match="unknown measure"):
        interop.define("NoSuchMeasure")


def test_without_ir_measures_a_plain_metric_tuple():
    code = (
        "import sys; sys.modules['ir_measures'] = None\n"
        "import irpref, irpref.examples as e\n"
        "m = next(irpref.iter_calc(['AP'], str(e.qrels_path()), str(e.run_paths()[0])))\n"
        "assert type(m).__name__ == 'Metric' and m._fields == ('query_id', 'measure', 'value')\n"
        "assert m.measure == 'AP'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
