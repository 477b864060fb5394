"""RPP (Diaz & Ferraro 2022) Figure 2 (right column: ECDF of Delta mu_i for
RBP(0.5), NDCG and the sign) and Figure 4a (disaggregated Delta mu_i by
recall level i) on real runs: `irpref meta disaggregate QRELS RUNS
[--ecdf]`. The paper uses DL 2019 *documents* (`--collection dl19-docs`);
the default is DL 2019 passage (grade >= 1, the paper's level). Paper claims checked: RBP and NDCG
differences are dominated by values close to zero, while f_i != f'_i for
"roughly 93 %" of samples; metric weights fall with i while |sgn| does not.
Command: python experiments/rpp_fig2_fig4.py -> rpp_fig2_fig4.png
Usage: python rpp_fig2_fig4.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from _common import figure_name, parse, parser, pyplot, rel, report, save

from irpref.evaluate import judge_inputs
from irpref.meta.disaggregate import (
    disaggregated_by_level,
    disaggregated_ecdf,
    level_differences,
)
from irpref.meta.recall_levels import level_comparisons

DISCOUNTS = ["RBP(p=0.5)", "nDCG", "AP", "RR", "sgn"]


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__), argv)
    for coll in args.collections:
        run(coll, rel(args, "rpp", coll),
            figure_name("rpp_fig2_fig4.png", [coll]) if args.plot else None)


def run(coll, level: int, figure: str | None) -> None:
    judged = judge_inputs(coll.qrels, coll.runs, rel=level)
    e = disaggregated_ecdf(judged=judged, discounts=DISCOUNTS, points=201)
    zero = e.groupby("discount", sort=False).percent_zero.first()
    d, use = level_differences(judged, "sgn")
    pos, a, b, _, _ = level_comparisons(judged)
    some = np.isfinite(pos[a]) | np.isfinite(pos[b])  # the i-th item retrieved by a run
    ret = use & some
    report("rpp", "Fig. 2", coll.name,
           {"% f_i != f'_i": 100 - zero["sgn"],
            "same, levels retrieved by either run": 100 * float(np.mean(d[ret] != 0))},
           note=f" (grade >= {level})", digits=0)
    for name in ("RBP(p=0.5)", "nDCG"):
        g = e[e.discount == name]
        inner = g[(g.fraction >= 0.1) & (g.fraction <= 0.9)].value.abs().max()
        print(f"{name}: 80 % of Delta mu_i within +-{inner:.2e}")
    t = disaggregated_by_level(judged=judged, discounts=DISCOUNTS, levels=20)
    print(t.pivot(index="level", columns="discount", values="mean_abs")[DISCOUNTS]
          .round(4).to_string())
    if figure is None:
        return
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name in ("RBP(p=0.5)", "nDCG", "sgn"):
        g = e[e.discount == name]
        axes[0].step(g.value, g.fraction, where="post", label=name)
    axes[0].set_xlabel("Delta mu_i")
    axes[0].set_ylabel("ECDF")
    axes[0].set_xscale("symlog", linthresh=1e-4)
    axes[0].legend()
    for name, g in t.groupby("discount", sort=False):
        axes[1].plot(g.level, g.mean_abs, label=name)
    axes[1].set_yscale("log")
    axes[1].set_xlabel("recall level i")
    axes[1].set_ylabel("mean |Delta mu_i|")
    axes[1].legend()
    save(fig, figure)


if __name__ == "__main__":
    main()
