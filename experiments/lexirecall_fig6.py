"""Lexirecall (Diaz & Mitra 2023) Figure 6: fraction of tied random ranking
pairs as the retrieval depth decreases, n = 250,000, m ~ U(5, 50), pessimistic
imputation below the depth. Closed form (lines) beside Monte Carlo (points,
2,000 pairs; AP has no closed form and is simulated only). The paper prints
no numbers for this figure: compare the shapes (R@1000 and RP tie often at
every depth; TSE ties quickly as the depth drops; AP and lexirecall tie least).
Command: python experiments/lexirecall_fig6.py  -> lexirecall_fig6.png
Simulated rankings, no collection: the script takes only --no-plot.
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import parse, parser, pyplot, save

from irpref.meta import tie_table

N, M = 250_000, (5, 50)
DEPTHS = [250_000, 100_000, 50_000, 10_000, 5_000, 1_000, 500, 100]
MEASURES = ["TSE", "R@1000", "Rprec", "AP", "sgnLR"]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=None), argv)
    rows = [tie_table(MEASURES, N, M, depth=d, simulate=2000, seed=d) for d in DEPTHS]
    if args.plot:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6, 4))
    for mi, measure in enumerate(MEASURES):
        cf = [r.closed_form.iloc[mi] for r in rows]
        sim = [r.simulated.iloc[mi] for r in rows]
        print(measure, " ".join(f"{d}:{c:.3f}/{s:.3f}" for d, c, s in zip(DEPTHS, cf, sim)))
        if not args.plot:
            continue
        (line,) = ax.plot(DEPTHS, cf, label=measure)
        ax.plot(DEPTHS, sim, "o", color=line.get_color(), markersize=3)
    if not args.plot:
        return
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("retrieval depth ñ")
    ax.set_ylabel("fraction tied")
    ax.set_title("n = 250,000, m ~ U(5, 50): closed form (lines), simulation (points)")
    ax.legend()
    save(fig, "lexirecall_fig6.png")


if __name__ == "__main__":
    main()
