"""Rebuild the example collection shipped in src/irpref/examples/dl19 (run from the project root).

A small real slice of the TREC 2019 Deep Learning passage task
(../shared/data/dl19-passage): the full qrels of its 43 judged topics and six
submitted runs, each cut to the top 100 documents per topic (ranked by score,
ties broken by docid descending as trec_eval does).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import irpref

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "dl19-passage"
TARGET = ROOT / "src" / "irpref" / "examples" / "dl19"
RUNS = ["bm25base_p", "bm25tuned_rm3_p", "UNH_bm25", "idst_bert_p1", "p_bert", "TUA1-1"]
DEPTH = 100


def main() -> None:
    TARGET.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE / "qrels.txt", TARGET / "qrels.txt")
    judged = irpref.judge_inputs(
        SOURCE / "qrels.txt", [SOURCE / "runs" / f"{r}.gz" for r in RUNS], depth=DEPTH
    )
    for r, name in enumerate(judged.run_names):
        lines = []
        for q, qid in enumerate(judged.queries):
            s = r * judged.n_queries + q
            lo, hi = judged.offsets[s], judged.offsets[s + 1]
            for rank, i in enumerate(range(lo, hi), start=1):
                doc = judged.docs[int(judged.doc[i])].as_py()
                lines.append(f"{qid} Q0 {doc} {rank} {float(judged.score[i])!r} {name}\n")
        with gzip.open(TARGET / f"{name}.gz", "wt", compresslevel=9) as out:
            out.writelines(lines)


if __name__ == "__main__":
    main()
