"""``irpref report``: one answer per question.

- One family rule for every verdict, stated once at the top; every section,
  mark and figure reads the same adjusted p-values (the JSON output: one
  verdict per comparison, whichever way round it is shown).
- Intervals drawn or printed beside a verdict agree with it (adjusted as the
  correction is), or say they are unadjusted; no post-hoc power.
- The population: a run that lacks queries is marked in every table that
  shows it; the topic-set-size verdict says over how many topics and why;
  a run that shares no query with the qrels stops the report with an error
  naming it, never an internal error.
- Names are data: a hostile run name is escaped in Markdown, HTML, JSON and
  the figures.
- The builder takes the judging settings by the names of ``irpref.evaluate``.
"""

from __future__ import annotations

import gzip
import inspect
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import QRELS, RUNS, irpref_cli

import irpref

pytest.importorskip("matplotlib")

pytestmark = pytest.mark.xdist_group("report")

NAMES = [p.name.removesuffix(".gz") for p in RUNS]
FLIP = {"better": "worse", "worse": "better"}
VERDICTS = {"better", "worse", "n.s.", "untested"}


def report_json(tmp_path, *args) -> dict:
    out = tmp_path / "r.json"
    proc = irpref_cli("report", *args, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def verdict_rows(data: dict) -> list[dict]:
    """Every row of every section that states a verdict on a comparison."""
    return [r for s in data["sections"] for r in s["rows"] if "verdict" in r]


def perturbed_qrels(path: Path) -> Path:
    """The example qrels with some grades moved and pairs dropped (a second judgment)."""
    rows = [line.split() for line in Path(QRELS).read_text().splitlines() if line.strip()]
    out = []
    for i, (q, it, d, g) in enumerate(rows):
        if i % 11:
            g = int(g)
            out.append(f"{q} {it} {d} {max(0, g - 1) if i % 5 == 0 else min(3, g + 1)}\n"
                       if i % 5 == 0 or i % 7 == 0 else f"{q} {it} {d} {g}\n")
    path.write_text("".join(out))
    return path


# ------------------------------------------------------------ one verdict per comparison


@pytest.fixture(scope="module")
def two_baselines(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("verdicts")
    qrels_b = perturbed_qrels(tmp / "b.qrels")
    data = report_json(tmp, QRELS, *RUNS, "--rel", "2", "--baseline", NAMES[0], "--baseline",
                       NAMES[1], "--qrels-b", qrels_b)
    return data


@pytest.mark.slow
def test_json_has_the_family_and_sections(two_baselines):
    data = two_baselines
    assert "Holm over the 15 run pairs of each measure and preference" in data["family"]
    assert [s["title"] for s in data["sections"]][:2] == ["Summary against the baselines",
                                                          "How sure are we"]
    assert all(isinstance(s["rows"], list) for s in data["sections"])
    rows = verdict_rows(data)
    sections = {s["id"] for s in data["sections"] if any("verdict" in r for r in s["rows"])}
    assert {"summary", "how-sure", "significance", "agreement"} <= sections
    for r in rows:
        assert {"measure", "run", "baseline", "p_adjusted", "verdict"} <= set(r)
        assert r["verdict"] in VERDICTS and r["run"] != r["baseline"]


@pytest.mark.slow
def test_one_verdict_per_comparison_in_every_section(two_baselines):
    """The issue's case: a run marked against a baseline in the summary and the same pair
    in the significance section (and How sure, the agreement's swaps) say the same."""
    seen: dict = {}
    for r in verdict_rows(two_baselines):
        key = (r["measure"], r["run"], r["baseline"])
        twin = (r["measure"], r["baseline"], r["run"])
        verdict, p = r["verdict"], r["p_adjusted"]
        if twin in seen and key not in seen:
            verdict = FLIP.get(verdict, verdict)
            key = twin
        if key in seen:
            assert seen[key][0] == verdict, (key, seen[key], r)
            assert seen[key][1] == pytest.approx(p, rel=1e-12), (key, seen[key], r)
        else:
            seen[key] = (verdict, p)
    # the comparisons of the two baselines with each other and with every run are there
    assert ("AP", NAMES[1], NAMES[0]) in seen or ("AP", NAMES[0], NAMES[1]) in seen
    assert len({k for k in seen if k[0] == "AP"}) == 15  # every pair of the 6 runs, once


@pytest.mark.slow
def test_summary_marks_are_the_verdicts(two_baselines):
    """Every ▲/▼ in the means table is a better/worse verdict of that comparison, and
    every better/worse verdict against a baseline has its mark there."""
    summary = next(s for s in two_baselines["sections"] if s["id"] == "summary")
    marks = {(r["measure"], r["run"], r["baseline"]): r["mark"] for r in summary["rows"]
             if r["table"] == "Means" and "mark" in r}
    letters = {NAMES[0]: "a", NAMES[1]: "b"}
    significant = {(r["measure"], r["run"], r["baseline"]): r["verdict"]
                   for r in summary["rows"] if r["table"] != "Means" and "verdict" in r
                   and r["verdict"] in FLIP}
    assert marks and set(marks) == set(significant)
    for key, verdict in significant.items():
        assert marks[key] == {"better": "▲", "worse": "▼"}[verdict] + letters[key[2]]


@pytest.mark.slow
def test_the_rule_is_stated_once_at_the_top(tmp_path):
    out = tmp_path / "r.html"
    proc = irpref_cli("report", QRELS, *RUNS[:4], "--rel", "2", "-m", "AP", "--correction",
                      "bonferroni", "--family", "all", "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    top = text[:text.index("<section")]
    assert top.count('<p class="rule">') == 2  # the rule, the population
    assert "p adjusted by Bonferroni over all run pairs of every measure and preference " \
           "together, one family per test (12 t tests; 6 sign tests)" in top  # 6 pairs x 3
    body = text[text.index("<section"):]
    assert "Bonferroni over" not in body and "runs x baselines" not in body
    assert "the rule at the top" in body


# ------------------------------------------------------------ intervals agree with verdicts


@pytest.mark.slow
@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm", "bh", "by"])
def test_drawn_intervals_agree_with_the_verdicts(correction):
    """The interval beside a verdict excludes 0 exactly when the verdict is significant
    (Bonferroni, BH, BY, none: always; Holm: Bonferroni intervals, and a comparison Holm
    rejects inside one is marked in the table and the figure)."""
    from scipy import stats as sps

    from irpref.report import ReportOptions, build_report

    rep = build_report(QRELS, RUNS, ["AP", "P@10"], baseline=NAMES[:2], rel=2,
                       options=ReportOptions(correction=correction))
    section = next(s for s in rep.sections if s.id == "how-sure")
    table = next(b for b in section.blocks if b.title.startswith("All ")).children[0].table
    significant = table["verdict"].isin(["better", "worse"]).to_numpy()
    excludes = ((table["adjusted_low"] > 0) | (table["adjusted_high"] < 0)).to_numpy()
    disagree = excludes != significant
    if correction == "holm":
        assert disagree.sum() >= 1  # P@10 bm25tuned_rm3_p vs UNH_bm25 (README example)
        assert (table.loc[disagree, "note"].str.contains("Holm rejects")).all()
        assert (significant | ~disagree).all()  # only Holm's extra rejections
    else:
        assert not disagree.any()
        assert "note" not in table
    # the level: 1 - alpha / m for Bonferroni and Holm (m = 15 pairs of each measure)
    level = {"none": 0.95, "bonferroni": 1 - 0.05 / 15, "holm": 1 - 0.05 / 15}
    if correction in level:
        assert np.allclose(table["level"], level[correction])
    res = irpref.evaluate(QRELS, RUNS, ["AP"], rel=2).pivot(index="query", columns="run",
                                                             values="value")
    row = table[table["measure"] == "AP"].iloc[0]
    d = res[row["run"]] - res[row["baseline"]]
    low, high = sps.t.interval(row["level"], len(d) - 1, loc=d.mean(), scale=sps.sem(d))
    assert (row["adjusted_low"], row["adjusted_high"]) == pytest.approx((low, high))
    # every printed interval is the verdict's or says it is unadjusted
    for col in table.columns:
        if col.endswith(("_low", "_high")):
            assert col.startswith("adjusted") or "unadjusted" in col, col
    assert "power" not in table.columns
    # the figure draws the adjusted intervals with the verdicts' fills
    figure = next(b for b in section.blocks if b.kind == "details").children[0]
    fig = figure.draw()
    drawn = fig.irpref_data
    mine = table[table["measure"] == "AP"].reset_index(drop=True)
    np.testing.assert_allclose(drawn["ci_low"], mine["adjusted_low"])
    assert drawn["marker"].tolist() == [{"better": "▲", "worse": "▼"}.get(v, "")
                                        for v in mine["verdict"]]
    assert drawn["agrees"].tolist() == (~disagree[:len(mine)]).tolist()
    texts = " ".join(t.get_text() for t in fig.texts)
    assert "intervals: " in texts and ("Bonferroni" in texts if correction in ("holm",
                                       "bonferroni") else True)


@pytest.mark.slow
def test_minimum_detectable_difference_stays_power_goes(tmp_path):
    data = report_json(tmp_path, QRELS, *RUNS[:3], "--rel", "2", "-m", "AP")
    sure = next(s for s in data["sections"] if s["id"] == "how-sure")
    assert not any("power" in r for r in sure["rows"] if "verdict" in r)
    assert all("below_min_diff" in r for r in sure["rows"] if "verdict" in r)
    assert any(t.startswith("With 43 topics (every judged topic") for t in sure["text"])
    assert "power at each observed difference" not in json.dumps(data)


# ------------------------------------------------------------ the population


@pytest.fixture(scope="module")
def lacking(tmp_path_factory):
    """A run lacking its first 5 queries, one sharing no query (leading zeros)."""
    tmp = tmp_path_factory.mktemp("lacking")
    with gzip.open(RUNS[2], "rt") as fh:
        lines = fh.read().splitlines(keepends=True)
    queries = list(dict.fromkeys(line.split()[0] for line in lines))
    (tmp / "lack5").write_text("".join(x for x in lines if x.split()[0] not in queries[:5]))
    (tmp / "zeros").write_text("".join("0" + x for x in lines))
    return tmp


@pytest.mark.slow
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_a_run_lacking_queries_is_marked(tmp_path, lacking, missing):
    data = report_json(tmp_path, QRELS, RUNS[0], RUNS[1], lacking / "lack5", "--rel", "2",
                       "-m", "AP", "--missing", missing)
    assert "lack5 lacks 5 of the 43 judged queries" in data["population"]
    label = "38 of 43" if missing == "skip" else "43, 5 scored 0"
    summary = next(s for s in data["sections"] if s["id"] == "summary")
    means = [r for r in summary["rows"] if r["table"] == "Means" and "mean" in r]
    assert {r["queries"] for r in means if r["run"] == "lack5"} == {38 if missing == "skip"
                                                                   else 43}
    for sid in ("ties", "preferences"):  # tables that list runs say over how many queries
        section = next(s for s in data["sections"] if s["id"] == sid)
        assert {r["queries"] for r in section["rows"] if r.get("run") == "lack5"} == {label}
    sure = next(s for s in data["sections"] if s["id"] == "how-sure")
    topics = 38 if missing == "skip" else 43
    text = next(t for t in sure["text"] if t.startswith("With"))
    assert text.startswith(f"With {topics} topics (")
    if missing == "skip":
        assert "the topics every run has, of 43 judged" in text and "lack5" in text


@pytest.mark.slow
def test_the_markdown_means_table_marks_the_run(tmp_path, lacking):
    out = tmp_path / "r.md"
    proc = irpref_cli("report", QRELS, RUNS[0], lacking / "lack5", "--rel", "2", "-m", "AP",
                      "-o", out)
    assert proc.returncode == 0, proc.stderr
    row = re.search(r"^\| lack5 \| (.*) \|$", out.read_text(), re.M).group(1)
    assert row.startswith("38 of 43 | ")  # queries, then the means


@pytest.mark.parametrize("runs", [["zeros"], ["zeros", "RUN"], ["RUN", "zeros"]])
def test_a_run_sharing_no_query_is_refused(tmp_path, lacking, runs):
    paths = [lacking / r if r == "zeros" else RUNS[0] for r in runs]
    proc = irpref_cli("report", QRELS, *paths, "-o", tmp_path / "r.html")
    assert proc.returncode == 1, proc.stderr
    assert "zeros" in proc.stderr and "internal error" not in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "r.html").exists()


# ------------------------------------------------------------ names are data

HOSTILE = "<img src=x onerror=alert(1)>|a_b$x^2$*c[d]"


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    paths = []
    for name, src in zip([HOSTILE, "plain", "other"], RUNS):
        shutil.copy(src, tmp / f"{name}.gz")
        paths.append(tmp / f"{name}.gz")
    return paths


@pytest.mark.slow
def test_hostile_run_name_in_the_markdown_report(tmp_path, hostile_runs):
    from urllib.parse import unquote

    from test_output import check_markdown

    out = tmp_path / "my report (1).md"  # the figures' file names: a link each can follow
    proc = irpref_cli("report", QRELS, *hostile_runs, "--rel", "2", "-m", "AP", "--baseline",
                      "plain", "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "<img" not in text and "onerror=alert(1)&gt;" in text
    check_markdown(text)  # every table keeps its columns
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links and all(" " not in link and "(" not in link for link in links)
    for link in links:
        assert (tmp_path / unquote(link)).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_hostile_run_name_in_the_html_and_json_reports(tmp_path, hostile_runs):
    from html.parser import HTMLParser

    out = tmp_path / "r.html"
    proc = irpref_cli("report", QRELS, *hostile_runs, "--rel", "2", "-m", "AP", "-o", out)
    assert proc.returncode == 0, proc.stderr

    class Images(HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            if tag == "img":
                self.found.append(dict(attrs))

    parser = Images()
    parser.found = []
    parser.feed(out.read_text())
    assert parser.found and all(set(a) == {"alt", "src"} for a in parser.found)
    assert all(a["src"].startswith("data:image/png;base64,") for a in parser.found)
    data = report_json(tmp_path, QRELS, *hostile_runs, "--rel", "2", "-m", "AP")
    assert HOSTILE in data["runs"]
    assert any(r.get("run") == HOSTILE for s in data["sections"] for r in s["rows"])


def test_figure_labels_print_a_dollar_as_a_dollar():
    """A run name is never read as matplotlib mathtext (``$x^2$`` typeset, or an error)."""
    from irpref.report import plots

    res = irpref.evaluate(QRELS, [str(p) for p in RUNS[:2]], ["AP"], rel=2)
    res["run"] = res["run"].map({NAMES[0]: "a$x^2$", NAMES[1]: "b$\\frac$"})
    fig = plots.distributions(res, "AP")
    fig.canvas.draw()  # an unparsable mathtext would raise here
    labels = [t for t in fig.findobj(lambda a: hasattr(a, "get_text")) if "$" in t.get_text()]
    assert labels and all(not t.get_parse_math() for t in labels)



def test_every_figure_reads_names_as_plain_text():
    """The rank figure and the PPI figure too (they were drawn outside ``plain_text``)."""
    from irpref.report.figure_kit import plain_text
    from irpref.report.ppi_section import ppi_intervals
    from irpref.report.rank_plots import rank_intervals

    assert all(getattr(f, "__wrapped__", None) for f in (ppi_intervals, rank_intervals))
    assert plain_text  # the wrapper both use


@pytest.mark.slow
def test_a_name_the_font_lacks_is_one_warning(tmp_path):
    """CJK run names under a font without them: matplotlib's one warning per glyph and
    per figure becomes one line saying what the reader sees."""
    names = ["\u4e00\u4e01\u4e02", "plain"]
    paths = []
    for name, src in zip(names, RUNS):
        shutil.copy(src, tmp_path / name)
        paths.append(tmp_path / name)
    out = tmp_path / "r.html"
    proc = irpref_cli("report", QRELS, *paths, "--rel", "2", "-m", "AP", "-o", out)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == f"wrote {out}" and not any("Glyph" in ln for ln in lines), lines
    assert len(lines) <= 2  # the font note, where the font lacks the characters
    assert names[0] in out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_report_over_one_query(tmp_path):
    """One shared query: no test can run; the report says so instead of dividing by 0."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    runs = []
    for name, docs in (("a", "d1 d2"), ("b", "d2 d1")):
        runs.append(tmp_path / name)
        runs[-1].write_text("".join(f"1 Q0 {d} {r} {9 - r} {name}\n"
                                    for r, d in enumerate(docs.split(), 1)))
    proc = irpref_cli("report", qrels, *runs, "-o", tmp_path / "r.md")
    assert proc.returncode == 0 and "internal error" not in proc.stderr, proc.stderr


# ------------------------------------------------------------ the judging settings


def test_builder_takes_the_settings_of_evaluate():
    from irpref.params import SETTING_NAMES, Settings
    from irpref.report import build_report

    params = inspect.signature(build_report).parameters
    assert set(SETTING_NAMES) <= set(params) and "settings" in params
    for name in SETTING_NAMES:
        assert params[name].default == getattr(Settings(), name)
    with pytest.raises(irpref.errors.UsageError, match="rel=3"):
        build_report(QRELS, RUNS[:2], ["AP"], rel=3, settings=Settings(rel=2))


def test_judged_only_is_the_settings_value():
    """judged_only=True puts the modifier on every measure, preference and the report's
    own RR and sgnLP; without it none has it (no hidden state decides)."""
    from irpref.report import build_report

    for only in (True, False):
        rep = build_report(QRELS, [str(p) for p in RUNS[:3]], ["AP"], rel=2, judged_only=only)
        robust = next(s for s in rep.sections if s.id == "robustness")
        names = set(robust.blocks[1].children[0].table["measure"])
        want = ({"RR(judged_only=true)", "sgnLP(judged_only=true)"} if only
                else {"RR", "sgnLP"})
        assert names == want
        assert rep.measures == (["AP(judged_only=true)"] if only else ["AP"])
        assert rep.settings["judged_only"] is only


def test_one_test_call_decides_every_verdict(monkeypatch):
    """The verdicts come from one significance call over every pair (ci none); the
    summary and How sure read it."""
    import irpref.stats as stats
    from irpref.report import build_report

    calls = []
    real = stats.significance
    monkeypatch.setattr(stats, "significance",
                        lambda *a, **k: calls.append(k.get("ci")) or real(*a, **k))
    build_report(QRELS, [str(p) for p in RUNS[:3]], ["AP"], rel=2)
    assert calls.count("none") == 1


@pytest.mark.slow
def test_untested_measure_has_no_verdict(tmp_path):
    data = report_json(tmp_path, QRELS, *RUNS[:3], "--rel", "2", "-m", "AP", "NumRet")
    summary = next(s for s in data["sections"] if s["id"] == "summary")
    numret = [r for r in summary["rows"] if r.get("measure") == "NumRet"]
    assert numret and all(r.get("verdict") in (None, "untested") for r in numret)
    assert not any(r.get("measure") == "NumRet" for s in data["sections"]
                   if s["id"] == "significance" for r in s["rows"])
    frame = pd.DataFrame(verdict_rows(data))
    assert set(frame["verdict"]) <= VERDICTS


@pytest.mark.slow
def test_many_runs_json_keeps_every_verdict(tmp_path):
    """Past 15 runs the pairs show as matrices; the JSON still lists every pair's verdict,
    the same as the summary's."""
    runs = sorted((Path(__file__).parent / "data" / "dl19-passage" / "runs").glob("*.gz"))[:16]
    qrels = Path(__file__).parent / "data" / "dl19-passage" / "qrels.txt"
    data = report_json(tmp_path, qrels, *runs, "--rel", "2", "-m", "AP")
    sig = next(s for s in data["sections"] if s["id"] == "significance")
    ap = {frozenset((r["run"], r["baseline"])): r for r in sig["rows"]
          if r.get("measure") == "AP" and "verdict" in r}
    assert len(ap) == 16 * 15 // 2
    summary = next(s for s in data["sections"] if s["id"] == "summary")
    for r in summary["rows"]:
        if "verdict" in r and r["measure"] == "AP":
            pair = ap[frozenset((r["run"], r["baseline"]))]
            same = pair["run"] == r["run"]
            assert r["verdict"] == (pair["verdict"] if same
                                    else FLIP.get(pair["verdict"], pair["verdict"]))
            assert r["p_adjusted"] == pair["p_adjusted"]


@pytest.mark.slow
def test_the_leaderboard_reads_the_one_test_result(two_baselines):
    """The report's Leaderboard section ranks a metric from the p-values of the same tests
    as every other verdict, as the one-sided family of Mogstad et al. (2024): Holm's
    step-down over the R(R-1) hypotheses "run j is not better than run k" (p / 2 in the
    direction of the mean, 1 against it); rank_low = 1 + the runs rejected better,
    rank_high = R - the runs rejected worse. Its intervals separate no pair whose verdict
    is n.s., and every rank lies in its interval (preferences too)."""
    from statsmodels.stats.multitest import multipletests

    from irpref.measures import parse_measure

    sections = {s["id"]: s for s in two_baselines["sections"]}
    board = [r for r in sections["leaderboard"]["rows"] if "rank_low" in r]
    pairs = [r for r in sections["significance"]["rows"] if "verdict" in r]
    assert board and pairs
    assert "simultaneous: yes" in sections["leaderboard"]["sentence"]
    for row in board:
        assert row["rank_low"] <= row["rank"] <= row["rank_high"], row
    metrics = set()
    for m in {r["measure"] for r in board}:
        try:
            metrics.add((m, parse_measure(m).orientation))
        except ValueError:
            continue  # a preference: ranked by its win rates, tested apart
    assert metrics
    for measure, orientation in metrics:
        rows = [r for r in board if r["measure"] == measure]
        runs = [r["run"] for r in rows]
        mine = [p for p in pairs if p["measure"] == measure]
        up = 1 if orientation == "higher" else -1
        hyps, ps = [], []
        for p in mine:
            first = np.sign(p["mean"]) * up > 0
            hyps += [(p["run"], p["baseline"]), (p["baseline"], p["run"])]
            ps += [p["p"] / 2, 1.0] if first else [1.0, p["p"] / 2]
        rejected = multipletests(ps, 0.05, "holm")[0]
        better = {(j, k) for (j, k), r in zip(hyps, rejected) if r}
        for row in rows:
            run = row["run"]
            assert row["rank_low"] == 1 + sum((k, run) in better for k in runs), row
            assert row["rank_high"] == len(runs) - sum((run, k) in better for k in runs), row
        verdict = {(p["run"], p["baseline"]): p["verdict"] for p in mine}
        for j, k in better:
            assert verdict.get((j, k), "better") == "better"
            assert verdict.get((k, j), "worse") == "worse"
