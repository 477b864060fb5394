"""The shared parts of irpref's figures: the Agg backend, run labels, colours,
layout and the ``irpref_data`` attached to every figure.

Colours come from the ``cividis`` map (readable in greyscale and by
colour-blind readers) and are doubled with hatching, so grey prints stay
legible. Run names longer than ``width`` characters are abbreviated
consistently (:func:`abbreviate`); the figure then carries a key.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["HATCHES", "MANY", "MARKERS", "abbreviate", "box_figure", "draw_boxes", "finish",
           "fit_layout", "glyphs_noted", "measure_rows", "palette", "plain_text", "pyplot", "save"]

MANY = 15  # more runs than this: compact layouts (heatmaps, horizontal boxes, scatter)
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def plain_text(draw):
    """Draw with every text plain: a run name is data, so a ``$`` in it is printed, never
    read as matplotlib's mathtext (``$x^2$`` typeset, an unbalanced ``$\\frac$`` an
    error while laying out). Every figure function of irpref is wrapped in it; the
    setting holds for the texts made while drawing and is restored after."""
    import functools

    @functools.wraps(draw)
    def plain(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}), glyphs_noted():
            return draw(*args, **kwargs)

    return plain


def pyplot():
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


def palette(n: int):
    plt = pyplot()
    cmap = plt.get_cmap("cividis")
    return [cmap(x) for x in (np.linspace(0.1, 0.9, n) if n > 1 else [0.5])]


def measure_rows(results: pd.DataFrame, measure: str | None, cols: list[str]) -> pd.DataFrame:
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


def fit_layout(fig, n: int, labels: Sequence[str], fontsize: float, *, bottom: float = 0.0,
            right: float = 0.3, top: float = 0.45) -> None:
    """Margins for a figure with ``n`` run labels on its y axis (and ``bottom``
    inches of x labels, ``top`` inches above the axes for the title and a legend
    set above them): ``tight_layout`` measures every tick label, which for
    100 runs costs more than drawing the figure, so many-run figures size their
    margins from the longest label instead."""
    if n <= MANY:
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        return
    width, height = fig.get_size_inches()
    chars = max((len(str(x)) for x in labels), default=4)
    left = chars * fontsize * 0.62 / 72 + 0.75  # tick labels + axis label, inches
    fig.subplots_adjust(left=min(left / width, 0.5), right=1 - right / width,
                        bottom=min((bottom + 0.6) / height, 0.4), top=1 - top / height)


def finish(fig, data: pd.DataFrame, labels: dict[str, str] | None = None):
    """Add the key of abbreviated labels and attach ``data`` as ``fig.irpref_data``."""
    if labels:
        _key(fig, labels)
    fig.irpref_data = data
    return fig


def draw_boxes(ax, values: list[np.ndarray], names: list[str], labels: dict[str, str],
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
        dark = palette(1)[0]
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
    for i, (patch, colour) in enumerate(zip(box["boxes"], palette(len(names)))):
        patch.set_facecolor(colour)
        patch.set_hatch(HATCHES[i % len(HATCHES)])
    ax.set_xticks(ticks, short, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("run")
    ax.set_ylabel(axis_label)
    ax.legend([box["means"][0]] if names else [], ["mean"], fontsize=7)
    return horizontal


def box_figure(n: int):
    plt = pyplot()
    if n > MANY:
        return plt.subplots(figsize=(7, 0.13 * n + 1.6))
    return plt.subplots(figsize=(max(4, 0.7 * n + 2), 4))



def save(fig, path, **kwargs) -> None:
    """Write a figure to a path or file object; the format follows the extension (png,
    svg, pdf) unless ``format`` is given."""
    with glyphs_noted():
        fig.savefig(path, dpi=kwargs.pop("dpi", 110), **kwargs)


@contextlib.contextmanager
def glyphs_noted():
    """A run name with characters the figure's font lacks (CJK names under DejaVu Sans)
    makes matplotlib warn once per character while laying out and drawing; they become
    one warning that says what the reader sees: boxes in the figures, the names spelled
    in the tables. Other warnings pass through unchanged."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing = False
    for w in caught:
        if str(w.message).startswith("Glyph ") and "missing from" in str(w.message):
            missing = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missing:
        warnings.warn("the figures' font lacks some characters of the run names: they are "
                      "drawn as boxes (the tables spell every name)", UserWarning,
                      stacklevel=3)
