"""``--judged-only`` on ``irpref agree`` and ``irpref report``.

The option gives every measure and preference the command evaluates, its
defaults included, ``judged_only=true`` (condensed lists, Sakai 2007); every
table is matched and labelled by the modified names, so ``-m AP --judged-only``
prints exactly what ``-m 'AP(judged_only=true)'`` prints, and the report's
numbers are those of ``irpref evaluate --judged-only``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli

import irpref
from irpref.llm_judged.agreement.systems import split_measures

THREE = RUNS[:3]


@pytest.fixture(scope="module")
def qrels_b(tmp_path_factory) -> str:
    """The example qrels with a third of the pairs dropped and some grades moved:
    many documents the runs retrieve are unjudged under B."""
    rows = [line.split() for line in QRELS.read_text().splitlines() if line.strip()]
    out = []
    for i, (q, it, d, g) in enumerate(rows):
        if i % 3 == 2:
            continue
        g = int(g)
        out.append(f"{q} {it} {d} {(g - 1 if g > 0 else 1) if i % 5 == 4 else g}")
    path = tmp_path_factory.mktemp("qrels_b") / "qrels_b.txt"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def _quiet(func):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func()


# ---- names ------------------------------------------------------------------------------


def test_split_measures_gives_the_modified_canonical_names():
    assert split_measures(["map", "ndcg@10", "sgnLP"]) == (["AP", "nDCG@10"], ["sgnLP"])
    assert split_measures(["map", "nDCG@10", "AP(judged_only=true)", "sgnLP"],
                          judged_only=True) == (
        ["AP(judged_only=true)", "nDCG(judged_only=true)@10"], ["sgnLP(judged_only=true)"])


def test_agree_in_process_judged_only_matches_the_explicit_modifier(qrels_b):
    """Under the modifier every table names the modified measure and equals the
    explicit spelling; Judged@k (about the judging itself) stays plain."""
    applied = _quiet(lambda: irpref.agree(QRELS, qrels_b, THREE, ["AP", "sgnLP"],
                                          judged_at=10, judged_only=True))
    explicit = _quiet(lambda: irpref.agree(QRELS, qrels_b, THREE,
                                           ["AP(judged_only=true)", "sgnLP(judged_only=true)"],
                                           judged_at=10))
    plain = _quiet(lambda: irpref.agree(QRELS, qrels_b, THREE, ["AP", "sgnLP"], judged_at=10))
    assert list(pd.unique(applied.orderings["measure"])) == ["AP(judged_only=true)",
                                                              "sgnLP(judged_only=true)"]
    pd.testing.assert_frame_equal(applied.orderings, explicit.orderings)
    pd.testing.assert_frame_equal(applied.scores, explicit.scores)
    assert not np.allclose(applied.scores["value_b"], plain.scores["value_b"])
    pd.testing.assert_frame_equal(applied.judged, plain.judged)
    assert applied.judged["judged_b"].lt(1).any()  # B leaves part of the top 10 unjudged


# ---- the command line -------------------------------------------------------------------


@pytest.mark.slow
def test_cli_agree_judged_only_equals_the_explicit_modifier(qrels_b):
    flag = irpref_cli("agree", QRELS, qrels_b, *THREE, "-m", "AP", "--judged-only",
                      "--format", "tsv")
    explicit = irpref_cli("agree", QRELS, qrels_b, *THREE, "-m", "AP(judged_only=true)",
                          "--format", "tsv")
    assert flag.returncode == 0, flag.stderr
    assert explicit.returncode == 0, explicit.stderr
    assert flag.stdout == explicit.stdout
    rows = [line.split("\t") for line in flag.stdout.splitlines()]
    assert rows[0] == ["measure", "statistic", "value"]
    assert {r[0] for r in rows[1:]} == {"AP(judged_only=true)"}
    assert "--judged-only removes" in flag.stderr
    out = irpref_cli("agree", QRELS, qrels_b, "--judged-only")  # no rankings to condense
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.splitlines()[-1] == (
        "irpref agree: error: --judged-only needs RUN files (QRELS_A QRELS_B RUN... "
        "--judged-only): the label statistics read no rankings")


def _markdown_table(text: str, header: str) -> list[list[str]]:
    """The rows (cells) of the first Markdown table whose header row is ``header``."""
    lines = text.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


@pytest.mark.slow
def test_cli_report_judged_only_names_and_numbers_equal_evaluate(tmp_path, qrels_b):
    out = tmp_path / "r.md"
    proc = irpref_cli("--quiet", "report", QRELS, *THREE, "-m", "AP", "--judged-only",
                      "--qrels-b", qrels_b, "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    name = "AP(judged_only=true)"
    means = _markdown_table(text, f"| run | {name} |")
    ev = irpref_cli("evaluate", QRELS, *THREE, "-m", "AP", "--judged-only", "--format", "tsv")
    assert ev.returncode == 0, ev.stderr
    expected = {r: float(v) for r, m, v in (ln.split("\t") for ln in ev.stdout.splitlines()[1:])
                if m == name}
    assert len(means) == len(THREE) == len(expected)
    for run, cell in means:
        assert float(cell.split()[0]) == pytest.approx(expected[run], abs=5e-5), run
    plain = _quiet(lambda: irpref.evaluate(QRELS, THREE, ["AP"]))
    plain_means = plain.groupby("run")["value"].mean()
    assert any(abs(plain_means[r] - v) > 1e-3 for r, v in expected.items())
    # every section names the modified measure and preferences, none the plain ones
    for label in (name, "sgnLP(judged_only=true)", "RPP(judged_only=true)"):
        assert label in text
    assert not re.search(r"(\| |### |\*\*)(AP|sgnLP|RPP)(?!\()", text)
    orderings = [r for r in text.splitlines() if r.startswith(f"| {name} | {len(THREE)} |")]
    assert orderings  # the agreement section's system orderings under A and B


@pytest.mark.parametrize("command", ["agree", "report"])
def test_help_offers_judged_only(command):
    import argparse
    import importlib

    parser = argparse.ArgumentParser(prog=f"irpref {command}")
    importlib.import_module(f"irpref.cli.{command}").add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "--judged-only evaluate the condensed lists: unjudged documents removed" in text
    assert "labels read NAME(judged_only=true)" in text
