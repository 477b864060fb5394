"""Discriminative power as labels and queries are removed, on a collection
(default DL 2019 passage; lexiprecision's level, grade >= 2 there): `irpref
meta degrade ... --power` and `irpref meta subsample ... --power` (paired
test: t for RR, sign test for sgnLP; Holm over pairs).

Anchor: with every label and query, the percentages are lexiprecision (Diaz
2023) Table 3(b), paired tests (deep-pass 2019: RR 10.36, rrLP 15.02, sgnLP
17.42, exact), and Table 3(a), randomized Tukey HSD (10,000 permutations,
seed 0; Monte Carlo). The papers plot no power-vs-degradation curve: the
curves extend Table 3 to the conditions of Fig. 8a-9 (lexiprecision) and
Fig. 6-7 (RPP).
Command: python experiments/power_dl19.py [--collection NAME] [--no-plot]
-> power_dl19.png (power_dl19.NAME.png for another collection)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from _common import figure_name, hsd_percent_se, parse, parser, pyplot, rel, report, save

import irpref
from irpref.evaluate import judge_inputs
from irpref.meta import degrade, subsample
from irpref.meta.pairwise import pairwise, power_percent

MEASURES = ["RR", "rrLP", "sgnLP"]
PAPER = "lexiprecision"
PERMUTATIONS = 10_000
SIZES = [5, 10, 20, 30, 40]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        run(coll, rel(args, PAPER, coll), args.plot,
            figure_name("power_dl19.png", [coll]))


def run(coll, level: int, plot: bool, figure: str) -> None:
    judged = judge_inputs(coll.qrels, coll.runs, rel=level)
    full = dict(zip(MEASURES, power_percent(pairwise(judged, MEASURES))))
    report(PAPER, "Table 3b", coll.name, full, labels={m: f"{m} (complete)" for m in MEASURES},
           note=f" (grade >= {level}, Holm)")
    met = irpref.evaluate(None, None, ["RR"], judged=judged)
    pref = irpref.compare(coll.qrels, coll.runs, ["rrLP", "sgnLP"], rel=level)
    res = irpref.significance([pref, met], test="hsd", permutations=PERMUTATIONS, seed=0,
                              bootstrap=0)
    hsd = irpref.discriminative_power(res).set_index("measure")["percent"]
    se = {m: math.sqrt(2) * s for m, s in hsd_percent_se(res, PERMUTATIONS).items()}
    report(PAPER, "Table 3a", coll.name, {m: hsd[m] for m in MEASURES}, se=se,
           labels={m: f"{m} (complete)" for m in MEASURES},
           note=f" (grade >= {level}, {PERMUTATIONS:,} permutations)")
    d = degrade(measures=MEASURES, fractions=[0.1, 0.3, 0.5, 0.7, 0.9], samples=10, seed=0,
                judged=judged, power=True)
    sizes = [k for k in SIZES if k < judged.n_queries]
    s = subsample(measures=MEASURES, sizes=sizes, samples=20, seed=0, judged=judged, power=True)
    cols = ["discriminative_power", "discriminative_power_sd"]
    print(d[["measure", "fraction", *cols]].round(2).to_string(index=False))
    print(s[["measure", "size", *cols]].round(2).to_string(index=False))
    if not plot:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, t, x, label in ((axes[0], d, "fraction", "fraction of relevant labels removed"),
                            (axes[1], s, "size", "queries sampled")):
        for name, g in t.groupby("measure", sort=False):
            ax.errorbar(g[x], g[cols[0]], yerr=g[cols[1]], label=name, capsize=2)
        ax.set_xlabel(label)
        ax.set_ylabel("% of run pairs significant")
    axes[0].legend()
    save(fig, figure)


if __name__ == "__main__":
    main()
