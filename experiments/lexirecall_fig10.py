"""Lexirecall (Diaz & Mitra 2023) Figure 10: fraction of tied (run pair,
query) comparisons on TREC runs, here DL 2019 passage (grade >= 1: the
paper's Table 5 counts 95.40 relevant per request for deep-pass 2019, which is
grade >= 1; grade >= 2 also printed) and Robust 2003 (not in the paper). The paper
prints no numbers: lexirecall should tie far less than R@1000 and RP, about
as rarely as AP and nDCG.
Command: irpref meta ties QRELS RUNS -m sgnLR R@1000 Rprec AP nDCG RR --rel 1
    -> lexirecall_fig10.png
"""

from __future__ import annotations

from _common import data_dir, dl19, pyplot, save

from irpref.meta import tie_rates

MEASURES = ["sgnLR", "R@1000", "Rprec", "AP", "nDCG", "RR"]


def main() -> None:
    qrels, runs = dl19()
    dl = tie_rates(qrels, runs, MEASURES, rel=1)
    dl2 = tie_rates(qrels, runs, MEASURES, rel=2)
    print("DL 2019 passage, grade >= 2:", dict(zip(dl2.measure, dl2.percent_tied.round(2))))
    r3 = data_dir() / "robust03"
    rb = tie_rates(r3 / "qrels.txt", sorted((r3 / "runs").glob("*.gz")), MEASURES, rel=1)
    print("DL 2019 passage:", dict(zip(dl.measure, dl.percent_tied.round(2))))
    print("Robust 2003:   ", dict(zip(rb.measure, rb.percent_tied.round(2))))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    x = range(len(MEASURES))
    ax.bar([i - 0.2 for i in x], dl.percent_tied / 100, width=0.4, label="DL 2019 passage")
    ax.bar([i + 0.2 for i in x], rb.percent_tied / 100, width=0.4, label="Robust 2003")
    ax.set_xticks(list(x), MEASURES)
    ax.set_ylabel("fraction tied")
    ax.legend()
    save(fig, "lexirecall_fig10.png")


if __name__ == "__main__":
    main()
