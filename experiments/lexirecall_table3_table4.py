"""Lexirecall (Diaz & Mitra 2023) Tables 3 and 4: Pr(tie) of two random
complete rankings, m = 10 (Table 3) and n = 10^6 (Table 4).

Closed forms of Appendix D (irpref.meta.tie_probability); AP has none at these
sizes and is estimated from 20,000 random ranking pairs (Monte Carlo).
Command: python experiments/lexirecall_table3_table4.py
"""

from __future__ import annotations

from _common import compare

from irpref.meta import simulate_ties, tie_probability

COLS = ["TSE", "R@1000", "Rprec", "AP", "sgnLR"]
TABLE3 = {10**3: (0.005, 1.000, 0.825, 0.000, 0.000), 10**4: (0.001, 0.313, 0.980, 0.000, 0.000),
          10**5: (0.000, 0.826, 0.998, 0.000, 0.000), 10**6: (0.000, 0.980, 1.000, 0.000, 0.000)}
TABLE4 = {1: (0.000, 0.998, 1.000, 0.000, 0.000), 5: (0.000, 0.990, 1.000, 0.000, 0.000),
          10: (0.000, 0.981, 1.000, 0.000, 0.000), 25: (0.000, 0.952, 0.999, 0.000, 0.000),
          50: (0.000, 0.907, 0.995, 0.000, 0.000)}


def value(measure: str, n: int, m: int) -> float:
    if measure == "AP":
        p, _ = simulate_ties("AP", n, m, 20000, seed=0)
        return p
    return tie_probability(measure, n, m)


def main() -> None:
    for title, table in (("Table 3 (m = 10)", TABLE3), ("Table 4 (n = 10^6)", TABLE4)):
        print(title)
        for key, printed in table.items():
            n, m = (key, 10) if table is TABLE3 else (10**6, key)
            for measure, paper in zip(COLS, printed):
                label = f"  n={n:<8} m={m:<3} {measure}" + (" (MC)" if measure == "AP" else "")
                print(compare(label, paper, value(measure, n, m), digits=3))


if __name__ == "__main__":
    main()
