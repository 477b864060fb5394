"""RPP (Diaz & Ferraro 2022) section 6.1, Figure 5 bottom row: offline
interleaving (team-draft, simulated uniform and DCG browsing users, top 100,
4 interleavings per comparison, seed 0) against RPP per (run pair, query):
`irpref meta interleaving QRELS RUNS -m RPP AP nDCG RR --depth 100 --samples 4`.
The paper uses Robust 2004 (not available here) and reports r = 0.98
(uniform) and 0.94 (DCG) between OI and RPP, with sign agreement above that
of RPP with the baseline metrics (~0.90). We run Robust 2003 and DL 2019
passage (grade >= 1).
Command: python experiments/rpp_fig5_interleaving.py -> rpp_fig5_interleaving.png
"""

from __future__ import annotations

from _common import compare, data_dir, dl19, pyplot, save

from irpref.evaluate import judge_inputs
from irpref.meta import agreement
from irpref.meta.interleaving import interleaving_agreement, offline_interleaving

MEASURES = ["RPP", "AP", "nDCG", "RR"]
PAPER_R = {"uniform": 0.98, "dcg": 0.94}


def main() -> None:
    r3 = data_dir() / "robust03"
    sets = {"Robust 2003": judge_inputs(r3 / "qrels.txt", sorted((r3 / "runs").glob("*.gz"))),
            "DL 2019 passage": judge_inputs(*dl19(), rel=1)}
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (label, judged) in zip(axes, sets.items()):
        t = interleaving_agreement(judged=judged, measures=MEASURES, depth=100, samples=4,
                                   seed=0)
        print(label)
        print(t.round(3).to_string(index=False))
        for model, r in PAPER_R.items():
            row = t[(t.model == model) & (t.measure == "RPP")].iloc[0]
            print(compare(f"  Pearson r(OI {model}, RPP) [Robust 2004]", r, row.pearson))
        base = agreement(judged=judged, measures=MEASURES)
        base = base[base.measure_a == "RPP"][["measure_b", "sign_agreement", "pearson"]]
        print("  RPP vs baseline metrics:", base.round(3).to_string(index=False), sep="\n")
        oi = offline_interleaving(judged=judged, model="uniform", depth=100, samples=4, seed=0)
        ax.scatter(oi.value, _rpp(judged, oi), s=2, alpha=0.3)
        ax.set_xlabel("offline interleaving (uniform user)")
        ax.set_ylabel("RPP")
        ax.set_title(label)
    save(fig, "rpp_fig5_interleaving.png")


def _rpp(judged, oi):
    from irpref.meta.experiments import pairwise

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
