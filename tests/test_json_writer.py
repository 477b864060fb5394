"""The JSON of ``irpref evaluate --baseline``, ``irpref ties`` and ``irpref measures``
comes from the one JSON writer (:func:`irpref.report.records.write_json`): strict
JSON (no ``NaN``/``Infinity`` tokens), null for NaN, an infinite value or a missing
count, every other value the library's own number or text."""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUN_NAMES, RUNS, write_trec

import irpref
from irpref.cli.main import main as cli_main
from irpref.report.records import write_json


def _strict(text: str):
    """json.loads refusing the NaN / Infinity tokens that are not JSON."""
    def refuse(token):
        raise AssertionError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def _cli(*args) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main([str(a) for a in args]) == 0
    return out.getvalue()


def _same(records: list[dict], frame: pd.DataFrame) -> None:
    """Records equal the frame: null where the frame has NaN, inf or NA, else the value."""
    assert [list(r) for r in records] == [list(frame.columns)] * len(frame)
    for rec, row in zip(records, frame.to_dict("records")):
        for key, want in row.items():
            got = rec[key]
            if want is pd.NA or (isinstance(want, float) and not math.isfinite(want)):
                assert got is None, (key, got)
            elif isinstance(want, (float, np.floating)):
                assert got == want, (key, got, want)  # the same double
            else:
                assert got == (want.item() if isinstance(want, np.generic) else want), key


def test_nullable_integers_and_non_finite_values_are_null():
    frame = pd.DataFrame({"n": pd.array([3, None], dtype="Int64"),
                          "ok": pd.array([True, None], dtype="boolean"),
                          "x": [-np.inf, np.nan], "k": np.array([1, 2], dtype=np.int32)})
    out = io.StringIO()
    write_json(frame, out)
    assert _strict(out.getvalue()) == [{"n": 3, "ok": True, "x": None, "k": 1},
                                      {"n": None, "ok": None, "x": None, "k": 2}]


@pytest.fixture(scope="module")
def tied(tmp_path_factory):
    """B and C tie on every query A has; A scores below C on each: an infinite effect
    (mean / sd with sd = 0) and a baseline row with missing counts."""
    qrels = {f"q{i}": {"d1": 1, "d2": 0, "d3": 2} for i in range(1, 5)}
    runs = {"A": {f"q{i}": {"d1": 3, "d2": 2, "d3": 1} for i in range(1, 5)},
            "B": {f"q{i}": {"d3": 3, "d1": 2} for i in range(1, 5)},
            "C": {f"q{i}": {"d3": 3, "d1": 2, "d2": 1} for i in range(1, 5)}}
    q, paths = write_trec(tmp_path_factory.mktemp("tied"), qrels, runs)
    return q, [str(p) for p in paths]


@pytest.mark.parametrize("extra", [[], ["--effects", "--ci", "t"]])
def test_evaluate_baseline_json_is_the_library_table(tied, extra):
    from irpref.report.baseline import baseline_table, mean_ci
    from irpref.stats import against_baselines

    q, paths = tied
    rows = _strict(_cli("evaluate", q, *paths, "-m", "AP", "RR", "--baseline", "A", *extra,
                        "--format", "json"))
    results = irpref.evaluate(str(q), paths, ["AP", "RR"])
    if extra:
        table = against_baselines(results, "A")
        ci = mean_ci(results)[["run", "measure", "ci_low", "ci_high"]]
        table = table.merge(ci, on=["run", "measure"], how="left", sort=False)
        assert np.isinf(table["effect"]).any()  # written as null
    else:
        table = baseline_table(results, "A")
    _same(rows, table)
    own = next(r for r in rows if r["run"] == "A")
    assert own["paired"] is None and own["p"] is None and own["marker"] == ""


def test_ties_json_is_the_report_tables():
    from irpref.meta.ties import ties_report

    runs = [str(p) for p in RUNS[:2]]
    doc = _strict(_cli("ties", QRELS, *runs, "-m", "AP", "RR", "--format", "json"))
    judged = irpref.judge_inputs(str(QRELS), runs, ties="docid", layout="full")
    report = ties_report(measures=["AP", "RR"], judged=judged)
    assert list(doc) == ["ties", "effects", "orderings", "swaps", "coverage"]
    for name, frame in [("ties", report.ties), ("effects", report.effects),
                        ("orderings", report.orderings), ("swaps", report.swaps),
                        ("coverage", report.coverage.per_run)]:
        _same(doc[name], frame)
    assert {r["run"] for r in doc["ties"]} == set(RUN_NAMES[:2])


def test_measures_json_is_the_rows():
    from irpref.cli.measures import COLUMNS, rows

    got = _strict(_cli("measures", "--format", "json", "AP", "gRBP", "sgnLP"))
    want = rows(["AP", "gRBP", "sgnLP"])
    assert got == want and [list(r) for r in got] == [list(COLUMNS)] * 3
