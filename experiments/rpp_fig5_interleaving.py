"""RPP (Diaz & Ferraro 2022) section 6.1, Figure 5 bottom row: offline
interleaving (team-draft, simulated uniform and DCG browsing users, top 100,
4 interleavings per comparison, seed 0) against RPP per (run pair, query):
`irpref meta interleaving QRELS RUNS -m RPP AP nDCG RR --depth 100 --samples 4`.
The paper uses Robust 2004 (`--collection robust04`) and reports r = 0.98
(uniform) and 0.94 (DCG) between OI and RPP, with sign agreement above that
of RPP with the baseline metrics (~0.90; RR 0.50). By default we run Robust
2003 and DL 2019 passage (grade >= 1), which the paper does not report.
Command: python experiments/rpp_fig5_interleaving.py -> rpp_fig5_interleaving.png
Usage: python rpp_fig5_interleaving.py [--collection NAME ...] [--rel GRADE] [--no-plot]
"""

from __future__ import annotations

from collections.abc import Sequence

from _common import figure_name, parse, parser, pyplot, rel, report, save

from irpref.evaluate import judge_inputs
from irpref.meta import agreement
from irpref.meta.interleaving import interleaving_agreement, offline_interleaving

MEASURES = ["RPP", "AP", "nDCG", "RR"]
DEFAULT = ("robust03", "dl19-passage")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(parser(__file__, __doc__, default=DEFAULT), argv)
    sets = {c.name: judge_inputs(c.qrels, c.runs, rel=rel(args, "rpp", c))
            for c in args.collections}
    if args.plot:
        plt = pyplot()
        fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 4), squeeze=False)
    for k, (label, judged) in enumerate(sets.items()):
        t = interleaving_agreement(judged=judged, measures=MEASURES, depth=100, samples=4,
                                   seed=0)
        print(f"{label} (grade >= {judged.rel})")
        print(t.round(3).to_string(index=False))
        base = agreement(judged=judged, measures=MEASURES)
        sa = {(r.measure_a, r.measure_b): r.sign_agreement for r in base.itertuples()}
        values = {f"r(OI {model}, RPP)":
                  t[(t.model == model) & (t.measure == "RPP")].pearson.iloc[0]
                  for model in ("uniform", "dcg")}
        values.update({"sa(RPP, RR)": sa["RPP", "RR"], "sa(RR, AP)": sa["AP", "RR"],
                       "sa(RR, nDCG)": sa["nDCG", "RR"]})
        report("rpp", "Fig. 5", label, values, note=f" (grade >= {judged.rel})")
        base = base[base.measure_a == "RPP"][["measure_b", "sign_agreement", "pearson"]]
        print("  RPP vs baseline metrics:", base.round(3).to_string(index=False), sep="\n")
        if not args.plot:
            continue
        ax = axes[0, k]
        oi = offline_interleaving(judged=judged, model="uniform", depth=100, samples=4, seed=0)
        ax.scatter(oi.value, _rpp(judged, oi), s=2, alpha=0.3)
        ax.set_xlabel("offline interleaving (uniform user)")
        ax.set_ylabel("RPP")
        ax.set_title(label)
    if args.plot:
        save(fig, figure_name("rpp_fig5_interleaving.png", args.collections, DEFAULT))


def _rpp(judged, oi):
    from irpref.meta.pairwise import pairwise

    pw = pairwise(judged, ["RPP"])
    names = list(pw.runs)
    qpos = {q: i for i, q in enumerate(pw.queries)}
    n = len(names)
    pair = {}
    for p, (x, y) in enumerate(zip(pw.a, pw.b)):
        pair[x * n + y] = p
    ia = [names.index(r) for r in oi.run_a]
    ib = [names.index(r) for r in oi.run_b]
    rows = [pair[x * n + y] for x, y in zip(ia, ib)]
    cols = [qpos[q] for q in oi["query"]]
    return pw.values["RPP"][rows, cols]


if __name__ == "__main__":
    main()
