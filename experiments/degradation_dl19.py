"""Label degradation on DL 2019 passage (grade >= 2), 10 samples per fraction:

- lexiprecision (Diaz 2023) Figure 9: ties of δRR_1 and rrLP as labels are
  removed uniformly at random;
- lexirecall (Diaz & Mitra 2023) Figures 12 (ties) and 13 (agreement of the
  degraded preferences with the complete-label ones), uniform and
  pool-frequency removal, for R@1000, Rprec, AP, nDCG, lexirecall, RR;
- RPP (Diaz & Ferraro 2022) Figure 7: Kendall's τ of the system ordering with
  the complete-label ordering, for RPP, AP, nDCG, RR.

The papers plot these for their datasets (DL 2019 passage is one of them in
lexiprecision and RPP; lexirecall's Fig. 12-13 show the "standard" group)
without printed numbers: compare the shapes.
Command: python experiments/degradation_dl19.py -> degradation_dl19.png
(each panel is one `irpref meta degrade ... --rel 2 --method M` call)
"""

from __future__ import annotations

from _common import dl19, pyplot, save

from irpref.evaluate import judge_inputs
from irpref.meta import degrade

FRACTIONS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
MEASURES = ["RR", "rrLP", "sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RPP"]


def main() -> None:
    qrels, runs = dl19()
    judged = judge_inputs(qrels, runs, rel=2)
    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for row, method in enumerate(("uniform", "frequency")):
        t = degrade(measures=MEASURES, fractions=FRACTIONS, samples=10, method=method,
                    seed=0, judged=judged)
        print(f"method={method}")
        print(t[["measure", "fraction", "percent_tied", "agreement", "kendall_tau"]]
              .round(3).to_string(index=False))
        for col, (stat, label) in enumerate((("percent_tied", "% tied"),
                                             ("agreement", "agreement with full labels"),
                                             ("kendall_tau", "τ with full-label ordering"))):
            ax = axes[row, col]
            for name, g in t.groupby("measure", sort=False):
                ax.plot(g.fraction, g[stat], label=name)
                ax.fill_between(g.fraction, g[stat] - g[stat + "_sd"],
                                g[stat] + g[stat + "_sd"], alpha=0.15)
            ax.set_title(f"{label} ({method})")
            ax.set_xlabel("fraction of relevant labels removed")
    axes[0, 0].legend(fontsize=7)
    save(fig, "degradation_dl19.png")


if __name__ == "__main__":
    main()
