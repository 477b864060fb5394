"""The data behind each plot equals the numbers it claims to show; each renders to PNG."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import irpref  # noqa: E402
from irpref import examples  # noqa: E402
from irpref.report import plots  # noqa: E402

QRELS = examples.qrels_path()
RUNS = [str(p) for p in examples.run_paths()]


@pytest.fixture(scope="module")
def results():
    return irpref.evaluate(QRELS, RUNS, ["AP", "nDCG@10"], rel=2)


@pytest.fixture(scope="module")
def prefs():
    return irpref.compare(QRELS, RUNS, ["sgnLP", "RPP"], rel=2)


def _png(fig) -> bytes:
    from irpref.report.figure_kit import pyplot

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    data = buf.getvalue()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    pyplot().close(fig)
    return data


def test_import_irpref_does_not_import_matplotlib():
    code = "import irpref, irpref.report.plots, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_abbreviate_is_unique_and_keeps_short_names():
    names = ["bm25", "a_very_long_run_name_one", "a_very_long_run_name_two"]
    labels = plots.abbreviate(names, width=10)
    assert labels["bm25"] == "bm25"
    assert len(set(labels.values())) == 3
    assert all(len(v) <= 10 for v in labels.values())
    assert plots.abbreviate(names, width=10) == labels


@pytest.mark.slow
def test_difference_bars_equal_per_query_differences(results):
    base = "bm25base_p"
    fig = plots.differences(results, base, "AP")
    data = fig.irpref_data
    ap = results[results["measure"] == "AP"].pivot(index="query", columns="run", values="value")
    for run, part in data.groupby("run"):
        expected = (ap[run] - ap[base]).loc[part["query"]].to_numpy()
        np.testing.assert_allclose(part["difference"].to_numpy(), expected)
        assert (np.diff(part["difference"].to_numpy()) <= 0).all()  # sorted
    assert set(data["run"]) == set(ap.columns) - {base}
    assert len(data) == 5 * ap.shape[0]
    # the bars drawn are these numbers
    heights = sorted(p.get_height() for p in fig.axes[0].patches)
    first = data[data["run"] == data["run"].iloc[0]]["difference"]
    np.testing.assert_allclose(heights, sorted(first))
    _png(fig)


def test_difference_unknown_baseline(results):
    with pytest.raises(ValueError, match="nope"):
        plots.difference_data(results, "nope", "AP")


def test_distributions_hold_per_query_values(results):
    fig = plots.distributions(results, "nDCG@10")
    data = fig.irpref_data
    expected = results[results["measure"] == "nDCG@10"]
    assert len(data) == len(expected)
    np.testing.assert_allclose(data.groupby("run", sort=False)["value"].mean(),
                               expected.groupby("run", sort=False)["value"].mean())
    _png(fig)


def test_heatmap_cells_equal_mean_preferences(prefs):
    fig = plots.preference_heatmap(prefs, "sgnLP")
    data = fig.irpref_data
    table = prefs[prefs["measure"] == "sgnLP"]
    means = table.groupby(["run_a", "run_b"])["value"].mean()
    for (a, b), v in means.items():
        assert data.loc[a, b] == pytest.approx(v)
        assert data.loc[b, a] == pytest.approx(-v)
    np.testing.assert_allclose(np.diag(data.to_numpy()), 0)
    # system order: the mean win rate (Diaz, Eq. 7) decreases down the rows
    mats = table.pivot_table(index="query", columns=["run_a", "run_b"], values="value")
    assert mats.shape[0] == table["query"].nunique()
    win = (data.to_numpy() > 0).sum(1)
    assert win[0] >= win[-1]
    assert list(data.index) == data.attrs["ordering"] == list(data.columns)
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), data.to_numpy())
    _png(fig)


def test_heatmap_query_named_all_is_a_query(prefs):
    t = prefs[prefs["measure"] == "RPP"].copy()
    t["query"] = t["query"].astype(str)
    first = t["query"].iloc[0]
    t.loc[t["query"] == first, "query"] = "all"
    data = plots.preference_data(t, "RPP")
    orig = plots.preference_data(prefs, "RPP")
    pd.testing.assert_frame_equal(data, orig)


def test_search_length_distributions():
    sl = irpref.search_lengths(QRELS, RUNS, rel=2)
    fig = plots.search_length_distributions(sl)
    data = fig.irpref_data
    expected = sl.dropna(subset=["search_length"])
    assert len(data) == len(expected)
    np.testing.assert_allclose(
        data.groupby("run", sort=False)["search_length"].mean(),
        expected.groupby("run", sort=False)["search_length"].mean().astype(float))
    _png(fig)


def test_tie_effects_docid_vs_expected():
    data = plots.tie_data(QRELS, RUNS, ["AP", "P@10"], rel=2)
    for ties, col in (("docid", "docid"), ("expected", "expected")):
        res = irpref.evaluate(QRELS, RUNS, ["AP"], rel=2, ties=ties)
        means = res.groupby("run")["value"].mean()
        part = data[data["measure"] == "AP"].set_index("run")[col]
        np.testing.assert_allclose(part.loc[means.index], means)
    np.testing.assert_allclose(data["difference"], data["docid"] - data["expected"])
    fig = plots.tie_effects(data)
    assert fig.irpref_data.equals(data)
    _png(fig)


def test_discriminative_bars(results, prefs):
    data = plots.discriminative_data([results, prefs], tests=["paired", "sign"], alpha=0.05)
    direct = irpref.discriminative_power([results, prefs], test=["paired", "sign"], alpha=0.05)
    pd.testing.assert_frame_equal(data, direct)
    fig = plots.discriminative_bars(data)
    heights = sorted(p.get_height() for p in fig.axes[0].patches)
    np.testing.assert_allclose(heights, sorted(data["percent"]))
    _png(fig)


def test_long_names_get_a_key(results):
    t = results.copy()
    t["run"] = t["run"].astype(str) + "_with_a_really_long_suffix_for_the_paper"
    fig = plots.distributions(t, "AP")
    texts = " ".join(x.get_text() for x in fig.texts)
    assert "key:" in texts and "_with_a_really_long_suffix_for_the_paper" in texts
    _png(fig)


@pytest.mark.slow
def test_save_by_extension(tmp_path, results):
    fig = plots.distributions(results, "AP")
    for ext in ("png", "svg", "pdf"):
        plots.save(fig, tmp_path / f"f.{ext}")
        assert (tmp_path / f"f.{ext}").stat().st_size > 1000


def test_search_length_change():
    sl = irpref.search_lengths(QRELS, RUNS, rel=2)
    fig = plots.search_length_change(sl, "p_bert", "bm25base_p")
    data = fig.irpref_data
    a = sl[sl["run"] == "p_bert"].set_index(["query", "doc"])["search_length"]
    b = sl[sl["run"] == "bm25base_p"].set_index(["query", "doc"])["search_length"]
    both = (a - b).dropna()
    assert len(data) == len(both)
    np.testing.assert_allclose(np.sort(data["delta"].to_numpy(float)), np.sort(both.to_numpy()))
    counts = sum(p.get_height() for p in fig.axes[0].patches)
    assert counts == int((data["delta"] != 0).sum())
    _png(fig)


# ------------------------------------------------------- many runs (> plots.MANY)

@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """20 synthetic runs (some with long names): evaluate and compare tables."""
    from synthetic_runs import write_collection

    qrels, runs, names = write_collection(tmp_path_factory.mktemp("many"), n_runs=20,
                                          n_queries=8, n_docs=20, seed=1)
    results = irpref.evaluate(qrels, [str(r) for r in runs], ["AP", "P@10"])
    return results, names


def test_difference_heatmap_cells_are_the_sorted_differences(many):
    results, names = many
    base = names[0]
    fig = plots.differences(results, base, "AP")
    data = fig.irpref_data
    pd.testing.assert_frame_equal(data, plots.difference_data(results, base, "AP"))
    image = fig.axes[0].images[0].get_array()
    labels = plots.abbreviate([base, *[n for n in names if n != base]])
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(rows) == len(names) - 1 and len(fig.axes) == 2  # one heatmap + colour bar
    for i, label in enumerate(rows):
        run = next(r for r, s in labels.items() if s == label)
        want = data.loc[data["run"] == run, "difference"].to_numpy()  # sorted descending
        np.testing.assert_allclose(np.asarray(image[i])[:len(want)], want)
    means = [data.loc[data["run"] == next(r for r, s in labels.items() if s == lab),
                      "difference"].mean() for lab in rows]
    assert means == sorted(means, reverse=True)  # best mean difference on top
    _png(fig)


def test_many_runs_distributions_are_compact_rows(many):
    results, names = many
    fig = plots.distributions(results, "AP")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        plots.abbreviate(names)[n] for n in pd.unique(results["run"])]
    means = ax.collections[-1].get_offsets()[:, 0]  # the mean diamonds
    want = results[results["measure"] == "AP"].groupby("run", sort=False)["value"].mean()
    np.testing.assert_allclose(means, want.to_numpy())
    assert ax.get_legend() is not None and ax.get_title()
    _png(fig)


def test_many_runs_tie_effects_scatter(many):
    results, _ = many
    runs = pd.unique(results["run"])
    data = pd.DataFrame({"run": np.repeat(runs, 2), "measure": ["AP", "P@10"] * len(runs),
                         "docid": np.linspace(0.2, 0.8, 2 * len(runs))})
    data["expected"] = data["docid"] - 0.01
    data["difference"] = data["docid"] - data["expected"]
    fig = plots.tie_effects(data)
    points = fig.axes[0].collections[0].get_offsets()
    part = data[data["measure"] == "AP"]
    np.testing.assert_allclose(points[:, 0], part["expected"])
    np.testing.assert_allclose(points[:, 1], part["docid"])
    _png(fig)


def test_significance_matrix_cells_equal_the_tests(many):
    results, _ = many
    sig = irpref.significance(results, test="paired", correction="holm", bootstrap=0)
    fig = plots.significance_matrix(sig, "AP", alpha=0.05)
    m = fig.irpref_data
    part = sig[sig["measure"] == "AP"]
    for rec in part.itertuples(index=False):
        want = np.sign(rec.mean) if rec.p_adjusted < 0.05 and rec.mean != 0 else 0.0
        assert m.loc[rec.run_a, rec.run_b] == want and m.loc[rec.run_b, rec.run_a] == -want
    assert (np.diag(m.to_numpy()) == 0).all() and np.abs(m.to_numpy()).sum() > 0
    np.testing.assert_array_equal(fig.axes[0].images[0].get_array(), m.to_numpy() + 1)
    assert fig.axes[0].get_legend() is not None
    _png(fig)


def test_labels_fit_their_width_and_pass_through_again():
    names = [f"a_long_trec_run_name_number_{i}_of_the_track" for i in range(120)]
    labels = plots.abbreviate(names)
    assert all(len(v) <= 12 for v in labels.values()) and len(set(labels.values())) == 120
    again = plots.abbreviate(list(labels.values()))
    assert all(k == v for k, v in again.items())  # a figure of labels adds no second key
