"""Query subsampling on DL 2019 passage (grade >= 2), 50 samples per size:
RPP (Diaz & Ferraro 2022) Figure 6 and lexiprecision (Diaz 2023) Figure 8b:
Kendall's τ of the ordering on k sampled queries with the ordering on all.
Preferences are ordered by win rate (RPP Eq. 7). No printed numbers: compare
the shapes (preferences at or above their metric counterparts).
Command: python experiments/subsample_dl19.py -> subsample_dl19.png
(`irpref meta subsample QRELS RUNS -m ... --sizes ... --samples 50 --rel 2`)
"""

from __future__ import annotations

from _common import dl19, pyplot, save

from irpref.meta import subsample

SIZES = [2, 5, 10, 15, 20, 25, 30, 35, 40]
MEASURES = ["RR", "rrLP", "sgnLP", "AP", "nDCG", "RPP"]


def main() -> None:
    qrels, runs = dl19()
    t = subsample(qrels, runs, MEASURES, sizes=SIZES, samples=50, seed=0, rel=2)
    print(t.round(3).to_string(index=False))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, g in t.groupby("measure", sort=False):
        ax.plot(g["size"], g.kendall_tau, label=name)
        ax.fill_between(g["size"], g.kendall_tau - g.kendall_tau_sd,
                        g.kendall_tau + g.kendall_tau_sd, alpha=0.15)
    ax.set_xlabel("queries sampled (k)")
    ax.set_ylabel("τ with the ordering on all 43 queries")
    ax.legend()
    save(fig, "subsample_dl19.png")


if __name__ == "__main__":
    main()
