"""Lexiprecision (Diaz 2023) Figure 8a: agreement of preferences on degraded
labels with δRR_1 on complete labels (uniform removal, 10 samples), on a
collection (default DL 2019 passage, grade >= 2: the paper's level). No
printed numbers: the paper reports rrLP agreeing with complete δRR_1 as
well as or better than RR with incomplete labels.
Command: irpref meta degrade QRELS RUNS -m RR rrLP sgnLP --reference RR --rel 2
    --fractions 0.1,...,0.9 --samples 10   (-> lexiprecision_fig8a.png)
Usage: python lexiprecision_fig8a.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import figure_name, parse, parser, pyplot, rel, save

from irpref.meta import degrade

FRACTIONS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        level = rel(args, "lexiprecision", coll)
        t = degrade(coll.qrels, coll.runs, ["RR", "rrLP", "sgnLP"], fractions=FRACTIONS,
                    samples=10, seed=0, rel=level, reference="RR")
        print(f"{coll.name} (grade >= {level})")
        print(t[["measure", "fraction", "agreement", "agreement_sd", "kendall_tau"]]
              .round(3).to_string(index=False))
        if args.plot:
            plot(t, figure_name("lexiprecision_fig8a.png", [coll]))


def plot(t, figure: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for name, g in t.groupby("measure", sort=False):
        for k, stat in enumerate(("agreement", "kendall_tau")):
            ax[k].plot(g.fraction, g[stat], label=name)
            ax[k].fill_between(g.fraction, g[stat] - g[stat + "_sd"], g[stat] + g[stat + "_sd"],
                               alpha=0.15)
    ax[0].set(xlabel="fraction of labels removed", ylabel="agreement with complete δRR_1")
    ax[1].set(xlabel="fraction of labels removed", ylabel="τ with complete RR ordering")
    ax[0].legend()
    save(fig, figure)


if __name__ == "__main__":
    main()
