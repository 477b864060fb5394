"""Lexiprecision (Diaz 2023) Table 1 (suffix agreement) and Table 2 (ties),
row deep-pass (2019), on the 37 TREC DL 2019 passage runs.

Table 2 reproduces with grade >= 2 relevant (the track's binary level);
Table 1 reproduces with grade >= 1 (at grade >= 2 irpref gets 87.07 / 84.68).
Commands: irpref meta ties QRELS RUNS -m RR sgnLP rrLP --rel 2
          irpref meta suffix-agreement QRELS RUNS --rel 1
"""

from __future__ import annotations

from _common import compare, dl19

from irpref.meta import suffix_agreement, tie_rates


def main() -> None:
    qrels, runs = dl19()
    t2 = tie_rates(qrels, runs, ["RR", "sgnLP", "rrLP"], rel=2).set_index("measure")
    print("Table 2, deep-pass (2019), % tied (grade >= 2)")
    print(compare("  RR (δRR_1)", 56.89, t2.percent_tied["RR"]))
    print(compare("  sgnLP", 2.63, t2.percent_tied["sgnLP"]))
    print(compare("  rrLP", 2.63, t2.percent_tied["rrLP"]))
    for rel in (1, 2):
        t1 = suffix_agreement(qrels, runs, rel=rel).set_index("method")
        print(f"Table 1, deep-pass (2019), % agreement with masked δRR_1 (grade >= {rel})")
        print(compare("  sgnLP of p_2:m", 90.45, t1.percent_agree["sgnLP"]))
        print(compare("  δRR_2 (RR of p_2:m)", 88.87, t1.percent_agree["RR"]))


if __name__ == "__main__":
    main()
