"""The figure of a leaderboard: each run's rank with its rank interval.

Rows of :func:`irpref.stats.ranks.leaderboard` (``irpref rank``): per run a
marker at its rank and a bar from ``rank_low`` to ``rank_high`` (Mogstad,
Romano, Shaikh & Wilhelm 2024; the legend names the test and correction and
says whether the intervals are simultaneous, from the board's columns), best
run at the top; the marginal bootstrap intervals, when the
table has them, as thin lines beside. The groups (letters of the compact letter
display, or ranges of rows) label the right margin. As every irpref figure it carries the numbers
it draws in ``fig.irpref_data`` and abbreviates long run names
(:func:`irpref.report.figure_kit.abbreviate`).
"""

from __future__ import annotations

import pandas as pd

from irpref.report.figure_kit import MANY, abbreviate, plain_text

__all__ = ["rank_interval_data", "rank_intervals"]

COLUMNS = ["run", "mean", "rank", "rank_low", "rank_high", "group"]


def rank_interval_data(board: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """The rows of one measure of a leaderboard, best first: run, mean, rank,
    rank_low, rank_high, group (and marginal_low, marginal_high when present)."""
    rows = board
    if measure is not None:
        rows = rows[rows["measure"].astype(str) == str(measure)]
    elif rows["measure"].nunique() > 1:
        raise ValueError("the leaderboard holds several measures: pick one")
    if rows.empty:
        raise ValueError(f"no rows for measure {measure!r}")
    extra = [c for c in ("marginal_low", "marginal_high") if c in rows.columns]
    return rows[COLUMNS + extra].sort_values("rank", kind="stable").reset_index(drop=True)


@plain_text
def rank_intervals(board: pd.DataFrame, measure: str | None = None, *,
                   simultaneous: bool | None = None):
    """A matplotlib Figure of the rank intervals of one measure (see the module doc);
    ``simultaneous``: whether they hold together (default: the board's ``simultaneous``
    column, :data:`irpref.stats.rank_family.LEVELS`), as the legend then says."""
    from matplotlib.figure import Figure

    data = rank_interval_data(board, measure)
    rows = board if measure is None else board[board["measure"].astype(str) == str(measure)]
    if simultaneous is None:
        simultaneous = bool(rows["simultaneous"].all()) if "simultaneous" in rows else True
    how = (f"{rows['test'].iloc[0]}, {rows['correction'].iloc[0]}, "
           if {"test", "correction"} <= set(rows.columns) else "")
    name = str(measure if measure is not None else board["measure"].iloc[0])
    n = len(data)
    labels = abbreviate(data["run"].astype(str).tolist(), width=24 if n <= MANY else 16)
    # many runs: the compact row height of the other figures (a report's figure stays
    # under 2200 px and 4:1 at 100 runs)
    fig = Figure(figsize=(6.4, 0.13 * n + 1.6 if n > MANY else max(2.2, 0.28 * n + 1.2)))
    ax = fig.add_subplot()
    y = list(range(n))[::-1]  # best at the top
    kind = how + ("simultaneous" if simultaneous else "not simultaneous")
    ax.hlines(y, data["rank_low"] - 0.4, data["rank_high"] + 0.4, color="#2b4a7d", lw=5,
              alpha=0.45, label=f"rank interval ({kind})")
    if "marginal_low" in data:
        ax.hlines([v - 0.25 for v in y], data["marginal_low"], data["marginal_high"],
                  color="#7a7a7a", lw=1.2, label="marginal bootstrap interval")
    ax.plot(data["rank"], y, "o", color="#111111", ms=4, label="rank")
    ax.set_yticks(y)
    ax.set_yticklabels([labels[str(r)] for r in data["run"]], fontsize=7 if n > MANY else 8)
    for yi, group in zip(y, data["group"]):
        ax.annotate(str(group), (1.01, yi), xycoords=("axes fraction", "data"), va="center",
                    fontsize=7)
    ax.set_xlim(0.4, n + 0.6)
    ax.set_xlabel("rank (1 = best)")
    ax.set_title(f"{name}: ranks with their intervals", fontsize=10)
    ax.legend(fontsize=7, loc="lower right", frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.irpref_data = data
    return fig
