"""Lexirecall (Diaz & Mitra 2023) Figure 3: precision and recall orientation
of RR, AP, nDCG, RBP(0.8), R@1000 and TSE for n = 10^5 items, m = 1..15
(``irpref.meta.orientation.figure3``). The paper prints no numbers: compare
the shapes (RR purely precision-oriented, TSE purely recall-oriented).
Command: python experiments/lexirecall_fig3.py -> lexirecall_fig3.png
Simulated rankings, no collection: the script takes only --no-plot.
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import parse, parser, pyplot, save

from irpref.meta.orientation import figure3


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=None), argv)
    t = figure3(n=1e5, ms=range(1, 16))
    print(t[t.m.isin([1, 5, 15])].round(4).to_string(index=False))
    if not args.plot:
        return
    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for name, g in t.groupby("metric", sort=False):
        ax[0].plot(g.m, g.precision, label=name)
        ax[1].plot(g.m, g.recall, label=name)
    ax[0].set(xlabel="m", ylabel="precision orientation", yscale="symlog")
    ax[1].set(xlabel="m", ylabel="recall orientation", yscale="symlog")
    ax[0].legend(fontsize=7)
    save(fig, "lexirecall_fig3.png")


if __name__ == "__main__":
    main()
