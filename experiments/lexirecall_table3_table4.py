"""Lexirecall (Diaz & Mitra 2023) Tables 3 and 4: Pr(tie) of two random
complete rankings, m = 10 (Table 3) and n = 10^6 (Table 4).

Closed forms of Appendix D (irpref.meta.tie_probability); AP has none at these
sizes and is estimated from 20,000 random ranking pairs (Monte Carlo).
Command: python experiments/lexirecall_table3_table4.py
Simulated rankings, no collection: the script takes no option (--no-plot is accepted).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import paper_rows
from _common import compare, parse, parser

from irpref.meta import simulate_ties, tie_probability

COLS = ["TSE", "R@1000", "Rprec", "AP", "sgnLR"]
MC_PAIRS = 20_000


def value(measure: str, n: int, m: int) -> tuple[float, float | None]:
    """Pr(tie) and, for AP (Monte Carlo), the standard error of the difference
    with the paper's number (taken as Monte Carlo of the same size)."""
    if measure == "AP":
        p, _ = simulate_ties("AP", n, m, MC_PAIRS, seed=0)
        return p, math.sqrt(2 * p * (1 - p) / MC_PAIRS)
    return tie_probability(measure, n, m), None


def main(argv: Sequence[str] | None = None) -> None:
    parse(parser(__file__, __doc__, default=None, plot=False), argv)
    for table, title in (("Table 3", "m = 10"), ("Table 4", "n = 10^6")):
        print(f"{paper_rows.source('lexirecall', table)} ({title})")
        for key, row in paper_rows.PAPERS["lexirecall"][table].items():
            n, m = (int(key[2:]), 10) if table == "Table 3" else (10**6, int(key[2:]))
            for measure in COLS:
                paper, digits = paper_rows.printed(row[measure])
                got, se = value(measure, n, m)
                label = f"  n={n:<8} m={m:<3} {measure}" + (" (MC)" if measure == "AP" else "")
                print(compare(label, paper, got, digits, se=se,
                              reason=paper_rows.reason("lexirecall", table, key, measure)))


if __name__ == "__main__":
    main()
