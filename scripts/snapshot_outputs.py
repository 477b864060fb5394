"""Run a fixed list of irpref commands on the shipped example data and the
trec_eval test files, and save each command's stdout, stderr and exit code.

    python scripts/snapshot_outputs.py OUT_DIR          # one snapshot
    diff -r BEFORE_DIR AFTER_DIR                        # byte-for-byte comparison

Used to prove that a restructuring changed no printed number: snapshot before,
snapshot after, compare. Commands that are expected to change on purpose (a
fixed defect) are listed in the closing note of the change, never silently.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "src" / "irpref" / "examples" / "dl19"
TE = ROOT / "tests" / "data" / "trec_eval"


def commands() -> list[tuple[str, list[str]]]:
    q = str(EX / "qrels.txt")
    runs = [str(p) for p in sorted(EX.glob("*.gz"))]
    two = runs[:2]
    tq, tr = str(TE / "qrels.test"), str(TE / "results.test")
    ms = ["AP", "nDCG@10", "RR", "P@10", "R@100", "ASL", "SL1(impute=optimistic)",
          "RE(impute=optimistic)", "Judged@10"]
    out: list[tuple[str, list[str]]] = [
        ("evaluate", ["evaluate", q, *runs, "-m", *ms, "--rel", "2"]),
        ("evaluate_tsv_pq", ["evaluate", q, *runs, "-m", *ms, "--per-query", "--format", "tsv"]),
        ("evaluate_json", ["evaluate", q, *runs, "-m", "AP", "nDCG", "--format", "json"]),
        ("evaluate_expected", ["evaluate", q, *runs, "-m", "AP", "nDCG@10", "RR",
                               "--ties", "expected", "--format", "tsv"]),
        ("evaluate_baseline", ["evaluate", q, *runs, "-m", "AP", "nDCG@10", "--baseline",
                               "TUA1-1"]),
        ("evaluate_baseline_asl", ["evaluate", q, *runs, "-m", "AP", "ASL", "--rel", "2",
                                   "--baseline", "bm25base_p", "--format", "tsv", "--seed", "7"]),
        ("significance_baseline", ["significance", q, *runs, "-m", "AP", "ASL",
                                   "--baseline", "bm25base_p", "--format", "tsv", "--seed", "7"]),
        ("evaluate_md", ["evaluate", q, *runs, "-m", "AP", "nDCG@10", "--format", "markdown"]),
        ("compare", ["compare", q, *runs, "-m", "sgnLP", "rrLP", "sgnLR", "RPP"]),
        ("compare_tsv", ["compare", q, *runs, "-m", "sgnLP", "RPP", "--format", "tsv"]),
        ("significance", ["significance", q, *runs, "-m", "AP", "nDCG@10", "--seed", "7"]),
        ("significance_tsv", ["significance", q, *runs, "-m", "AP", "--format", "tsv",
                              "--seed", "7"]),
        ("significance_hsd", ["significance", q, *runs, "-m", "AP", "--test", "hsd", "--seed",
                              "1", "--permutations", "2000", "--format", "tsv"]),
        ("measures", ["measures"]),
        ("measures_ap", ["measures", "AP"]),
        ("ties", ["ties", q, *runs, "-m", "AP", "RR"]),
        ("meta_ties", ["meta", "ties", q, *runs, "-m", "AP", "RR", "sgnLP", "--format", "tsv"]),
        ("meta_agreement", ["meta", "agreement", q, *runs, "-m", "AP", "RR", "sgnLP",
                            "--format", "tsv"]),
        ("meta_subsample", ["meta", "subsample", q, *runs, "-m", "AP", "--seed", "3",
                            "--format", "tsv"]),
        ("meta_degrade", ["meta", "degrade", q, *two, "-m", "AP", "sgnLP", "--seed", "3",
                          "--format", "tsv"]),
        ("meta_asl_reorder", ["meta", "asl-reorder", q, *runs, "--format", "tsv"]),
        ("trec_eval_ex", ["trec_eval", q, runs[0]]),
        ("trec_eval_ex_q", ["trec_eval", "-q", "-m", "all_trec", q, runs[1]]),
        ("trec_eval_suite", ["trec_eval", tq, tr]),
        ("trec_eval_suite_a", ["trec_eval", "-m", "all_trec", tq, tr]),
        ("trec_eval_suite_aqc", ["trec_eval", "-q", "-c", "-m", "all_trec", tq, tr]),
    ]
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    dest = Path(argv[0])
    dest.mkdir(parents=True, exist_ok=True)
    for name, args in commands():
        # the src/ of this checkout first, whichever irpref is installed
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        proc = subprocess.run(["irpref", *args], capture_output=True, cwd=ROOT, env=env)
        (dest / f"{name}.out").write_bytes(proc.stdout)
        (dest / f"{name}.err").write_bytes(proc.stderr.replace(str(ROOT).encode(), b"ROOT"))
        (dest / f"{name}.rc").write_text(f"{proc.returncode}\n")
        print(f"{name}: rc {proc.returncode}, {len(proc.stdout)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
