"""Discriminative power as labels and queries are removed, DL 2019 passage
(grade >= 2): `irpref meta degrade ... --power` and `irpref meta subsample
... --power` (paired test: t for RR, sign test for sgnLP; Holm over pairs).

Anchor: with every label and query, the percentages equal lexiprecision
(Diaz 2023) Table 3, deep-pass 2019, paired tests (RR 10.36, rrLP 15.02,
sgnLP 17.42). The papers plot no power-vs-degradation curve: the curves
extend Table 3 to the conditions of Fig. 8a-9 (lexiprecision) and Fig. 6-7
(RPP).
Command: python experiments/power_dl19.py -> power_dl19.png
"""

from __future__ import annotations

from _common import compare, dl19, pyplot, save

from irpref.evaluate import judge_inputs
from irpref.meta import degrade, subsample
from irpref.meta.experiments import pairwise, power_percent

MEASURES = ["RR", "rrLP", "sgnLP"]
PAPER = {"RR": 10.36, "rrLP": 15.02, "sgnLP": 17.42}


def main() -> None:
    qrels, runs = dl19()
    judged = judge_inputs(qrels, runs, rel=2)
    full = dict(zip(MEASURES, power_percent(pairwise(judged, MEASURES))))
    for m in MEASURES:
        print(compare(f"lexiprecision Table 3 {m} (complete)", PAPER[m], full[m]))
    d = degrade(measures=MEASURES, fractions=[0.1, 0.3, 0.5, 0.7, 0.9], samples=10, seed=0,
                judged=judged, power=True)
    s = subsample(measures=MEASURES, sizes=[5, 10, 20, 30, 40], samples=20, seed=0,
                  judged=judged, power=True)
    cols = ["discriminative_power", "discriminative_power_sd"]
    print(d[["measure", "fraction", *cols]].round(2).to_string(index=False))
    print(s[["measure", "size", *cols]].round(2).to_string(index=False))
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, t, x, label in ((axes[0], d, "fraction", "fraction of relevant labels removed"),
                            (axes[1], s, "size", "queries sampled")):
        for name, g in t.groupby("measure", sort=False):
            ax.errorbar(g[x], g[cols[0]], yerr=g[cols[1]], label=name, capsize=2)
        ax.set_xlabel(label)
        ax.set_ylabel("% of run pairs significant")
    axes[0].legend()
    save(fig, "power_dl19.png")


if __name__ == "__main__":
    main()
