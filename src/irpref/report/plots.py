"""Figures of evaluation results (matplotlib, Agg backend, imported on first use).

Every plot has a ``*_data`` function returning the tidy DataFrame drawn, and a
plot function returning a ``matplotlib.figure.Figure`` whose ``irpref_data``
attribute holds that DataFrame (tests and reports read the numbers from it).
Run names longer than ``width`` characters are abbreviated consistently
(:func:`abbreviate`); the figure then carries a key. Colours come from the
``cividis`` map (readable in greyscale and by colour-blind readers) and are
doubled with hatching, so grey prints stay legible.

Sources: per-query differences and distributions (Sakai, "Statistical reform
in information retrieval?", SIGIR Forum 2014); preference matrices and system
orderings (Diaz, "Recall, robustness and lexicographic evaluation", and
Diaz & Ferraro, "Offline retrieval evaluation without evaluation metrics"
(RPP), SIGIR 2022); search lengths (atomized search length, ASL paper
Figs. 5-6); ties (McSherry & Najork, ECIR 2008); discriminative power
(Sakai, SIGIR 2006); meta-evaluation curves of label degradation and query
subsampling (after Diaz, lexiprecision, 2023, Figs. 8-9).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "abbreviate",
    "difference_data", "differences",
    "distribution_data", "distributions",
    "preference_data", "preference_heatmap",
    "search_length_data", "search_length_distributions", "search_length_change",
    "tie_data", "tie_effects",
    "significance_data", "significance_matrix",
    "discriminative_data", "discriminative_bars",
    "meta_curve_data", "meta_curves",
    "save",
]

MANY = 15  # more runs than this: compact layouts (heatmaps, horizontal boxes, scatter)
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _plt():
    """pyplot with the non-interactive Agg backend (imported lazily)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def abbreviate(names: Sequence[str], width: int = 12) -> dict[str, str]:
    """Short labels for run names: names of at most ``width`` characters are
    kept; longer ones become ``R<i>:<prefix>`` (i = position in ``names``),
    unique and stable for one list of names."""
    out: dict[str, str] = {}
    for i, name in enumerate(dict.fromkeys(str(n) for n in names)):
        if len(name) <= width:
            out[name] = name
        else:  # the label fits in ``width`` too (labels pass through again unchanged)
            tag = f"R{i + 1}:"
            out[name] = tag + name[: max(width - len(tag), 3)]
    if len(set(out.values())) < len(out):  # a short name collides with a label
        out = {n: (n if len(n) <= width else f"R{i + 1}") for i, n in enumerate(out)}
    return out


def _key(fig, labels: dict[str, str]) -> None:
    """Print the abbreviation key under the figure when some name was shortened:
    one entry per line, in up to three columns, in a band added below the plot."""
    pairs = [f"{short} = {long}" for long, short in labels.items() if short != long]
    if not pairs:
        return
    width, height = fig.get_size_inches()
    longest = max(len(p) for p in pairs) * 0.05 + 0.2  # inches at 6 pt monospace
    cols = max(1, min(len(pairs), int(width // longest)))
    rows = -(-len(pairs) // cols)
    band = 0.15 * (rows + 1)  # inches of key
    fig.set_size_inches(width, height + band)
    for ax in fig.axes:  # keep the plot where it was, in inches
        box = ax.get_position()
        scale = height / (height + band)
        ax.set_position([box.x0, band / (height + band) + box.y0 * scale, box.width,
                         box.height * scale])
    top = (band - 0.05) / (height + band)
    for c in range(cols):
        part = pairs[c * rows:(c + 1) * rows]
        fig.text(0.01 + c * longest / width, top,
                 ("key:\n" if c == 0 else "\n") + "\n".join(part), fontsize=6, va="top",
                 family="monospace")


def _colours(n: int):
    plt = _plt()
    cmap = plt.get_cmap("cividis")
    return [cmap(x) for x in (np.linspace(0.1, 0.9, n) if n > 1 else [0.5])]


def _measure_rows(results: pd.DataFrame, measure: str | None, cols: list[str]) -> pd.DataFrame:
    table = results
    if measure is not None:
        table = table[table["measure"].astype(str) == str(measure)]
    elif table["measure"].nunique() > 1:
        raise ValueError("the table holds several measures: pick one")
    if table.empty:
        raise ValueError(f"no rows for measure {measure!r}")
    missing = [c for c in cols if c not in table.columns]
    if missing:
        raise ValueError(f"the table lacks columns {missing}")
    return table


def _layout(fig, n: int, labels: Sequence[str], fontsize: float, *, bottom: float = 0.0,
            right: float = 0.3) -> None:
    """Margins for a figure with ``n`` run labels on its y axis (and ``bottom``
    inches of x labels): ``tight_layout`` measures every tick label, which for
    100 runs costs more than drawing the figure, so many-run figures size their
    margins from the longest label instead."""
    if n <= MANY:
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        return
    width, height = fig.get_size_inches()
    chars = max((len(str(x)) for x in labels), default=4)
    left = chars * fontsize * 0.62 / 72 + 0.75  # tick labels + axis label, inches
    fig.subplots_adjust(left=min(left / width, 0.5), right=1 - right / width,
                        bottom=min((bottom + 0.6) / height, 0.4), top=1 - 0.45 / height)


def _finish(fig, data: pd.DataFrame, labels: dict[str, str] | None = None):
    if labels:
        _key(fig, labels)
    fig.irpref_data = data
    return fig


# --- per-query differences against a baseline -----------------------------------------

def difference_data(results: pd.DataFrame, baseline: str, measure: str | None = None
                    ) -> pd.DataFrame:
    """Per-query ``value(run) - value(baseline)`` of one measure: columns run,
    query, difference; sorted by run (input order) then difference descending.
    Queries the baseline or the run lacks are left out."""
    table = _measure_rows(results, measure, ["run", "query", "value"])
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


def differences(results: pd.DataFrame, baseline: str, measure: str | None = None):
    """Sorted per-query difference bars of each run against ``baseline``
    (wins dark with hatching, losses light), one panel per run."""
    plt = _plt()
    data = difference_data(results, baseline, measure)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate([baseline, *runs])
    if len(runs) > MANY:
        return _difference_heatmap(data, runs, baseline, measure, labels)
    fig, axes = plt.subplots(max(len(runs), 1), 1, figsize=(7, 1.9 * max(len(runs), 1) + 0.6),
                             squeeze=False, sharex=True)
    up, down = _colours(2)[0], _colours(2)[1]
    for ax, run in zip(axes[:, 0], runs):
        d = data.loc[data["run"] == run, "difference"].to_numpy(np.float64)
        x = np.arange(len(d))
        ax.bar(x[d >= 0], d[d >= 0], color=up, hatch="//", edgecolor="black", linewidth=0.3,
               label="run better")
        ax.bar(x[d < 0], d[d < 0], color=down, edgecolor="black", linewidth=0.3,
               label="baseline better")
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_title(f"{labels[run]} - {labels[baseline]}", fontsize=9)
        ax.set_ylabel(f"delta {measure or ''}".strip(), fontsize=8)
    axes[-1, 0].set_xlabel("queries, sorted by difference")
    if runs:
        axes[0, 0].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"Per-query differences against {labels[baseline]}"
                 + (f" ({measure})" if measure else ""))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return _finish(fig, data, labels)


def _difference_heatmap(data: pd.DataFrame, runs: list[str], baseline: str,
                        measure: str | None, labels: dict[str, str]):
    """Many runs: one row per run (best mean difference first), its per-query
    differences sorted descending left to right, as colour (the bars of
    :func:`differences` seen from above); blank where a run has fewer queries."""
    plt = _plt()
    groups = {r: g["difference"].to_numpy(np.float64) for r, g in data.groupby("run", sort=False)}
    order = sorted(runs, key=lambda r: -float(np.mean(groups[r])) if len(groups.get(r, ())) else 0)
    width = max((len(v) for v in groups.values()), default=1)
    m = np.full((len(order), width), np.nan)
    for i, r in enumerate(order):
        v = groups.get(r, np.empty(0))
        m[i, :len(v)] = v
    lim = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 1.0
    fig, ax = plt.subplots(figsize=(8, 0.13 * len(order) + 1.6))
    image = ax.imshow(m, cmap="cividis", vmin=-(lim or 1), vmax=lim or 1, aspect="auto",
                      interpolation="nearest")
    ax.set_yticks(np.arange(len(order)), [labels[r] for r in order], fontsize=7)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("queries, sorted by difference within each run (0 = largest)")
    ax.set_ylabel("run (largest mean difference first)")
    ax.set_title(f"Per-query differences against {labels[baseline]}"
                 + (f" ({measure})" if measure else ""), fontsize=10)
    _layout(fig, len(order), [labels[r] for r in order], 7, right=1.6)
    fig.colorbar(image, ax=ax, label=f"run - baseline {measure or ''}".strip(), shrink=0.5,
                 fraction=0.05, pad=0.02)
    return _finish(fig, data, labels)


def _boxes(ax, values: list[np.ndarray], names: list[str], labels: dict[str, str],
           axis_label: str):
    """Box plots with the mean as a diamond; for many runs a compact horizontal
    summary instead (one row per run: 5-95 % range as a thin line, the
    quartiles as a thick bar, median tick, mean diamond), drawn as a few
    collections rather than hundreds of box artists."""
    horizontal = len(names) > MANY
    ticks = np.arange(1, len(names) + 1)
    short = [labels[r] for r in names]
    if horizontal:
        q = np.array([np.nanpercentile(v, [5, 25, 50, 75, 95]) if np.isfinite(v).any()
                      else np.full(5, np.nan) for v in values]).reshape(len(values), 5)
        mean = np.array([np.nanmean(v) if np.isfinite(v).any() else np.nan for v in values])
        dark = _colours(1)[0]
        ax.hlines(ticks, q[:, 0], q[:, 4], color="black", linewidth=0.8, label="5-95 %")
        ax.hlines(ticks, q[:, 1], q[:, 3], color=dark, linewidth=5, label="quartiles")
        ax.scatter(q[:, 2], ticks, marker="|", s=60, color="white", zorder=3, label="median")
        ax.scatter(mean, ticks, marker="D", s=14, facecolor="white", edgecolor="black",
                   zorder=4, label="mean")
        ax.set_yticks(ticks, short, fontsize=7)
        ax.set_ylim(len(names) + 0.5, 0.5)  # first run on top
        ax.grid(axis="x", color="#dddddd", linewidth=0.5)
        ax.set_ylabel("run")
        ax.set_xlabel(axis_label)
        ax.legend(fontsize=7, ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0),
                  frameon=False)
        return horizontal
    box = ax.boxplot(values, patch_artist=True, showmeans=True,
                     meanprops={"marker": "D", "markerfacecolor": "white",
                                "markeredgecolor": "black", "markersize": 4})
    for i, (patch, colour) in enumerate(zip(box["boxes"], _colours(len(names)))):
        patch.set_facecolor(colour)
        patch.set_hatch(HATCHES[i % len(HATCHES)])
    ax.set_xticks(ticks, short, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("run")
    ax.set_ylabel(axis_label)
    ax.legend([box["means"][0]] if names else [], ["mean"], fontsize=7)
    return horizontal


def _box_figure(n: int):
    plt = _plt()
    if n > MANY:
        return plt.subplots(figsize=(7, 0.13 * n + 1.6))
    return plt.subplots(figsize=(max(4, 0.7 * n + 2), 4))


# --- distributions of per-query values -------------------------------------------------

def distribution_data(results: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Per-query values of one measure: columns run, query, value (input order)."""
    table = _measure_rows(results, measure, ["run", "query", "value"])
    return table[["run", "query", "value"]].reset_index(drop=True)


def distributions(results: pd.DataFrame, measure: str | None = None):
    """Box plots of the per-query values of each run (mean marked by a diamond);
    horizontal, one row per run, for more than ``MANY`` runs."""
    data = distribution_data(results, measure)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    values = [data.loc[data["run"] == r, "value"].to_numpy(np.float64) for r in runs]
    fig, ax = _box_figure(len(runs))
    _boxes(ax, values, runs, labels, f"per-query {measure or 'value'}")
    ax.set_title(f"Distribution of per-query {measure or 'values'}",
                 pad=18 if len(runs) > MANY else 6)
    _layout(fig, len(runs), labels.values(), 7)
    return _finish(fig, data, labels)


# --- preference matrix -----------------------------------------------------------------

def preference_data(results: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Mean preference matrix (rows preferred over columns when > 0) of one
    measure of an :func:`irpref.compare` table, computed from its per-query
    rows, rows and columns in system order (mean win rate, Diaz Eq. 7, via
    :func:`irpref.aggregate.orderings_of`). ``attrs["ordering"]`` holds the order."""
    from irpref.aggregate import orderings_of

    table = _measure_rows(results, measure, ["run_a", "run_b", "query", "value"])
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


def preference_heatmap(results: pd.DataFrame, measure: str | None = None,
                       annotate: bool | None = None):
    """Heatmap of the mean preference matrix, runs in system order (best first)."""
    plt = _plt()
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
        _layout(fig, n, short, fs, bottom=max(map(len, short)) * fs * 0.62 / 72, right=1.8)
    fig.colorbar(image, ax=ax, label="mean preference (a over b)", shrink=0.6)
    if n <= MANY:
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    return _finish(fig, data, labels)


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


def search_length_distributions(table: pd.DataFrame):
    """Distribution of per-item atomized search lengths of each run (ASL paper,
    Figs. 5-6): box plots on a log scale, lower is better."""
    data = search_length_data(table)
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    values = [data.loc[data["run"] == r, "search_length"].to_numpy(np.float64) for r in runs]
    fig, ax = _box_figure(len(runs))
    horizontal = _boxes(ax, [v + 1 for v in values], runs, labels,
                        "search length + 1 (log scale)")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    axis = ax.xaxis if horizontal else ax.yaxis
    (ax.set_xscale if horizontal else ax.set_yscale)("log")
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())
    ax.set_title("Per-item atomized search lengths (lower is better)",
                 pad=18 if len(runs) > MANY else 6)
    _layout(fig, len(runs), labels.values(), 7)
    return _finish(fig, data, labels)


def search_length_change(table: pd.DataFrame, run: str, baseline: str):
    """Histogram of the per-item change ``SL(run) - SL(baseline)`` (ASL paper,
    Fig. 6; negative = the run finds the item sooner). ``irpref_data`` is
    :func:`irpref.asl.change` (columns query, doc, run, baseline, delta)."""
    from irpref.asl import change

    plt = _plt()
    data = change(table, run, baseline).dropna(subset=["delta"]).reset_index(drop=True)
    labels = abbreviate([run, baseline])
    d = data["delta"].to_numpy(np.float64)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    lim = float(np.abs(d).max()) if d.size else 1.0
    edges = np.linspace(-lim - 0.5, lim + 0.5, min(61, max(3, int(2 * lim) + 2)))
    c = _colours(2)
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
    return _finish(fig, data, labels)


# --- ties ------------------------------------------------------------------------------

def tie_data(qrels, runs, measures: Sequence[str], *, rel: int = 1,
             judged: dict | None = None) -> pd.DataFrame:
    """Mean of each measure per run with ties broken by docid and in
    expectation (McSherry & Najork): columns run, measure, docid, expected,
    difference (docid - expected). Means are taken over the per-query rows.
    ``judged`` may map ``"docid"`` / ``"expected"`` to inputs already judged so."""
    from irpref.evaluate import evaluate

    frames = {}
    for ties in ("docid", "expected"):
        given = (judged or {}).get(ties)
        res = evaluate(qrels, runs, list(measures), rel=rel, ties=ties, judged=given)
        frames[ties] = res.groupby(["run", "measure"], sort=False)["value"].mean()
    out = pd.concat(frames, axis=1).reset_index()
    out["difference"] = out["docid"] - out["expected"]
    return out[["run", "measure", "docid", "expected", "difference"]]


def tie_effects(data: pd.DataFrame):
    """Paired bars per run: the mean with docid tie-breaking vs the expected
    (tie-aware) mean, one panel per measure. ``data`` is :func:`tie_data`."""
    plt = _plt()
    measures = list(pd.unique(data["measure"]))
    runs = list(pd.unique(data["run"]))
    labels = abbreviate(runs)
    if len(runs) > MANY:
        return _tie_scatter(data, measures, runs, labels)
    fig, axes = plt.subplots(1, max(len(measures), 1), squeeze=False,
                             figsize=(max(4, (0.5 * len(runs) + 1.5)) * max(len(measures), 1), 4))
    c = _colours(2)
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
    return _finish(fig, data.reset_index(drop=True), labels)


def _tie_scatter(data: pd.DataFrame, measures: list, runs: list[str],
                 labels: dict[str, str]):
    """Many runs: per measure, one point per run at (expected, docid); points off
    the diagonal are runs whose mean depends on the tie-break. The five runs
    farthest from it are labelled."""
    plt = _plt()
    cols = min(len(measures), 3) or 1
    rows = -(-max(len(measures), 1) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(3.6 * cols, 3.4 * rows))
    for ax, measure in zip(axes.flat, measures):
        part = data[data["measure"] == measure]
        x, y = part["expected"].to_numpy(np.float64), part["docid"].to_numpy(np.float64)
        lo, hi = float(np.nanmin([x.min(), y.min()])), float(np.nanmax([x.max(), y.max()]))
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.6, linestyle="--",
                label="no tie effect")
        ax.scatter(x, y, s=12, color=_colours(1)[0], edgecolor="black", linewidth=0.3,
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
    return _finish(fig, data.reset_index(drop=True), labels)


# --- significance matrix ---------------------------------------------------------------

def significance_data(table: pd.DataFrame, measure: str | None = None,
                      alpha: float | None = None) -> pd.DataFrame:
    """Run x run matrix of one measure of :func:`irpref.significance`: +1 where
    the row run is significantly better than the column run (``p_adjusted`` <
    ``alpha`` and mean a - b > 0), -1 significantly worse, 0 otherwise; runs
    ordered by their mean difference to all others, best first. ``alpha``
    defaults to the table's ``attrs["alpha"]``, else 0.05."""
    cols = ["run_a", "run_b", "mean", "p_adjusted"]
    table = _measure_rows(table, measure, cols)
    if alpha is None:
        alpha = float(table.attrs.get("alpha", 0.05))
    a = table["run_a"].astype(str).to_numpy(object)
    b = table["run_b"].astype(str).to_numpy(object)
    runs = [str(r) for r in pd.unique(np.concatenate([a, b]))]
    index = pd.Index(runs)
    i, j = index.get_indexer(a), index.get_indexer(b)
    mean = table["mean"].to_numpy(np.float64)
    sig = (table["p_adjusted"].to_numpy(np.float64) < alpha) & (mean != 0)
    m = np.zeros((len(runs), len(runs)))
    m[i, j] = np.where(sig, np.sign(mean), 0.0)
    m[j, i] = -m[i, j]
    d = np.zeros((len(runs), len(runs)))
    d[i, j], d[j, i] = mean, -mean
    order = [runs[k] for k in np.argsort(-d.sum(1), kind="stable")]
    frame = pd.DataFrame(m, index=runs, columns=runs).loc[order, order]
    frame.attrs["alpha"] = alpha
    return frame


def significance_matrix(table: pd.DataFrame, measure: str | None = None,
                        alpha: float | None = None):
    """Which run pairs differ significantly: black = row run better, white =
    no significant difference, grey = row run worse (greyscale-safe)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    plt = _plt()
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
        _layout(fig, n, short, fs, bottom=max(map(len, short)) * fs * 0.62 / 72, right=1.9)
    else:
        fig.tight_layout()
    return _finish(fig, data, labels)


# --- discriminative power --------------------------------------------------------------

def discriminative_data(tables, tests: Sequence[str] = ("paired",), alpha: float = 0.05,
                        **kwargs) -> pd.DataFrame:
    """:func:`irpref.discriminative_power` of the tidy tables: columns measure,
    test, correction, alpha, pairs, significant, percent."""
    from irpref.meta.discriminative import discriminative_power

    return discriminative_power(tables, alpha=alpha, test=list(tests), **kwargs)


def discriminative_bars(data: pd.DataFrame):
    """Percent of run pairs significantly different, per measure (groups) and
    test (hatched bars). ``data`` is :func:`discriminative_data`."""
    plt = _plt()
    measures = list(pd.unique(data["measure"]))
    tests = list(pd.unique(data["test"]))
    fig, ax = plt.subplots(figsize=(max(4, 0.9 * len(measures) * max(len(tests), 1) / 2 + 2), 4))
    width = 0.8 / max(len(tests), 1)
    x = np.arange(len(measures))
    for i, (test, colour) in enumerate(zip(tests, _colours(len(tests)))):
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
    return _finish(fig, data.reset_index(drop=True))


# --- meta-evaluation curves -----------------------------------------------------------

CURVE_LABELS = {"percent_tied": "pairs tied (%)", "agreement": "sign agreement with full labels",
                "kendall_tau": "Kendall's tau with full-label ordering"}
CURVE_X = {"fraction": "fraction of relevance labels removed", "size": "queries kept"}


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


def meta_curves(table: pd.DataFrame):
    """One panel per statistic (agreement, tau, ties) against the fraction of
    labels removed or the queries kept, one line per measure with one standard
    deviation shaded (after Diaz, lexiprecision, 2023, Figs. 8-9, which
    measure agreement with dRR_1; here each measure's own full-label comparisons)."""
    plt = _plt()
    data = meta_curve_data(table)
    stats = list(pd.unique(data["statistic"]))
    measures = list(pd.unique(data["measure"]))
    fig, axes = plt.subplots(1, len(stats), figsize=(4 * len(stats), 3.4), squeeze=False)
    for ax, stat in zip(axes[0], stats):
        for i, (m, colour) in enumerate(zip(measures, _colours(len(measures)))):
            part = data[(data["statistic"] == stat) & (data["measure"] == m)].sort_values("x")
            x, mean, sd = part["x"], part["mean"], part["sd"].fillna(0.0)
            ax.plot(x, mean, color=colour, marker=MARKERS[i % len(MARKERS)],
                    linestyle=["-", "--", ":", "-."][i % 4], label=m)
            ax.fill_between(x, mean - sd, mean + sd, color=colour, alpha=0.2, linewidth=0)
        ax.set_xlabel(CURVE_X[data.attrs["x"]])
        ax.set_ylabel(CURVE_LABELS[stat])
        ax.set_title(CURVE_LABELS[stat].split(" with")[0].capitalize(), fontsize=9)
        ax.legend(title="measure", fontsize=7)
    what = "label degradation" if data.attrs["x"] == "fraction" else "query subsampling"
    fig.suptitle(f"Meta-evaluation: {what} (mean ± 1 sd)", fontsize=10)
    fig.tight_layout()
    return _finish(fig, data)


def save(fig, path, **kwargs) -> None:
    """Write a figure; the format follows the extension (png, svg, pdf)."""
    fig.savefig(path, dpi=kwargs.pop("dpi", 110), **kwargs)
