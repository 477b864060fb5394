"""Lexiprecision (Diaz 2023) Figure 2: Pr(p'_1 = p_1 | p_1) = C(n - p_1, m - 1)
/ C(n, m), the chance that a uniformly random second ranking ties RR with a
ranking whose first relevant item is at p_1, n = 50,000. Checked by Monte
Carlo at a few p_1 (the paper prints no numbers: compare the shape).
Command: python experiments/lexiprecision_fig2.py  -> lexiprecision_fig2.png
Simulated rankings, no collection: the script takes only --no-plot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from _common import parse, parser, pyplot, save

from irpref.meta import random_rankings, rr_tie_given_p1

N = 50_000
MS = [1, 2, 4, 8, 16, 32, 64]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=None), argv)
    for m in MS:
        # Monte Carlo: fraction of random rankings whose p_1 equals 1
        r = random_rankings(N, m, 100_000, seed=m)
        est = float(np.mean(r.b[:, 0] == 1))
        print(f"m={m:<3} Pr(tie | p1=1): closed form {rr_tie_given_p1(1, N, m):.5f}  "
              f"simulated {est:.5f}")
    if not args.plot:
        return
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    p1 = np.unique(np.logspace(0, np.log10(N), 400).astype(int))
    for m in MS:
        ax.plot(p1, rr_tie_given_p1(p1, N, m), label=f"m={m}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("p_1")
    ax.set_ylabel("Pr(tie with a random ranking)")
    ax.set_title("RR ties given p_1, n = 50,000")
    ax.legend()
    save(fig, "lexiprecision_fig2.png")


if __name__ == "__main__":
    main()
