"""Lexirecall (Diaz & Mitra 2023) section 7.2.4, Figure 14: worst-case
performance of an optimal deterministic ranking vs the uniform optimal
stochastic ranker, m = 1..25 (`irpref meta worst-case -m RR AP nDCG
"RBP(p=0.8)" --m 1:25`). Exact closed forms (checked against enumeration of
every permutation and user for m <= 5 in tests/test_meta_stochastic.py). The
figure prints no numbers and does not name its metric; the claim checked is
Appendix C's: the stochastic worst case is never below the deterministic one.
Command: python experiments/lexirecall_fig14.py -> lexirecall_fig14.png
Simulated rankings, no collection: the script takes only --no-plot.
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import parse, parser, pyplot, save

from irpref.meta import worst_case_optimal

METRICS = ["RR", "AP", "nDCG", "RBP(p=0.8)"]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=None), argv)
    t = worst_case_optimal(METRICS, range(1, 26))
    print(t[t.m.isin([1, 2, 5, 10, 25])].round(4).to_string(index=False))
    print("stochastic >= deterministic for every metric and m:",
          bool((t.difference >= -1e-15).all()))
    if not args.plot:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, g in t.groupby("metric", sort=False):
        line, = axes[0].plot(g.m, g.deterministic, label=f"{name} deterministic")
        axes[0].plot(g.m, g.stochastic, "--", color=line.get_color(),
                     label=f"{name} stochastic")
        axes[1].plot(g.m, g.difference, label=name)
    axes[0].set_xlabel("m")
    axes[0].set_ylabel("worst-case performance")
    axes[0].legend(fontsize=7)
    axes[1].set_xlabel("m")
    axes[1].set_ylabel("stochastic - deterministic")
    axes[1].legend(fontsize=7)
    save(fig, "lexirecall_fig14.png")


if __name__ == "__main__":
    main()
