"""Lexiprecision (Diaz 2023) Figure 7: locality of δRR_i.

(a) Pearson r between δRR_i and δRR_j, i, j in 1..8; (b) least-squares
regression of δRR_i on δRR_{i+1..i+4}, i = 1..4 (`irpref meta locality`,
`--regression`). The paper uses Robust 2004 (`--collection robust04`) and
prints no numbers; by default we run Robust 2003 (grade >= 1) and DL 2019
passage (grade >= 2) and check its two claims: r falls as |i - j| grows, and
δRR_{i+1} has the largest coefficient.
Command: python experiments/lexiprecision_fig7.py -> lexiprecision_fig7.png
Usage: python lexiprecision_fig7.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from _common import figure_name, parse, parser, pyplot, rel, save

from irpref.evaluate import judge_inputs
from irpref.meta import recall_level_correlation, recall_level_regression

DEFAULT = ("robust03", "dl19-passage")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=DEFAULT), argv)
    sets = {c.name: judge_inputs(c.qrels, c.runs, rel=rel(args, "lexiprecision", c))
            for c in args.collections}
    if args.plot:
        plt = pyplot()
        fig, axes = plt.subplots(2, len(sets), figsize=(5 * len(sets), 8), squeeze=False)
    for col, (label, judged) in enumerate(sets.items()):
        c = recall_level_correlation(judged=judged, levels=8)
        mat = c.pivot(index="level_i", columns="level_j", values="pearson")
        print(f"{label} (grade >= {judged.rel}): Pearson r of δRR_i, δRR_j")
        print(mat.round(2).to_string())
        lag = c[c.level_j > c.level_i].assign(lag=lambda t: t.level_j - t.level_i)
        by_lag = lag.groupby("lag").pearson.mean()
        print("mean r by |i - j|:", by_lag.round(3).to_dict(),
              "falls with |i-j|:", bool(np.all(np.diff(by_lag.to_numpy()) < 0)))
        g = recall_level_regression(judged=judged, targets=[1, 2, 3, 4], predictors=4)
        print(g.round(3).to_string(index=False))
        first = g.loc[g.groupby("target").coefficient.idxmax()]
        print("largest coefficient is on δRR_{i+1} for every i:",
              bool((first.predictor == first.target + 1).all()))
        if not args.plot:
            continue
        ax = axes[0, col]
        im = ax.imshow(mat.to_numpy(), vmin=-1, vmax=1, cmap="RdBu_r")
        ax.set_xticks(range(8), range(1, 9))
        ax.set_yticks(range(8), range(1, 9))
        ax.set_title(f"(a) Pearson δRR_i, δRR_j: {label}")
        fig.colorbar(im, ax=ax)
        ax = axes[1, col]
        for t, tg in g.groupby("target"):
            ax.plot(tg.predictor - t, tg.coefficient, marker="o",
                    label=f"δRR_{t} (R²={tg.r2.iloc[0]:.2f})")
        ax.set_xlabel("j (predictor δRR_{i+j})")
        ax.set_ylabel("coefficient")
        ax.set_title(f"(b) regression: {label}")
        ax.legend(fontsize=7)
    if args.plot:
        save(fig, figure_name("lexiprecision_fig7.png", args.collections, DEFAULT))


if __name__ == "__main__":
    main()
