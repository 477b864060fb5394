"""RPP (Diaz & Ferraro 2022) Figure 2 (right column: ECDF of Delta mu_i for
RBP(0.5), NDCG and the sign) and Figure 4a (disaggregated Delta mu_i by
recall level i) on real runs: `irpref meta disaggregate QRELS RUNS
[--ecdf]`. The paper uses DL 2019 *documents* (not available here); we use
DL 2019 passage (grade >= 1). Paper claims checked: RBP and NDCG
differences are dominated by values close to zero, while f_i != f'_i for
"roughly 93 %" of samples; metric weights fall with i while |sgn| does not.
Command: python experiments/rpp_fig2_fig4.py -> rpp_fig2_fig4.png
"""

from __future__ import annotations

import numpy as np
from _common import compare, dl19, pyplot, save

from irpref.evaluate import judge_inputs
from irpref.meta.disaggregate import (
    disaggregated_by_level,
    disaggregated_ecdf,
    level_differences,
)
from irpref.meta.experiments import _level_comparisons

DISCOUNTS = ["RBP(p=0.5)", "nDCG", "AP", "RR", "sgn"]


def main() -> None:
    judged = judge_inputs(*dl19(), rel=1)
    e = disaggregated_ecdf(judged=judged, discounts=DISCOUNTS, points=201)
    zero = e.groupby("discount", sort=False).percent_zero.first()
    print(compare("Fig. 2: % of f_i != f'_i (sgn != 0)", 93.0, 100 - zero["sgn"], digits=0),
          "(paper: DL 2019 documents)")
    d, use = level_differences(judged, "sgn")
    pos, a, b, _, _ = _level_comparisons(judged)
    some = np.isfinite(pos[a]) | np.isfinite(pos[b])  # the i-th item retrieved by a run
    ret = use & some
    print(compare("  same, levels retrieved by either run", 93.0,
                  100 * float(np.mean(d[ret] != 0)), digits=0))
    for name in ("RBP(p=0.5)", "nDCG"):
        g = e[e.discount == name]
        inner = g[(g.fraction >= 0.1) & (g.fraction <= 0.9)].value.abs().max()
        print(f"{name}: 80 % of Delta mu_i within +-{inner:.2e}")
    t = disaggregated_by_level(judged=judged, discounts=DISCOUNTS, levels=20)
    print(t.pivot(index="level", columns="discount", values="mean_abs")[DISCOUNTS]
          .round(4).to_string())
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
    save(fig, "rpp_fig2_fig4.png")


if __name__ == "__main__":
    main()
