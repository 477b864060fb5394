"""The Python API on trec_eval's own test suite: irpref.evaluate and summarize give
trec_eval's AP and P@10 of results.test (0.1785, 0.3000)."""

import irpref


def test_trec_eval_suite_default_measures(data_dir):
    d = data_dir / "trec_eval"
    res = irpref.summarize(irpref.evaluate(d / "qrels.test", d / "results.test", ["AP", "P@10"]))
    values = dict(zip(res["measure"], res["value"]))
    assert round(values["AP"], 4) == 0.1785
    assert round(values["P@10"], 4) == 0.3000
