"""Atomized search length (Alex, Hall & Metzler) Table 2 and Appendix A.1 on
the collections available here (the paper: 76 TREC tracks, reported as mean
± sd ranges; none of its tracks' runs are here except possibly Robust 2003):
`irpref meta asl-reorder QRELS RUNS` and `... --share`.

Table 2's columns are printed in the text as "Kendall, ΔValue, ΔSort" but the
values read as ΔSort (%), Kendall, ΔValue (x); we use that reading.
Command: python experiments/asl_table2.py
"""

from __future__ import annotations

from _common import data_dir, dl19

from irpref.asl import search_lengths
from irpref.evaluate import judge_inputs
from irpref.meta.asl_reorder import asl_effective_share, asl_reordering

PAPER = {  # step: (ΔSort %, Kendall, ΔValue x), mean - sd .. mean + sd over 76 tracks
    "atomize P": ((26, 60), (0.7, 0.9), (0.3, 0.6)),
    "harmonic within queries": ((37, 77), (0.4, 0.8), (0.03, 0.4)),
    "harmonic across queries": ((29, 78), (0.4, 0.9), (0.1, 0.9)),
    "cumulative": ((26, 60), (0.6, 0.9), (0.004, 0.06)),
}


def _in(x, rng):
    return "in" if rng[0] <= x <= rng[1] else "out"


def main() -> None:
    r3 = data_dir() / "robust03"
    sets = {"Robust 2003 (grade >= 1)": (r3 / "qrels.txt", sorted((r3 / "runs").glob("*.gz")), 1),
            "DL 2019 passage (grade >= 2)": (*dl19(), 2)}
    for label, (qrels, runs, rel) in sets.items():
        t = search_lengths(judged=judge_inputs(qrels, runs, rel=rel))
        r = asl_reordering(table=t)
        print(label)
        for row in r.itertuples():
            ds, kt, dv = PAPER[row.step]
            print(f"  {row.step:<26} ΔSort(max) {row.delta_sort_max:6.1f}% paper {ds} "
                  f"{_in(row.delta_sort_max, ds)} | tau {row.kendall_tau:.2f} paper {kt} "
                  f"{_in(row.kendall_tau, kt)} | ΔValue {row.delta_value:.3f}x paper {dv} "
                  f"{_in(row.delta_value, dv)}")
        s = asl_effective_share(table=t)
        print(f"  MAP effective share: {100 * s.effective_share.mean():.0f} % ± "
              f"{100 * s.effective_share.std():.0f} over runs (paper: 57 % ± 16 over tracks)")


if __name__ == "__main__":
    main()
