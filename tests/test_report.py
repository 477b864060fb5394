"""``irpref report``: one self-contained HTML file or Markdown with figures beside it."""

from __future__ import annotations

import base64
import gzip
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from helpers import irpref_cli

import irpref  # noqa: E402
from irpref import examples  # noqa: E402
from irpref.errors import MissingQueries, UsageError  # noqa: E402
from irpref.report import build_report  # noqa: E402
from irpref.report.document import render_html  # noqa: E402

# under pytest-xdist (scripts/test.sh: -n 2 --dist loadgroup) this module runs on one
# worker, so its module-scoped HTML report is built once
pytestmark = pytest.mark.xdist_group("report")

QRELS = examples.qrels_path()
RUNS = [str(p) for p in examples.run_paths()]
NAMES = ["TUA1-1", "UNH_bm25", "bm25base_p", "bm25tuned_rm3_p", "idst_bert_p1", "p_bert"]
SECTIONS = ["Summary against the baseline", "How sure are we", "Per-query views",
            "Preferences and system orderings", "Significance and discriminative power",
            "Leaderboard", "Ties", "How much was judged", "Search lengths",
            "Robustness to missing labels"]


def irpref_cmd() -> str:
    return shutil.which("irpref") or str(Path(sys.executable).parent / "irpref")


def run_cli(*args):
    return irpref_cli("report", *args)


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    proc = run_cli(QRELS, *RUNS, "--rel", "2", "--baseline", "bm25base_p", "-m", "AP",
                   "nDCG@10", "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.slow
def test_html_is_self_contained(html_report):
    text = html_report.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for name in SECTIONS:
        assert f"<h2>{name}</h2>" in text
    for name in NAMES:
        assert name in text
    # no network: no external URLs in src/href, no scripts, no external fonts
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)
    assert "<script" not in text and "@import" not in text and "@font-face" not in text
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(images) >= 6
    for img in images:
        assert base64.b64decode(img)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<details" in text
    # each section says what it shows and where it comes from
    for sentence in re.findall(r'<p class="what">(.*?)</p>', text):
        assert re.search(r"(19|20)\d\d", sentence)
    assert len(re.findall(r'<p class="what">', text)) == len(SECTIONS)
    assert not list(html_report.parent.glob(".*.tmp"))  # the temp file was renamed


def test_summary_matches_per_query_means_and_the_one_test():
    """The summary's means are the per-query means; its p-values are the paired t tests
    of ``irpref significance`` over every pair of runs, Holm over the 15 pairs (the one
    family of the report), not a second family of the five comparisons with the
    baseline."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests

    report = build_report(QRELS, RUNS, ["AP"], baseline="bm25base_p", rel=2)
    res = irpref.evaluate(QRELS, RUNS, ["AP"], rel=2)
    wide = res.pivot(index="query", columns="run", values="value")
    section = next(s for s in report.sections if s.id == "summary")
    means = section.blocks[0].rows[0].set_index("run")
    stats = section.blocks[1].children[0].table.set_index("run")
    pairs = [(a, b) for i, a in enumerate(NAMES) for b in NAMES[i + 1:]]
    p = np.array([sps.ttest_rel(wide[a], wide[b]).pvalue for a, b in pairs])
    holm = dict(zip(map(frozenset, pairs), multipletests(p, method="holm")[1]))
    for run in NAMES:
        assert means.loc[run, "mean"] == pytest.approx(wide[run].mean())
        if run != "bm25base_p":
            d = wide[run] - wide["bm25base_p"]
            assert stats.loc[run, "diff"] == pytest.approx(d.mean())
            assert (stats.loc[run, "wins"], stats.loc[run, "losses"]) == (
                (d > 0).sum(), (d < 0).sum())
            assert stats.loc[run, "p"] == pytest.approx(
                sps.ttest_rel(wide[run], wide["bm25base_p"]).pvalue)
            assert stats.loc[run, "p_adjusted"] == pytest.approx(
                holm[frozenset((run, "bm25base_p"))], rel=1e-12)


def test_summary_query_named_all_counts(tmp_path):
    """A query named ``all`` is a query like any other in the report's numbers."""
    import gzip

    first = Path(QRELS).read_text().split()[0]

    def renamed(text: str) -> str:  # the first query is called all
        return "".join("all" + line[len(first):] if line.startswith(first + " ") else line
                       for line in text.splitlines(keepends=True))

    (tmp_path / "q").write_text(renamed(Path(QRELS).read_text()))
    runs = []
    for path in RUNS[:3]:
        runs.append(tmp_path / Path(path).name.removesuffix(".gz"))
        with gzip.open(path, "rt") as fh:
            runs[-1].write_text(renamed(fh.read()))
    plain = build_report(QRELS, RUNS[:3], ["AP"], rel=2).sections[0].blocks[0].rows[0]
    other = build_report(tmp_path / "q", runs, ["AP"], rel=2).sections[0].blocks[0].rows[0]
    pd.testing.assert_frame_equal(plain, other)


@pytest.mark.slow
def test_baseline_by_file_name():
    # three runs, the baseline in the middle: what is tested does not grow with the runs
    report = build_report(QRELS, RUNS[:3], ["P@10"], baseline=RUNS[1], rel=2)
    assert report.baseline == "UNH_bm25"
    assert "baseline <b>UNH_bm25</b>" in render_html(report)


@pytest.mark.slow
def test_unknown_baseline_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="TUA1-1, UNH_bm25"):
        build_report(QRELS, RUNS, ["AP"], baseline="nope")
    proc = run_cli(QRELS, *RUNS, "--baseline", "nope", "-o", tmp_path / "r.html")
    assert proc.returncode == 2
    assert "nope" in proc.stderr and "bm25base_p" in proc.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("args, message", [
    (["-o", "r.txt"], ".html, .md or .json"),
    (["-o", "missing_dir/r.html"], "does not exist"),
    (["--alpha", "2", "-o", "r.html"], "--alpha 2: must be in (0, 1)"),
])
def test_bad_options(tmp_path, args, message):
    args = [str(tmp_path / a) if a.startswith(("r.", "missing")) else a for a in args]
    proc = run_cli(QRELS, *RUNS, *args)
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_markdown_with_figures_beside(tmp_path):
    out = tmp_path / "rep.md"
    proc = run_cli(QRELS, *RUNS[:3], "-m", "P@10", "--rel", "2", "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links
    for link in links:
        assert (tmp_path / link).read_bytes()[:4] == b"\x89PNG"
    for name in SECTIONS:
        assert f"## {name}" in text
    assert "| run |" in text


def test_search_lengths_follow_the_reports_missing_rule(tmp_path):
    """Under --missing zero a run's lacking queries are empty rankings in every section:
    the search-length table counts their relevant items (all unretrieved) as
    irpref.search_lengths does, beside the "43, 2 scored 0" it prints."""
    lacking = tmp_path / "lacking.run"
    with gzip.open(RUNS[0], "rt") as lines, open(lacking, "w") as out:
        for line in lines:
            q, _, d, rank, score, _ = line.split()
            if q not in ("1037798", "104861"):
                out.write(f"{q} Q0 {d} {rank} {score} lacking\n")
    runs = [RUNS[1], str(lacking)]
    for missing in ("skip", "zero"):
        with pytest.warns(MissingQueries):
            report = build_report(QRELS, runs, ["AP"], rel=2, missing=missing)
        section = next(s for s in report.sections if s.id == "search-lengths")
        table = next(b for b in section.blocks if b.kind == "details").children[0].table
        with pytest.warns(MissingQueries):
            items = irpref.search_lengths(QRELS, runs, rel=2, missing=missing)
        counts = items.groupby("run", sort=False).size()
        assert dict(zip(table["run"], table["count"])) == counts.to_dict()
        assert dict(zip(table["run"], table["mean"])) == pytest.approx(
            items.groupby("run", sort=False)["search_length"].mean().to_dict())
        assert counts["lacking"] == (counts[NAMES[1]] if missing == "zero"
                                     else counts[NAMES[1]] - 118)
