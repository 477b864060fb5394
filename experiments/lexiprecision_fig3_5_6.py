"""Lexiprecision (Diaz 2023) recall-level analyses on a collection (default
DL 2019 passage, grade >= 2, the paper's level; deep-pass 2019 is one of the
paper's datasets):

- Fig. 3: empirical Pr(tie | p_1) on real runs, beside the random-ranking
  closed form C(n - p_1, m - 1) / C(n, m) (n = 1000, m = the collection's
  mean relevant per query at grade >= 1, rounded: 95 on DL 2019 passage);
- Fig. 5: percent of δRR_i ties per recall level i = 1..20;
- Fig. 6: ECDF of i*, the recall level needed to separate two rankings.

The paper prints no numbers for these figures; its text says ties drop after
δRR_1 and that fewer than ten levels capture 90% of the differences for most
benchmarks. Command: python experiments/lexiprecision_fig3_5_6.py
-> lexiprecision_fig3_5_6.png
Usage: python lexiprecision_fig3_5_6.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from _common import dataset_facts, figure_name, parse, parser, pyplot, rel, save

from irpref.evaluate import judge_inputs
from irpref.meta import recall_level_needed, recall_level_ties, rr_tie_given_p1, tie_given_p1


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        run(coll, rel(args, "lexiprecision", coll),
            figure_name("lexiprecision_fig3_5_6.png", [coll]) if args.plot else None)


def run(coll, level: int, figure: str | None) -> None:
    judged = judge_inputs(coll.qrels, coll.runs, rel=level)
    print(f"{coll.name} (grade >= {level})")
    p1 = tie_given_p1(judged=judged)
    lv = recall_level_ties(judged=judged, levels=20)
    need = recall_level_needed(judged=judged)
    print("Fig. 3: Pr(tie | p1) for p1 = 1..5:",
          " ".join(f"{p}:{v:.3f}" for p, v in zip(p1.p1[:5], p1.probability[:5])))
    print("Fig. 5: % tied per level:", " ".join(f"{v:.1f}" for v in lv.percent_tied))
    at90 = int(need.level[need.fraction >= 0.9].iloc[0])
    print(f"Fig. 6: levels needed for 90% of the differences: {at90}")
    if figure is None:
        return
    m = round(dataset_facts(judge_inputs(coll.qrels, coll.runs, rel=1))["rel/request"])
    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(13, 4))
    ax[0].loglog(p1.p1, p1.probability, "o", markersize=3, label=f"{coll.name} runs")
    x = np.arange(1, 1001)
    ax[0].loglog(x, np.maximum(rr_tie_given_p1(x, 1000, m), 1e-12),
                 label=f"random (n=1000, m={m})")
    ax[0].set_ylim(1e-6, 1)
    ax[0].set(xlabel="p_1", ylabel="Pr(tie | p_1)", title="Fig. 3")
    ax[0].legend()
    ax[1].plot(lv.level, lv.percent_tied, "o-")
    ax[1].set(xlabel="recall level i", ylabel="% δRR_i tied", title="Fig. 5")
    ax[2].step(need.level, need.fraction, where="post")
    ax[2].set(xlabel="recall level i*", ylabel="ECDF", title="Fig. 6", xlim=(0, 40))
    save(fig, figure)


if __name__ == "__main__":
    main()
