"""Figures comparing runs: per-query differences to a baseline, per-query
distributions, preference matrices in system order, significance matrices.

Sources: per-query differences and distributions, differences with their
confidence intervals (Sakai, "Statistical reform in information retrieval?",
SIGIR Forum 2014); preference matrices and system
orderings (Diaz & Ferraro, "Offline retrieval evaluation without evaluation
metrics" (RPP), SIGIR 2022). "Better" is read from the measure's record
(:func:`irpref.report.orientation.sign_of`): for a lower-is-better measure
such as ASL a negative difference is a win.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irpref.report.figure_kit import (
    MANY,
    abbreviate,
    box_figure,
    draw_boxes,
    finish,
    fit_layout,
    measure_rows,
    palette,
    plain_text,
    pyplot,
)

__all__ = [
    "difference_data", "differences",
    "interval_data", "difference_intervals",
    "distribution_data", "distributions",
    "preference_data", "preference_heatmap",
    "significance_data", "significance_matrix",
]


# --- per-query differences against a baseline -----------------------------------------

def difference_data(results: pd.DataFrame, baseline: str, measure: str | None = None
                    ) -> pd.DataFrame:
    """Per-query ``value(run) - value(baseline)`` of one measure: columns run,
    query, difference; sorted by run (input order) then difference descending.
    Queries the baseline or the run lacks are left out."""
    table = measure_rows(results, measure, ["run", "query", "value"])
    wide = table.pivot_table(index="query", columns="run", values="value", aggfunc="first",
                             sort=False)
    if baseline not in wide.columns:
        raise ValueError(f"baseline {baseline!r} is not among the runs: "
                         f"{', '.join(map(str, wide.columns))}")
    runs = [r for r in pd.unique(table["run"]) if r != baseline]
    diff = wide[runs].sub(wide[baseline], axis=0)
    long = diff.reset_index().melt(id_vars="query", var_name="run", value_name="difference")
    long = long.dropna(subset=["difference"])
    long["run"] = pd.Categorical(long["run"], categories=runs, ordered=True)
    long = long.sort_values(["run", "difference"], ascending=[True, False], kind="stable")
    long["run"] = long["run"].astype(str)
    return long[["run", "query", "difference"]].reset_index(drop=True)


def _sign(results: pd.DataFrame, measure: str | None) -> int:
    """The better direction of the plotted measure (+1, -1, 0), from its record."""
    from irpref.report.orientation import sign_of

    if measure is None:
        names = pd.unique(results["measure"].astype(str)) if "measure" in results else []
        if len(names) != 1:
            return 1
        measure = str(names[0])
    return sign_of(measure)


@plain_text
def differences(results: pd.DataFrame, baseline: str, measure: str | None = None):
    """Sorted per-query difference bars of each run against ``baseline`` (queries
    the run wins dark with hatching, those it loses light; for a lower-is-better
    measure such as ASL a negative difference is a win; a measure without a
    better direction gets one colour), one panel per run."""
    plt = pyplot()
    data = difference_data(results, baseline, measure)
    sign = _sign(results, measure)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate([baseline, *runs])
    if len(runs) > MANY:
        return _difference_heatmap(data, runs, baseline, measure, labels, sign)
    fig, axes = plt.subplots(max(len(runs), 1), 1, figsize=(7, 1.9 * max(len(runs), 1) + 0.6),
                             squeeze=False, sharex=True)
    up, down = palette(2)[0], palette(2)[1]
    names = (("run better", "baseline better") if sign else ("run higher", "run lower"))
    if sign < 0:
        names = (names[0] + " (lower)", names[1])
    for ax, run in zip(axes[:, 0], runs):
        d = data.loc[data["run"] == run, "difference"].to_numpy(np.float64)
        x = np.arange(len(d))
        win = d * (sign or 1) >= 0
        ax.bar(x[win], d[win], color=up, hatch="//", edgecolor="black", linewidth=0.3,
               label=names[0])
        ax.bar(x[~win], d[~win], color=down, edgecolor="black", linewidth=0.3,
               label=names[1])
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(f"{labels[run]} - {labels[baseline]}", fontsize=9)
        ax.set_ylabel(f"delta {measure or ''}".strip(), fontsize=8)
    axes[-1, 0].set_xlabel("queries, sorted by difference")
    if runs:
        axes[0, 0].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"Per-query differences against {labels[baseline]}"
                 + (f" ({measure})" if measure else ""))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return finish(fig, data, labels)


def _difference_heatmap(data: pd.DataFrame, runs: list[str], baseline: str,
                        measure: str | None, labels: dict[str, str], sign: int = 1):
    """Many runs: one row per run (best mean difference first: the largest, the
    smallest for a lower-is-better measure), its per-query differences sorted
    descending left to right, as colour (the bars of :func:`differences` seen
    from above; the colour map is reversed for a lower-is-better measure, so
    bright is always better); blank where a run has fewer queries."""
    plt = pyplot()
    groups = {r: g["difference"].to_numpy(np.float64) for r, g in data.groupby("run", sort=False)}
    key = sign or 1
    order = sorted(runs, key=lambda r: -key * float(np.mean(groups[r]))
                   if len(groups.get(r, ())) else 0)
    width = max((len(v) for v in groups.values()), default=1)
    m = np.full((len(order), width), np.nan)
    for i, r in enumerate(order):
        v = groups.get(r, np.empty(0))
        m[i, :len(v)] = v
    lim = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 1.0
    fig, ax = plt.subplots(figsize=(8, 0.13 * len(order) + 1.6))
    image = ax.imshow(m, cmap="cividis" if sign >= 0 else "cividis_r", vmin=-(lim or 1),
                      vmax=lim or 1, aspect="auto", interpolation="nearest")
    ax.set_yticks(np.arange(len(order)), [labels[r] for r in order], fontsize=7)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("queries, sorted by difference within each run (0 = largest)")
    ax.set_ylabel("run (best mean difference first)" if sign else
                  "run (largest mean difference first)")
    ax.set_title(f"Per-query differences against {labels[baseline]}"
                 + (f" ({measure})" if measure else ""), fontsize=10)
    fit_layout(fig, len(order), [labels[r] for r in order], 7, right=1.6)
    word = {1: " (higher is better)", -1: " (lower is better)"}.get(sign, "")
    fig.colorbar(image, ax=ax, label=f"run - baseline {measure or ''}".strip() + word,
                 shrink=0.5, fraction=0.05, pad=0.02)
    return finish(fig, data, labels)



# --- distributions of per-query values -------------------------------------------------

def distribution_data(results: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Per-query values of one measure: columns run, query, value (input order)."""
    table = measure_rows(results, measure, ["run", "query", "value"])
    return table[["run", "query", "value"]].reset_index(drop=True)


@plain_text
def distributions(results: pd.DataFrame, measure: str | None = None):
    """Box plots of the per-query values of each run (mean marked by a diamond);
    horizontal, one row per run, for more than ``MANY`` runs."""
    data = distribution_data(results, measure)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    values = [data.loc[data["run"] == r, "value"].to_numpy(np.float64) for r in runs]
    fig, ax = box_figure(len(runs))
    draw_boxes(ax, values, runs, labels, f"per-query {measure or 'value'}")
    ax.set_title(f"Distribution of per-query {measure or 'values'}",
                 pad=18 if len(runs) > MANY else 6)
    fit_layout(fig, len(runs), labels.values(), 7, top=0.8)  # title above the legend
    return finish(fig, data, labels)


# --- preference matrix -----------------------------------------------------------------

def preference_data(results: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Mean preference matrix (rows preferred over columns when > 0) of one
    measure of an :func:`irpref.compare` table, computed from its per-query
    rows, rows and columns in system order (mean win rate, Diaz Eq. 7, via
    :func:`irpref.preferences.aggregate.orderings_of`). ``attrs["ordering"]`` holds the order."""
    from irpref.preferences.aggregate import orderings_of

    table = measure_rows(results, measure, ["run_a", "run_b", "query", "value"])
    a_col = table["run_a"].astype(str).to_numpy(object)
    b_col = table["run_b"].astype(str).to_numpy(object)
    runs = [str(x) for x in pd.unique(np.concatenate([a_col, b_col]))]
    index = pd.Index(runs)
    q_codes, queries = pd.factorize(table["query"].astype(str), sort=False)
    a, b = index.get_indexer(a_col), index.get_indexer(b_col)
    v = table["value"].to_numpy(np.float64)
    mats = np.zeros((len(queries), len(runs), len(runs)))
    mats[q_codes, a, b] = v
    mats[q_codes, b, a] = -v
    # mean over the queries each pair was compared on
    counts = np.zeros((len(runs), len(runs)))
    np.add.at(counts, (a, b), 1)
    np.add.at(counts, (b, a), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, mats.sum(axis=0) / counts, 0.0)
    orders = orderings_of(mats, runs)
    order = list(orders.loc[orders["method"] == "win_rate", "run"])
    frame = pd.DataFrame(mean, index=runs, columns=runs).loc[order, order]
    frame.attrs["ordering"] = order
    return frame


@plain_text
def preference_heatmap(results: pd.DataFrame, measure: str | None = None,
                       annotate: bool | None = None):
    """Heatmap of the mean preference matrix, runs in system order (best first)."""
    plt = pyplot()
    data = preference_data(results, measure)
    runs = list(data.index)
    labels = abbreviate(runs)
    n = len(runs)
    size = min(max(4, 0.45 * n + 2.5), 30) if n <= MANY * 2 else min(0.13 * n + 2.5, 16)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    m = data.to_numpy(np.float64)
    lim = float(np.nanmax(np.abs(m))) if m.size else 1.0
    image = ax.imshow(m, cmap="cividis", vmin=-(lim or 1), vmax=lim or 1,
                      aspect="auto" if n > MANY else "equal", interpolation="nearest")
    short = [labels[r] for r in runs]
    fs = 7 if n <= 60 else 6 if n <= 110 else 5
    ax.set_xticks(np.arange(n), short, rotation=60 if n <= MANY else 90,
                  ha="right" if n <= MANY else "center", fontsize=fs)
    ax.set_yticks(np.arange(n), short, fontsize=fs)
    if annotate if annotate is not None else n <= 15:
        for i in range(n):
            for j in range(n):
                ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=6,
                        color="white" if m[i, j] < 0 else "black")
    ax.set_xlabel("run b (system order)")
    ax.set_ylabel("run a (system order, best first)")
    ax.set_title(f"Mean preference of a over b{f' ({measure})' if measure else ''}")
    if n > MANY:
        fit_layout(fig, n, short, fs, bottom=max(map(len, short)) * fs * 0.62 / 72, right=1.8)
    fig.colorbar(image, ax=ax, label="mean preference (a over b)", shrink=0.6)
    if n <= MANY:
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    return finish(fig, data, labels)



# --- significance matrix ---------------------------------------------------------------

def significance_data(table: pd.DataFrame, measure: str | None = None,
                      alpha: float | None = None) -> pd.DataFrame:
    """Run x run matrix of one measure of :func:`irpref.significance`: +1 where
    the row run is significantly better than the column run (``p_adjusted`` <
    ``alpha`` and the test's statistic favours the row run: mean a - b > 0, or < 0
    for a lower-is-better measure such as ASL; for Wilcoxon its signed ranks,
    :mod:`irpref.stats.directions`), -1 significantly worse, 0 otherwise (always
    0 for a measure without a better direction, e.g. NumRet); runs ordered by
    their mean difference to all others, best first. ``alpha`` defaults to the
    table's ``attrs["alpha"]``, else 0.05."""
    from irpref.stats.directions import row_directions

    cols = ["run_a", "run_b", "mean", "p_adjusted"]
    sign = _sign(table, measure)
    table = measure_rows(table, measure, cols)
    if alpha is None:
        alpha = float(table.attrs.get("alpha", 0.05))
    a = table["run_a"].astype(str).to_numpy(object)
    b = table["run_b"].astype(str).to_numpy(object)
    runs = [str(r) for r in pd.unique(np.concatenate([a, b]))]
    index = pd.Index(runs)
    i, j = index.get_indexer(a), index.get_indexer(b)
    mean = sign * table["mean"].to_numpy(np.float64)  # > 0: run_a better
    # the direction of each test's statistic (Wilcoxon: its signed ranks), else the mean's
    direction = (row_directions(table) if {"test", "orientation"} <= set(table.columns)
                 else np.sign(mean))
    sig = (table["p_adjusted"].to_numpy(np.float64) < alpha) & (direction != 0)
    m = np.zeros((len(runs), len(runs)))
    m[i, j] = np.where(sig, direction, 0.0)
    m[j, i] = -m[i, j]
    d = np.zeros((len(runs), len(runs)))
    d[i, j], d[j, i] = mean, -mean
    order = [runs[k] for k in np.argsort(-d.sum(1), kind="stable")]
    frame = pd.DataFrame(m, index=runs, columns=runs).loc[order, order]
    frame.attrs["alpha"] = alpha
    return frame


@plain_text
def significance_matrix(table: pd.DataFrame, measure: str | None = None,
                        alpha: float | None = None):
    """Which run pairs differ significantly: black = row run better, white =
    no significant difference, grey = row run worse (greyscale-safe)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    plt = pyplot()
    data = significance_data(table, measure, alpha)
    runs = list(data.index)
    labels = abbreviate(runs)
    n = len(runs)
    size = min(max(4, 0.13 * n + 2.5), 16)
    fig, ax = plt.subplots(figsize=(size + 2.2, size))
    colours = ["#9a9a9a", "#ffffff", "#1f1f1f"]
    ax.imshow(data.to_numpy() + 1, cmap=ListedColormap(colours), vmin=0, vmax=2,
              interpolation="nearest", aspect="auto" if n > MANY else "equal")
    short = [labels[r] for r in runs]
    fs = 7 if n <= 60 else 6 if n <= 110 else 5
    ax.set_xticks(np.arange(n), short, rotation=90, fontsize=fs)
    ax.set_yticks(np.arange(n), short, fontsize=fs)
    ax.set_xlabel("run b")
    ax.set_ylabel("run a (best mean difference first)")
    ax.set_title(f"Significant differences{f' ({measure})' if measure else ''}, "
                 f"alpha = {data.attrs['alpha']:g}")
    ax.legend(handles=[Patch(facecolor=c, edgecolor="black", label=t) for c, t in
                       zip(colours[::-1], ["a better than b", "not significant",
                                           "a worse than b"])],
              loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    if n > MANY:
        fit_layout(fig, n, short, fs, bottom=max(map(len, short)) * fs * 0.62 / 72, right=1.9)
    else:
        fig.tight_layout()
    return finish(fig, data, labels)




# --- mean differences with their intervals, per baseline ----------------------------------

def interval_data(table: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """The rows of one measure drawn by :func:`difference_intervals`: run, baseline,
    mean, ci_low, ci_high, marker (▲ / ▼ / empty: the verdict) and agrees (whether the
    interval excludes 0 exactly when the verdict is significant; True when not given)."""
    rows = measure_rows(table, measure, ["run", "baseline", "mean", "ci_low", "ci_high"])
    cols = ["run", "baseline", "mean", "ci_low", "ci_high"]
    out = rows[cols].copy()
    out["marker"] = rows["marker"].to_numpy() if "marker" in rows else ""
    out["agrees"] = rows["agrees"].to_numpy(bool) if "agrees" in rows else True
    return out.reset_index(drop=True)


@plain_text
def difference_intervals(table: pd.DataFrame, measure: str | None = None,
                         interval: str = "t intervals"):
    """Mean difference run - baseline of each run with its interval (``ci_low``,
    ``ci_high``; ``interval`` names them in the figure) against a zero line, one panel
    per baseline; significantly better runs dark, worse light with hatching, the others
    white (greyscale-safe). A row whose interval does not agree with its verdict
    (``agrees`` false) is drawn as a diamond and named in the legend, never as if it
    agreed."""
    plt = pyplot()
    data = interval_data(table, measure)
    baselines = list(pd.unique(data["baseline"]))
    runs = list(pd.unique(data["run"]))
    labels = abbreviate([*baselines, *runs])
    n = len(runs)
    height = 0.13 * n + 1.9 if n > MANY else 0.32 * n + 1.8
    fig, axes = plt.subplots(1, max(len(baselines), 1), squeeze=False, sharey=True,
                             figsize=(min(3.6 * len(baselines) + 2, 16), height))
    dark, light = palette(2)
    for ax, base in zip(axes[0], baselines):
        _interval_panel(ax, data[data["baseline"] == base].set_index("run").reindex(runs),
                        (dark, light))
        ax.set_title(f"run - {labels[base]}", fontsize=9)
        ax.set_xlabel(f"difference in {measure or 'the measure'}", fontsize=8)
    axes[0, 0].set_yticks(np.arange(n), [labels[r] for r in runs], fontsize=7)
    axes[0, 0].set_ylim(n - 0.5, -0.5)  # first run on top
    fig.suptitle(f"Differences against the baseline{'s' if len(baselines) > 1 else ''}"
                 + (f" ({measure})" if measure else ""), fontsize=10, y=1 - 0.08 / height)
    fig.text(0.5, 1 - 0.3 / height, f"intervals: {interval}", ha="center", va="top",
             fontsize=6, wrap=True)
    top = 0.8  # inches above the axes: the title, the intervals' name and the legend
    fig.legend(handles=_interval_legend(dark, light, not data["agrees"].all()), fontsize=7,
               ncol=4, loc="upper center", frameon=False, bbox_to_anchor=(0.5, 1 - 0.55 / height))
    if n > MANY:
        fit_layout(fig, n, [labels[r] for r in runs], 7, top=top + 0.2)
    else:
        fig.tight_layout(rect=(0, 0.04, 1, 1 - top / height))
    return finish(fig, data, labels)


def _interval_panel(ax, part: pd.DataFrame, fills: tuple) -> None:
    """One baseline's rows: interval lines, the difference as a square filled by its
    verdict (a diamond where the interval does not agree with it), the zero line."""
    y = np.arange(len(part))
    mean = part["mean"].to_numpy(np.float64)
    ax.hlines(y, part["ci_low"].to_numpy(np.float64), part["ci_high"].to_numpy(np.float64),
              color="black", linewidth=1.0)
    marks = part["marker"].fillna("").astype(str).to_numpy(object)
    agrees = part["agrees"].fillna(True).to_numpy(bool)
    fill = {"▲": fills[0], "▼": fills[1]}
    for yi, mi, mark, ok in zip(y, mean, marks, agrees):
        if np.isfinite(mi):
            ax.scatter([mi], [yi], s=36 if ok else 48, marker="s" if ok else "D",
                       facecolor=fill.get(mark, "white"), edgecolor="black",
                       hatch="////" if mark == "▼" else "", zorder=3)
    ax.axvline(0, color="black", linewidth=0.6, linestyle="--")
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)


def _interval_legend(dark, light, disagree: bool) -> list:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=dark, edgecolor="black", label="significantly better"),
               Patch(facecolor=light, edgecolor="black", hatch="////",
                     label="significantly worse"),
               Patch(facecolor="white", edgecolor="black", label="not significant")]
    if disagree:
        handles.append(Line2D([], [], marker="D", linestyle="", markerfacecolor="white",
                              markeredgecolor="black",
                              label="verdict significant, interval covers 0 (Holm)"))
    return handles
