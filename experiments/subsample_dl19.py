"""Query subsampling on a collection (default DL 2019 passage, grade >= 2,
lexiprecision's level), 50 samples per size:
RPP (Diaz & Ferraro 2022) Figure 6 and lexiprecision (Diaz 2023) Figure 8b:
Kendall's τ of the ordering on k sampled queries with the ordering on all.
Preferences are ordered by win rate (RPP Eq. 7). No printed numbers: compare
the shapes (preferences at or above their metric counterparts).
Command: python experiments/subsample_dl19.py -> subsample_dl19.png
(`irpref meta subsample QRELS RUNS -m ... --sizes ... --samples 50 --rel 2`)
Usage: python subsample_dl19.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import figure_name, parse, parser, pyplot, rel, save

from irpref.evaluate import judge_inputs
from irpref.meta import subsample

SIZES = [2, 5, 10, 15, 20, 25, 30, 35, 40]
MEASURES = ["RR", "rrLP", "sgnLP", "AP", "nDCG", "RPP"]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        level = rel(args, "lexiprecision", coll)
        judged = judge_inputs(coll.qrels, coll.runs, rel=level)
        sizes = [k for k in SIZES if k < judged.n_queries]
        t = subsample(measures=MEASURES, sizes=sizes, samples=50, seed=0, judged=judged)
        print(f"{coll.name} (grade >= {level})")
        print(t.round(3).to_string(index=False))
        if args.plot:
            plot(t, judged.n_queries, figure_name("subsample_dl19.png", [coll]))


def plot(t, n_queries: int, figure: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, g in t.groupby("measure", sort=False):
        ax.plot(g["size"], g.kendall_tau, label=name)
        ax.fill_between(g["size"], g.kendall_tau - g.kendall_tau_sd,
                        g.kendall_tau + g.kendall_tau_sd, alpha=0.15)
    ax.set_xlabel("queries sampled (k)")
    ax.set_ylabel(f"τ with the ordering on all {n_queries} queries")
    ax.legend()
    save(fig, figure)


if __name__ == "__main__":
    main()
