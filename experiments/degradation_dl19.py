"""Label degradation on a collection (default DL 2019 passage; levels are
the papers', paper_rows.REL), 10 samples per fraction:

- lexiprecision (Diaz 2023) Figure 9: ties of δRR_1 and rrLP as labels are
  removed uniformly at random (grade >= 2, the level of its Table 2);
- lexirecall (Diaz & Mitra 2023) Figures 12 (ties) and 13 (agreement of the
  degraded preferences with the complete-label ones), uniform and
  pool-frequency removal, for R@1000, Rprec, AP, nDCG, lexirecall, RR
  (grade >= 1: its Table 5 counts 95.40 relevant per request for deep-pass
  2019, as RPP's Table 1);
- RPP (Diaz & Ferraro 2022) Figure 7: Kendall's τ of the system ordering with
  the complete-label ordering, for RPP, AP, nDCG, RR (grade >= 1; the paper
  shows Robust, DL 2020 passage and ML-1M, not DL 2019).

The papers plot these without printed numbers: the script prints irpref's
curves and checks each paper's reading.
Command: python experiments/degradation_dl19.py -> degradation_dl19.png
(each panel is one `irpref meta degrade ... --rel 1 --method M` call)
Usage: python degradation_dl19.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import figure_name, parse, parser, pyplot, rel, save

from irpref.evaluate import judge_inputs
from irpref.meta import degrade

FRACTIONS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
MEASURES = ["RR", "rrLP", "sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RPP"]


def _at(t, measure: str, fraction: float, stat: str) -> float:
    return float(t[(t.measure == measure) & (t.fraction == fraction)][stat].iloc[0])


def readings(t, method: str) -> None:
    """The papers' readings, checked on ``t`` (one removal method)."""
    def rise(m):  # ties added from f = 0.1 to f = 0.9
        return _at(t, m, 0.9, "percent_tied") - _at(t, m, 0.1, "percent_tied")

    def say(text, ok):
        print(f"  [{method}] {text}: {'holds' if ok else 'does not hold'}")

    say(f"Fig. 12: lexirecall ties grow less than R@1000 and RP (+{rise('sgnLR'):.1f} vs "
        f"+{rise('R@1000'):.1f}, +{rise('Rprec'):.1f} points)",
        rise("sgnLR") < min(rise("R@1000"), rise("Rprec")))
    ag = {m: _at(t, m, 0.5, "agreement") for m in ("sgnLR", "AP", "nDCG", "Rprec", "R@1000")}
    say("Fig. 13: at f = 0.5 RP agrees least with complete labels ("
        + ", ".join(f"{m} {v:.3f}" for m, v in ag.items()) + ")",
        ag["Rprec"] == min(ag.values()))
    say(f"Fig. 13: R@1000 drops below lexirecall at f = 0.9 "
        f"({_at(t, 'R@1000', 0.9, 'agreement'):.3f} vs {_at(t, 'sgnLR', 0.9, 'agreement'):.3f})",
        _at(t, "R@1000", 0.9, "agreement") < _at(t, "sgnLR", 0.9, "agreement"))
    tau = {m: _at(t, m, 0.9, "kendall_tau") for m in ("RPP", "AP", "nDCG", "RR")}
    say("RPP Fig. 7: at f = 0.9 RR's τ is lowest, RPP's >= AP's ("
        + ", ".join(f"{m} {v:.3f}" for m, v in tau.items()) + ")",
        tau["RR"] == min(tau.values()) and tau["RPP"] >= tau["AP"])


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        run(coll, rel(args, "lexiprecision", coll), rel(args, "lexirecall", coll),
            figure_name("degradation_dl19.png", [coll]) if args.plot else None)


def run(coll, rel_lp: int, rel_lr: int, figure: str | None) -> None:
    lp = degrade(coll.qrels, coll.runs, ["RR", "rrLP"], fractions=FRACTIONS, samples=10,
                 seed=0, rel=rel_lp)
    print(f"lexiprecision Fig. 9 ({coll.name}, grade >= {rel_lp}, uniform): % tied")
    print(lp.pivot(index="fraction", columns="measure", values="percent_tied").round(2))
    judged = judge_inputs(coll.qrels, coll.runs, rel=rel_lr)
    if figure:
        plt = pyplot()
        fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for row, method in enumerate(("uniform", "frequency")):
        t = degrade(measures=MEASURES, fractions=FRACTIONS, samples=10, method=method,
                    seed=0, judged=judged)
        print(f"grade >= {rel_lr}, method={method}")
        for stat in ("percent_tied", "agreement", "kendall_tau"):
            print(f"{stat}:")
            print(t.pivot(index="fraction", columns="measure", values=stat)[MEASURES]
                  .round(3).to_string())
        readings(t, method)
        if not figure:
            continue
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
    if figure:
        axes[0, 0].legend(fontsize=7)
        save(fig, figure)


if __name__ == "__main__":
    main()
