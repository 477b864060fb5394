"""Every view that marks, bolds or orders runs agrees with each measure's record.

A small synthetic collection where run ``good`` finds the relevant documents
first, ``mid`` later and ``bad`` last: for every lower-is-better measure of the
registry (search lengths: a smaller value is better) ``good`` must be marked
better than the baseline ``mid`` and bold as the best, in every output format
of ``irpref evaluate --baseline``, in ``irpref report``'s summary and in the
difference and significance figures; ``compare`` orders the runs the same way.
Then a run lacking queries, under each ``--missing`` value: every command shows
the n it compares on and says how it pairs.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from helpers import irpref_cli, write_qrels, write_run

import irpref
from irpref.errors import UsageError
from irpref.measures import REGISTRY, parse_measure
from irpref.report import plots

LOWER = [n for n, f in REGISTRY.items() if f.orientation == "lower"]
QUERIES = [f"q{i}" for i in range(1, 11)]
LACKED = ("q2", "q5")
FORMATS = ("table", "tsv", "json", "markdown", "latex", "html")


def _text(name: str) -> str:
    """The measure as evaluated here: imputation after the last retrieved item
    when the measure has that parameter (no corpus size needed)."""
    try:
        return str(parse_measure(f"{name}(impute=optimistic)"))
    except (UsageError, ValueError):
        return str(parse_measure(name))


MEASURES = [_text(n) for n in LOWER]


def _ranking(q: int, positions: list[int]) -> list[tuple[str, str, float]]:
    """20 documents: the relevant r0..r3 at ``positions`` (1-based), n* elsewhere."""
    docs, others = {}, iter(f"n{i}" for i in range(16))
    for i, p in enumerate(positions):
        docs[p] = f"r{i}"
    ranking = [docs.get(p) or next(others) for p in range(1, 21)]
    return [(f"q{q}", d, float(100 - k)) for k, d in enumerate(ranking)]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    qrels = write_qrels(d / "qrels", [(q, f"r{i}", 1) for q in QUERIES for i in range(4)]
                        + [(q, f"n{i}", 0) for q in QUERIES for i in range(16)])
    shapes = {"good": lambda q: [1 + q % 2, 2 + q % 2, 4, 5],
              "mid": lambda q: [4 + q % 3, 8, 10, 12],
              "bad": lambda q: [9 + q % 2, 13, 15, 18]}
    runs = {name: write_run(d / name, [row for q in range(1, 11) for row in _ranking(q, f(q))],
                            tag=name) for name, f in shapes.items()}
    runs["lacks"] = write_run(d / "lacks", [row for q in range(1, 11) if f"q{q}" not in LACKED
                                            for row in _ranking(q, shapes["good"](q))],
                              tag="lacks")
    return qrels, runs


def _three(collection):
    qrels, runs = collection
    return [qrels, runs["good"], runs["mid"], runs["bad"]]


# ------------------------------------------------ evaluate --baseline, every format

def _marks(fmt: str, out: str) -> dict[tuple[str, str], str]:
    """(run, measure) -> the marker a format printed ('' for none)."""
    if fmt == "tsv":
        rows = [line.split("\t") for line in out.splitlines()]
        head = rows[0]
        return {(r[0], r[1]): r[head.index("marker")] for r in rows[1:]}
    if fmt == "json":
        return {(r["run"], r["measure"]): r["marker"] for r in json.loads(out)}
    if fmt == "table":
        found = {}
        for line in out.splitlines():
            parts = line.split()
            if len(parts) > 2 and parts[0] in ("good", "mid", "bad"):
                mark = next((p for p in parts if p in ("▲", "▼")), "")
                found[parts[0], parts[1]] = mark
        return found
    header = {"markdown": r"^\| run \|(.*)\|$", "latex": r"^run & (.*) \\\\$",
              "html": r"<thead><tr><th>run</th>(.*?)</tr></thead>"}[fmt]
    names = re.search(header, out, re.M).group(1)
    cols = {"markdown": lambda s: [c.strip() for c in s.split("|")],
            "latex": lambda s: [c.strip() for c in s.split("&")],
            "html": lambda s: re.findall(r"<th>(.*?)</th>", s)}[fmt](names)
    found = {}
    for run in ("good", "mid", "bad"):
        if fmt == "markdown":
            cells = re.search(rf"^\| {run} \|(.*)\|$", out, re.M).group(1).split("|")
        elif fmt == "latex":
            cells = re.search(rf"^{run} & (.*) \\\\$", out, re.M).group(1).split("&")
        else:
            cells = re.findall(r"<td>(.*?)</td>", re.search(
                rf"<tr><th>{run}</th>(.*?)</tr>", out).group(1))
        for col, cell in zip(cols, cells):
            mark = ("▲" if ("▲" in cell or r"\uparrow" in cell) else
                    "▼" if ("▼" in cell or r"\downarrow" in cell) else "")
            bold = "**" in cell or r"\textbf" in cell or "<b>" in cell
            found[run, _unescape(col)] = mark + ("*" if bold else "")
    return found


def _unescape(text: str) -> str:
    return text.replace(r"\_", "_").replace("&amp;", "&")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_evaluate_baseline_marks_follow_orientation(collection, fmt):
    proc = irpref_cli("evaluate", *_three(collection), "-m", "AP", *MEASURES, "NumRet",
                      "--baseline", "mid", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    marks = _marks(fmt, proc.stdout)
    for m in ["AP", *MEASURES]:  # good is better than mid on every one, bad worse
        assert marks["good", m].startswith("▲"), (m, marks)
        assert marks["bad", m].startswith("▼"), (m, marks)
        if fmt in ("markdown", "latex", "html"):  # the best (smallest ASL) is bold
            assert marks["good", m].endswith("*") and not marks["bad", m].endswith("*")
    assert not marks["good", "NumRet"].strip("*") and not marks["bad", "NumRet"].strip("*")
    if fmt in ("markdown", "latex", "html"):
        assert "*" not in marks["good", "NumRet"]  # no better direction: no bold
    if fmt == "table":  # the legend says which way is better
        assert "lower is better for " + ", ".join(MEASURES) in proc.stdout
        assert "NumRet: no better direction, no mark" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["markdown", "latex", "html"])
def test_paper_table_bolds_the_smallest_search_length(collection, fmt):
    """Without a baseline too: the bold value is the smallest for a lower-is-better measure."""
    proc = irpref_cli("evaluate", *_three(collection), "-m", *MEASURES, "AP", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    marks = _marks(fmt, proc.stdout)
    for m in [*MEASURES, "AP"]:
        assert marks["good", m] == "*" and marks["mid", m] == "" and marks["bad", m] == ""


@pytest.mark.slow
def test_compare_orders_best_first(collection):
    proc = irpref_cli("compare", *_three(collection), "-m", "sgnLP", "RPP")
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.split("system orderings --")[1:]
    assert len(blocks) == 2
    for block in blocks:
        lines = block.strip().splitlines()
        firsts = [ln.split()[1::2] for ln in lines[1:4]]  # rank 1, 2, 3 by each method
        assert firsts == [["good"] * 3, ["mid"] * 3, ["bad"] * 3], lines


def test_ties_with_lower_measures(collection):
    proc = irpref_cli("ties", *_three(collection), "-m", *MEASURES, "--format", "tsv")
    assert proc.returncode == 0, proc.stderr
    assert set(MEASURES) <= {line.split("\t")[1] for line in proc.stdout.splitlines()[1:]}


@pytest.mark.parametrize("measure", MEASURES)
def test_figures_follow_orientation(collection, measure):
    qrels, runs = collection
    results = irpref.evaluate(qrels, [runs["good"], runs["mid"], runs["bad"]], [measure])
    fig = plots.differences(results, "mid", measure)
    for ax, run in zip(fig.axes, ["good", "bad"]):
        bars = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers}
        better = bars["run better (lower)"]
        assert all(h <= 0 for h in better)  # a smaller search length wins
        assert all(h > 0 for h in bars["baseline better"])
        assert (len(better) > len(bars["baseline better"])) == (run == "good")
    table = pd.DataFrame({"measure": measure, "run_a": ["good", "good", "mid"],
                          "run_b": ["mid", "bad", "bad"], "mean": [-2.0, -5.0, -3.0],
                          "p_adjusted": [0.001, 0.001, 0.001]})
    matrix = plots.significance_data(table, measure, alpha=0.05)
    assert list(matrix.index) == ["good", "mid", "bad"]  # best first
    assert matrix.loc["good", "mid"] == 1 and matrix.loc["bad", "mid"] == -1


# ------------------------------------------------ a run lacking queries x --missing

def _lacking(collection):
    qrels, runs = collection
    return [qrels, runs["mid"], runs["lacks"], runs["bad"]]


@pytest.mark.slow
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_evaluate_baseline_pairs_and_shows_n(collection, missing):
    proc = irpref_cli("evaluate", *_lacking(collection), "-m", "AP", "ASL", "--baseline",
                      "mid", "--missing", missing)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if line.split()[:1] == ["lacks"]]
    n = 10 - len(LACKED) if missing == "skip" else 10
    assert [r[1:4] for r in rows] == [["AP", str(n), str(n)], ["ASL", str(n), str(n)]]
    said = "fewer paired queries than evaluated for lacks" in proc.stdout
    assert said == (missing == "skip")
    assert "the test use the paired queries" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_compare_pairs_on_shared_queries(collection, missing):
    args = [*_lacking(collection), "-m", "sgnLP", "--missing", missing]
    proc = irpref_cli("compare", *args)
    assert proc.returncode == 0, proc.stderr
    note = "lacks lacks 2 of the 10 queries (--missing skip): each pair is compared on the " \
           "queries both runs have"
    header = "mean over the queries both runs of a pair have (8-10 of 10)"
    assert (note in proc.stdout) == (header in proc.stdout) == (missing == "skip")
    assert ("mean over 10 queries" in proc.stdout) == (missing == "zero")
    tsv = irpref_cli("compare", *args, "--per-query", "--format", "tsv").stdout.splitlines()
    with_lacks = [r for r in tsv if "\tlacks\t" in r or r.startswith("lacks\t")]
    on_lacked = [r for r in with_lacks if r.split("\t")[2] in LACKED]
    assert len(on_lacked) == (0 if missing == "skip" else 2 * len(LACKED))


@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_ties_counts_the_queries_it_uses(collection, missing):
    proc = irpref_cli("ties", *_lacking(collection), "-m", "AP", "--missing", missing,
                      "--format", "json")
    assert proc.returncode == 0, proc.stderr
    effects = {r["run"]: r for r in json.loads(proc.stdout)["effects"]}
    assert effects["lacks"]["queries"] == (8 if missing == "skip" else 10)


@pytest.mark.slow
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_report_marks_pairs_and_shows_n(collection, tmp_path, missing):
    """One report per --missing value: the summary marks follow orientation (good
    better than mid on every measure, bad worse) and the run lacking queries is
    shown with the n it is compared on."""
    qrels, runs = collection
    out = tmp_path / "r.md"
    proc = irpref_cli("report", qrels, runs["good"], runs["mid"], runs["bad"], runs["lacks"],
                      "-m", *MEASURES, "AP", "--baseline", "mid", "--missing", missing,
                      "-o", out)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    head = re.search(r"^\| run \| (.*) \|$", text, re.M).group(1).split(" | ")
    rows = {r: re.search(rf"^\| {r} \| (.*) \|$", text, re.M).group(1).split(" | ")
            for r in ("good", "bad", "lacks")}
    assert head[0] == "queries"  # a run lacks queries: the table says over how many
    assert rows["lacks"][0] == ("8 of 10" if missing == "skip" else "10, 2 scored 0")
    for j, m in enumerate(head[1:], 1):
        assert rows["good"][j].endswith("▲") and rows["bad"][j].endswith("▼"), (m, rows)
    assert "lower is better for " + ", ".join(MEASURES) in text
    assert re.search(r"^\| measure \| run \| baseline \| n \| paired \|", text, re.M)
    row = re.search(r"^\| AP \| lacks \| mid \| (\d+) \| (\d+) \|", text, re.M)
    n = 8 if missing == "skip" else 10
    assert row.groups() == (str(n), str(n))
    assert "over the queries both have" in text


def test_python_compare_means_over_shared_queries(collection):
    qrels, runs = collection
    skip = irpref.compare(qrels, [runs["mid"], runs["lacks"]], ["sgnLP"])
    assert set(skip["query"].astype(str)) == set(QUERIES) - set(LACKED)
    zero = irpref.compare(qrels, [runs["mid"], runs["lacks"]], ["sgnLP"], missing="zero")
    assert np.isclose(irpref.mean_preferences(skip)["value"].iloc[0],
                      zero[~zero["query"].isin(LACKED)]["value"].mean())


# ------------------------------------------------ figures: bands and titles

def test_degradation_band_stays_in_the_valid_range():
    from matplotlib.collections import PolyCollection

    table = pd.DataFrame({"measure": "RR", "fraction": [0.3, 0.6, 0.9],
                          "kendall_tau": [0.9, 0.8, -0.7], "kendall_tau_sd": [0.4, 0.1, 0.5],
                          "agreement": [0.95, 0.9, 0.1], "agreement_sd": [0.2, 0.0, 0.3]})
    fig = plots.meta_curves(table)
    ranges = {"Kendall's tau": (-1, 1), "Sign agreement": (0, 1)}
    for ax in fig.axes:
        low, high = ranges[ax.get_title()]
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        ys = np.concatenate([p.vertices[:, 1] for c in bands for p in c.get_paths()])
        assert ys.max() <= high and ys.min() >= low
        assert f"clipped to [{low:g}, {high:g}]" in ax.get_legend().get_title().get_text()


def test_search_length_title_inside_the_figure(collection):
    qrels, runs = collection
    names = [runs["good"]] * 1
    table = irpref.search_lengths(qrels, names)
    many = pd.concat([table.assign(run=f"run_with_a_long_name_{i}") for i in range(20)])
    fig = plots.search_length_distributions(many)
    fig.canvas.draw()
    title = fig.axes[0].title.get_window_extent()
    assert title.y1 <= fig.bbox.y1 and title.y0 >= 0
