"""Figures of search lengths, ties and meta-evaluation: per-item search
lengths (atomized search length, ASL paper Figs. 5-6), tie effects (McSherry
& Najork, ECIR 2008), discriminative power (Sakai, SIGIR 2006), curves of
label degradation and query subsampling (after Diaz, lexiprecision, 2023,
Figs. 8-9).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from irpref.report.figure_kit import (
    HATCHES,
    MANY,
    MARKERS,
    abbreviate,
    box_figure,
    draw_boxes,
    finish,
    fit_layout,
    palette,
    plain_text,
    pyplot,
)

if TYPE_CHECKING:
    from irpref.judging.judged import JudgedRankings

__all__ = [
    "search_length_data", "search_length_distributions", "search_length_change",
    "tie_data", "tie_effects", "tie_means",
    "discriminative_data", "discriminative_bars",
    "meta_curve_data", "meta_curves",
]


# --- search lengths --------------------------------------------------------------------

def search_length_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per-item search lengths of :func:`irpref.search_lengths`: columns run,
    query, level, search_length (items never retrieved have NaN and are dropped)."""
    cols = ["run", "query", "level", "search_length"]
    missing = [c for c in cols if c not in table.columns]
    if missing:
        raise ValueError(f"the table lacks columns {missing}")
    out = table[cols].copy()
    out["search_length"] = pd.to_numeric(out["search_length"], errors="coerce")
    return out.dropna(subset=["search_length"]).reset_index(drop=True)


@plain_text
def search_length_distributions(table: pd.DataFrame):
    """Distribution of per-item atomized search lengths of each run (ASL paper,
    Figs. 5-6): box plots on a log scale, lower is better."""
    data = search_length_data(table)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    values = [data.loc[data["run"] == r, "search_length"].to_numpy(np.float64) for r in runs]
    fig, ax = box_figure(len(runs))
    horizontal = draw_boxes(ax, [v + 1 for v in values], runs, labels,
                        "search length + 1 (log scale)")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    axis = ax.xaxis if horizontal else ax.yaxis
    (ax.set_xscale if horizontal else ax.set_yscale)("log")
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())
    ax.set_title("Per-item atomized search lengths (lower is better)",
                 pad=18 if len(runs) > MANY else 6)
    fit_layout(fig, len(runs), labels.values(), 7, top=0.8)  # title above the legend
    return finish(fig, data, labels)


@plain_text
def search_length_change(table: pd.DataFrame, run: str, baseline: str):
    """Histogram of the per-item change ``SL(run) - SL(baseline)`` (ASL paper,
    Fig. 6; negative = the run finds the item sooner). ``irpref_data`` is
    :func:`irpref.asl.change` (columns query, doc, run, baseline, delta)."""
    from irpref.asl import change

    plt = pyplot()
    data = change(table, run, baseline).dropna(subset=["delta"]).reset_index(drop=True)
    labels = abbreviate([run, baseline])
    d = data["delta"].to_numpy(np.float64)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    lim = float(np.abs(d).max()) if d.size else 1.0
    edges = np.linspace(-lim - 0.5, lim + 0.5, min(61, max(3, int(2 * lim) + 2)))
    c = palette(2)
    ax.hist(d[d < 0], bins=edges, color=c[0], hatch="//", edgecolor="black", linewidth=0.3,
            label=f"{labels[run]} sooner")
    ax.hist(d[d > 0], bins=edges, color=c[1], edgecolor="black", linewidth=0.3,
            label=f"{labels[baseline]} sooner")
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel(f"search length change ({labels[run]} - {labels[baseline]})")
    ax.set_ylabel("relevant items")
    ax.set_title(f"Per-item search-length change, {int((d == 0).sum())} items unchanged")
    ax.legend(fontsize=7)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return finish(fig, data, labels)


# --- ties ------------------------------------------------------------------------------

def tie_data(qrels, runs, measures: Sequence[str], *, rel: int = 1,
             judged: dict | None = None, missing: str = "skip") -> pd.DataFrame:
    """Mean of each measure per run with ties broken by docid and in
    expectation (McSherry & Najork): columns run, measure, docid, expected,
    difference (docid - expected). Means are taken over the per-query rows
    (queries a run lacks: ``missing``, as :func:`irpref.evaluate`).
    ``judged`` may map ``"docid"`` / ``"expected"`` to inputs already judged so."""
    from irpref.evaluate import judge_with
    from irpref.measures import parse_measure
    from irpref.params import Settings

    for m in measures:  # every name checked before any input is read
        parse_measure(m)
    judged = dict(judged or {})
    for ties in ("docid", "expected"):
        given = judged.get(ties)
        settings = Settings.resolve(None, given.settings if given is not None else None,
                                    rel=rel, ties=ties, missing=missing)
        if given is None:
            judged[ties] = judge_with(qrels, runs, settings, stacklevel=3)
    return tie_means(judged, measures, missing)


def tie_means(judged: Mapping[str, JudgedRankings], measures: Sequence[str],
              missing: str = "skip") -> pd.DataFrame:
    """:func:`tie_data` of rankings judged under each tie policy (``judged["docid"]``,
    ``judged["expected"]``), queries a run lacks following ``missing``."""
    from irpref.evaluate import evaluate_with

    frames = {}
    for ties in ("docid", "expected"):
        j = judged[ties]
        res = evaluate_with(None, None, list(measures), j.evaluation(missing), judged=j)
        frames[ties] = res.groupby(["run", "measure"], sort=False)["value"].mean()
    out = pd.concat(frames, axis=1).reset_index()
    out["difference"] = out["docid"] - out["expected"]
    return out[["run", "measure", "docid", "expected", "difference"]]


@plain_text
def tie_effects(data: pd.DataFrame):
    """Paired bars per run: the mean with docid tie-breaking vs the expected
    (tie-aware) mean, one panel per measure. ``data`` is :func:`tie_data`."""
    plt = pyplot()
    measures = list(pd.unique(data["measure"]))
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    if len(runs) > MANY:
        return _tie_scatter(data, measures, runs, labels)
    fig, axes = plt.subplots(1, max(len(measures), 1), squeeze=False,
                             figsize=(max(4, (0.5 * len(runs) + 1.5)) * max(len(measures), 1), 4))
    c = palette(2)
    x = np.arange(len(runs))
    for ax, measure in zip(axes[0], measures):
        part = data[data["measure"] == measure].set_index("run").loc[runs]
        ax.bar(x - 0.2, part["docid"], 0.4, color=c[0], edgecolor="black", linewidth=0.3,
               label="ties by docid")
        ax.bar(x + 0.2, part["expected"], 0.4, color=c[1], hatch="//", edgecolor="black",
               linewidth=0.3, label="expected over ties")
        ax.set_xticks(x, [labels[r] for r in runs], rotation=45, ha="right", fontsize=8)
        ax.set_title(str(measure), fontsize=9)
        ax.set_xlabel("run")
        ax.set_ylabel(f"mean {measure}")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Effect of tie-breaking: docid vs expected")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return finish(fig, data.reset_index(drop=True), labels)


def _tie_scatter(data: pd.DataFrame, measures: list, runs: list[str],
                 labels: dict[str, str]):
    """Many runs: per measure, one point per run at (expected, docid); points off
    the diagonal are runs whose mean depends on the tie-break. The five runs
    farthest from it are labelled."""
    plt = pyplot()
    cols = min(len(measures), 3) or 1
    rows = -(-max(len(measures), 1) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(3.6 * cols, 3.4 * rows))
    for ax, measure in zip(axes.flat, measures):
        part = data[data["measure"] == measure]
        x, y = part["expected"].to_numpy(np.float64), part["docid"].to_numpy(np.float64)
        lo, hi = float(np.nanmin([x.min(), y.min()])), float(np.nanmax([x.max(), y.max()]))
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.6, linestyle="--",
                label="no tie effect")
        ax.scatter(x, y, s=12, color=palette(1)[0], edgecolor="black", linewidth=0.3,
                   label="run")
        far = np.argsort(-np.abs(y - x), kind="stable")[:5]
        for i in far:
            if abs(y[i] - x[i]) > 0:
                ax.annotate(labels[str(part["run"].iloc[i])], (x[i], y[i]), fontsize=6,
                            xytext=(3, -3), textcoords="offset points")
        ax.set_title(str(measure), fontsize=9)
        ax.set_xlabel(f"expected mean {measure} (over tied orderings)", fontsize=8)
        ax.set_ylabel(f"mean {measure}, ties by docid", fontsize=8)
    for ax in list(axes.flat)[len(measures):]:
        ax.set_visible(False)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Effect of tie-breaking: docid vs expected, one point per run")
    fig.tight_layout()
    return finish(fig, data.reset_index(drop=True), labels)



# --- discriminative power --------------------------------------------------------------

def discriminative_data(tables, tests: Sequence[str] = ("paired",), alpha: float = 0.05,
                        **kwargs) -> pd.DataFrame:
    """:func:`irpref.discriminative_power` of the tidy tables: columns measure,
    test, correction, alpha, pairs, significant, percent."""
    from irpref.meta.discriminative import discriminative_power

    return discriminative_power(tables, alpha=alpha, test=list(tests), **kwargs)


@plain_text
def discriminative_bars(data: pd.DataFrame):
    """Percent of run pairs significantly different, per measure (groups) and
    test (hatched bars). ``data`` is :func:`discriminative_data`."""
    plt = pyplot()
    measures = list(pd.unique(data["measure"]))
    tests = list(pd.unique(data["test"]))
    fig, ax = plt.subplots(figsize=(max(4, 0.9 * len(measures) * max(len(tests), 1) / 2 + 2), 4))
    width = 0.8 / max(len(tests), 1)
    x = np.arange(len(measures))
    for i, (test, colour) in enumerate(zip(tests, palette(len(tests)))):
        part = data[data["test"] == test].set_index("measure")
        present = np.array([m in part.index for m in measures], dtype=bool)
        heights = [float(part.loc[m, "percent"]) for m in measures if m in part.index]
        ax.bar(x[present] + (i - (len(tests) - 1) / 2) * width, heights, width, color=colour,
               hatch=HATCHES[i % len(HATCHES)], edgecolor="black", linewidth=0.3, label=test)
    ax.set_xticks(x, measures, rotation=30, ha="right", fontsize=8)
    ax.set_xlabel("measure")
    ax.set_ylabel("significant pairs (%)")
    ax.set_ylim(0, 100)
    alpha = data["alpha"].iloc[0] if len(data) else 0.05
    ax.set_title(f"Discriminative power (alpha = {alpha:g})")
    ax.legend(title="test", fontsize=7)
    fig.tight_layout()
    return finish(fig, data.reset_index(drop=True))


# --- meta-evaluation curves -----------------------------------------------------------

CURVE_LABELS = {"percent_tied": "pairs tied (%)", "agreement": "sign agreement with full labels",
                "kendall_tau": "Kendall's tau with full-label ordering"}
CURVE_X = {"fraction": "fraction of relevance labels removed", "size": "queries kept"}
# the valid range of each statistic: a shaded mean ± 1 sd band is clipped to it
CURVE_RANGE = {"percent_tied": (0.0, 100.0), "agreement": (0.0, 1.0),
               "kendall_tau": (-1.0, 1.0)}


def meta_curve_data(table: pd.DataFrame) -> pd.DataFrame:
    """The curves of an :func:`irpref.meta.degrade` or :func:`irpref.meta.subsample`
    table, long: columns measure, x (fraction removed or queries kept),
    statistic, mean, sd (one standard deviation over the samples).
    ``attrs["x"]`` names x (``fraction`` or ``size``)."""
    x = next((c for c in CURVE_X if c in table.columns), None)
    if x is None or "measure" not in table.columns:
        raise ValueError("expected a table of irpref.meta.degrade (measure, fraction, ...) or "
                         "irpref.meta.subsample (measure, size, ...); got columns "
                         + ", ".join(map(str, table.columns)))
    stats = [c for c in CURVE_LABELS if c in table.columns]
    parts = []
    for stat in stats:
        sd = table[f"{stat}_sd"] if f"{stat}_sd" in table.columns else np.nan
        parts.append(pd.DataFrame({"measure": table["measure"].astype(str),
                                   "x": table[x].astype(float), "statistic": stat,
                                   "mean": table[stat].astype(float), "sd": sd}))
    data = pd.concat(parts, ignore_index=True)
    data.attrs["x"] = x
    return data


@plain_text
def meta_curves(table: pd.DataFrame):
    """One panel per statistic (agreement, tau, ties) against the fraction of
    labels removed or the queries kept, one line per measure with one standard
    deviation shaded, the band clipped to the statistic's valid range
    (:data:`CURVE_RANGE`: tau in [-1, 1]) (after Diaz, lexiprecision, 2023, Figs. 8-9, which
    measure agreement with dRR_1; here each measure's own full-label comparisons)."""
    plt = pyplot()
    data = meta_curve_data(table)
    stats = list(pd.unique(data["statistic"]))
    measures = list(pd.unique(data["measure"]))
    fig, axes = plt.subplots(1, len(stats), figsize=(4 * len(stats), 3.4), squeeze=False)
    for ax, stat in zip(axes[0], stats):
        for i, (m, colour) in enumerate(zip(measures, palette(len(measures)))):
            part = data[(data["statistic"] == stat) & (data["measure"] == m)].sort_values("x")
            x, mean, sd = part["x"], part["mean"], part["sd"].fillna(0.0)
            ax.plot(x, mean, color=colour, marker=MARKERS[i % len(MARKERS)],
                    linestyle=["-", "--", ":", "-."][i % 4], label=m)
            low, high = CURVE_RANGE[stat]
            ax.fill_between(x, np.clip(mean - sd, low, high), np.clip(mean + sd, low, high),
                            color=colour, alpha=0.2, linewidth=0)
        ax.set_xlabel(CURVE_X[data.attrs["x"]])
        ax.set_ylabel(CURVE_LABELS[stat])
        ax.set_title(CURVE_LABELS[stat].split(" with")[0].capitalize(), fontsize=9)
        low, high = CURVE_RANGE[stat]
        ax.legend(title=f"measure (band: ±1 sd,\nclipped to [{low:g}, {high:g}])",
                  fontsize=7, title_fontsize=7)
    what = "label degradation" if data.attrs["x"] == "fraction" else "query subsampling"
    fig.suptitle(f"Meta-evaluation: {what} (mean ± 1 sd, clipped to each statistic's "
                 "valid range)", fontsize=10)
    fig.tight_layout()
    return finish(fig, data)


