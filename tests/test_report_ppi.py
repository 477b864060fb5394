"""The report's PPI section is one ``build_report`` builds (``human_qrels=``): the same
numbers as ``ppi_evaluate``, the runs judged once under the machine qrels, through the
Python API and the ``irpref report`` command alike."""

from __future__ import annotations

import importlib
import json

import pandas as pd
import pytest
from helpers import irpref_cli
from ppi_collections import dl19_pair

import irpref
from irpref.errors import UsageError
from irpref.llm_judged import prediction_powered as pp
from irpref.report import ReportOptions, build_report
from irpref.report.ppi_section import ppi_table

MEASURES = ["AP", "nDCG@10"]
EVALUATE = importlib.import_module("irpref.evaluate")  # the module (irpref.evaluate: the function)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    machine, human, runs = dl19_pair(tmp_path_factory.mktemp("dl19"), n_human=12, seed=5,
                                     runs=3)
    return machine, human, [str(r) for r in runs]


def _tables(block) -> list[pd.DataFrame]:
    found = [block.table] if block.table is not None else []
    return found + [t for child in block.children for t in _tables(child)]


def _ppi_table(report) -> pd.DataFrame:
    section = report.sections[-1]
    assert section.id == "ppi" and [s.id for s in report.sections].count("ppi") == 1
    (table,) = [t for b in section.blocks for t in _tables(b)]
    return table


def test_build_report_has_the_ppi_section_judging_the_runs_once(pair, monkeypatch):
    machine, human, runs = pair
    calls = []
    real = EVALUATE.judge_with  # every judging, through judge_inputs or not, goes here

    def counting(qrels, runs, settings, **kwargs):
        calls.append((str(getattr(qrels, "source", qrels)), settings.ties))
        return real(qrels, runs, settings, **kwargs)

    monkeypatch.setattr(EVALUATE, "judge_with", counting)
    options = ReportOptions(ppi_lambda="auto", ppi_interval="t", ppi_confidence=0.9)
    report = build_report(machine, runs, MEASURES, rel=2, human_qrels=human, options=options)
    # once under each qrels with the report's settings (the ties section judges the runs
    # under the other tie policies besides)
    assert sorted(c for c in calls if c[1] == "docid") == sorted(
        [(str(machine), "docid"), (str(human), "docid")]), calls
    got = _ppi_table(report)
    monkeypatch.setattr(EVALUATE, "judge_with", real)
    alone = pp.ppi_evaluate(machine, human, runs, MEASURES, rel=2, confidence=0.9)
    pd.testing.assert_frame_equal(got, ppi_table(alone))  # the same numbers, to the bit


def test_without_human_qrels_there_is_no_ppi_section(pair):
    machine, _, runs = pair
    report = build_report(machine, runs, ["AP"], rel=2)
    assert "ppi" not in [s.id for s in report.sections]


def test_human_qrels_need_the_run_files(pair):
    machine, human, runs = pair
    judged = irpref.judge_inputs(machine, runs, rel=2)
    with pytest.raises(UsageError, match="--human-qrels needs QRELS RUN"):
        build_report(None, None, ["AP"], judged=judged, human_qrels=human)


def test_bad_ppi_options_are_refused():
    with pytest.raises(ValueError, match="ppi_interval"):
        ReportOptions(ppi_interval="wald")
    with pytest.raises(ValueError, match="ppi_confidence"):
        ReportOptions(ppi_confidence=1.5)


@pytest.mark.slow
def test_the_command_writes_the_section_build_report_builds(pair, tmp_path):
    machine, human, runs = pair
    out = irpref_cli("report", machine, *runs, "-m", *MEASURES, "--rel", 2, "--human-qrels",
                     human, "--alpha", "0.1", "-o", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    sections = [s for s in data["sections"] if s["id"] == "ppi"]
    assert len(sections) == 1 and data["sections"][-1]["id"] == "ppi"
    report = build_report(machine, runs, MEASURES, rel=2, human_qrels=human,
                          options=ReportOptions(alpha=0.1, ppi_confidence=0.9))
    want = _ppi_table(report)
    assert json.dumps(sections[0]).count('"run"') >= 1
    for run, value in zip(want["run"], want["value"]):
        assert run in json.dumps(sections[0]) and f"{value:.4f}"[:5] in json.dumps(sections[0])
