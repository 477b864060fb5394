"""Benchmark the recommendation shape: many users, shallow rankings, large qrels.

500,000 users (queries) x 2 runs x top 10 and 5 M qrels rows (ratings 0-5),
generated seeded by ``recommendation_data.py`` in several id styles (numeric,
UUID, prefixed strings). Per style, as whole processes, interleaved:

- **irpref**: ``irpref evaluate QRELS RUN RUN -m AP nDCG@10 RR P@10 --format tsv``;
- **pytrec_eval**: the files parsed into nested dicts line by line and one
  ``RelevanceEvaluator`` (what pytrec_eval users write), means printed;
- **ranx** (``--ranx``): ``Qrels.from_file``, ``Run.from_file``, ``evaluate``,
  under ``--ranx-timeout`` seconds (it may take far longer at this shape; a
  timeout is reported as such).

Printed per style: the input bytes, each tool's median wall time and peak
memory (the child's maximum RSS), irpref's time over pytrec_eval's, peak
memory over the input bytes, and the largest difference between irpref's
and pytrec_eval's means (they must agree exactly up to float summation).

Usage::

    python benchmarks/bench_recommendation.py [--data DIR] [--styles numeric,uuid,string]
        [--repeats 3] [--users 500000] [--ranx] [--ranx-timeout 600]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Measurement, median, run_apart, run_process  # noqa: E402
from recommendation_data import ID_STYLES, generate, paths  # noqa: E402

MEASURES = ["AP", "nDCG@10", "RR", "P@10"]
PYTREC = {"AP": "map", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "P@10": "P_10"}
RANX = {"AP": "map", "nDCG@10": "ndcg@10", "RR": "mrr", "P@10": "precision@10"}


def pipeline_pytrec_eval(qrels_path: str, run_paths: list[str]) -> None:
    """What pytrec_eval users write: nested dicts parsed in Python, one evaluator."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as f:
        for line in f:
            qid, _, docid, rel = line.split()
            qrels.setdefault(qid, {})[docid] = int(rel)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()))
    for path in run_paths:
        run: dict[str, dict[str, float]] = {}
        with open(path) as f:
            for line in f:
                qid, _, docid, _, score, *_ = line.split()
                run.setdefault(qid, {})[docid] = float(score)
        per_query = evaluator.evaluate(run)
        for ours, theirs in PYTREC.items():
            values = [v[theirs] for v in per_query.values()]
            sys.stdout.write(f"{Path(path).stem}\t{ours}\t{sum(values) / len(values)!r}\n")


def pipeline_ranx(qrels_path: str, run_paths: list[str]) -> None:
    """ranx: Qrels/Run.from_file and evaluate (numba kernels)."""
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    for path in run_paths:
        result = evaluate(qrels, Run.from_file(path, kind="trec"), list(RANX.values()),
                          make_comparable=True)
        for ours, theirs in RANX.items():
            sys.stdout.write(f"{Path(path).stem}\t{ours}\t{float(result[theirs])!r}\n")


def parse_means(stdout: bytes) -> dict[tuple[str, str], float]:
    out = {}
    for line in stdout.decode().splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0] != "run":
            out[parts[0], parts[1]] = float(parts[2])
    return out


def commands(data: Path, style: str, ranx: bool) -> dict[str, list[str]]:
    qrels, runs = paths(data / style, 2, "trec")
    files = [str(qrels), *map(str, runs)]
    beside = Path(sys.executable).parent / "irpref"
    exe = str(beside) if beside.exists() else shutil.which("irpref")
    me = [sys.executable, str(Path(__file__).resolve())]
    out = {"irpref": [exe, "evaluate", *files, "-m", *MEASURES, "--format", "tsv"],
           "pytrec_eval": [*me, "--pipeline", "pytrec_eval", *files]}
    if ranx:
        out["ranx"] = [*me, "--pipeline", "ranx", *files]
    return out


def input_bytes(data: Path, style: str) -> int:
    qrels, runs = paths(data / style, 2, "trec")
    return sum(p.stat().st_size for p in [qrels, *runs])


def run_style(data: Path, style: str, args) -> dict[str, list[Measurement]]:
    got: dict[str, list[Measurement]] = {}
    cmds = commands(data, style, args.ranx)
    for i in range(args.repeats):  # interleaved: irpref, pytrec_eval, irpref, ...
        for tool, cmd in cmds.items():
            if tool == "ranx" and i > 0:
                continue  # once: it takes minutes at this shape
            timeout = args.ranx_timeout if tool == "ranx" else None
            m = run_process(cmd, timeout=timeout)
            got.setdefault(tool, []).append(m)
            status = "" if m.returncode == 0 else f", exit {m.returncode}"
            print(f"  {style} {tool} [{i + 1}]: {m.seconds:.2f} s, {m.max_rss_mb:.0f} MB{status}",
                  file=sys.stderr, flush=True)
    return got


def report(style: str, size: int, got: dict[str, list[Measurement]], args) -> None:
    ours = got["irpref"]
    t_ours = median([m.seconds for m in ours])
    rss = max(m.max_rss_mb for m in ours)
    theirs = got["pytrec_eval"]
    t_theirs = median([m.seconds for m in theirs])
    mine, ref = parse_means(ours[-1].stdout), parse_means(theirs[-1].stdout)
    diff = max((abs(mine[k] - ref[k]) for k in ref if k in mine), default=float("nan"))
    ranx = got.get("ranx")
    ranx_text = "-"
    if ranx:
        m = ranx[0]
        ranx_text = (f"{m.seconds:.1f} s, {m.max_rss_mb:.0f} MB" if m.returncode == 0
                     else f"stopped after {args.ranx_timeout:.0f} s (exit {m.returncode})")
    print(f"| {style} | {size / 1e6:.0f} | {t_ours:.2f} | {rss:.0f} ({rss * 2**20 / size:.2f}x) "
          f"| {t_theirs:.2f} | {max(m.max_rss_mb for m in theirs):.0f} "
          f"| {t_ours / t_theirs:.3f} | {ranx_text} | {diff:.2g} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pipeline", choices=["pytrec_eval", "ranx"], help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--data", type=Path, default=HERE / "data" / "recommendation")
    ap.add_argument("--styles", default=",".join(ID_STYLES))
    ap.add_argument("--users", type=int, default=500_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ranx", action="store_true", help="time ranx once per style too")
    ap.add_argument("--ranx-timeout", type=float, default=600.0)
    args = ap.parse_args()
    if args.pipeline:
        {"pytrec_eval": pipeline_pytrec_eval, "ranx": pipeline_ranx}[args.pipeline](
            args.files[0], args.files[1:])
        return
    styles = args.styles.split(",")
    for style in styles:
        if not paths(args.data / style, 2, "trec")[0].exists():
            print(f"generating {style} ...", file=sys.stderr, flush=True)
            run_apart(generate, args.data / style, seed=args.seed, users=args.users,
                      style=style)  # in its own process: see common.run_apart
    results = {s: run_style(args.data, s, args) for s in styles}
    print(f"\n{args.users} users x 2 runs x top 10, {10 * args.users} qrels rows; "
          f"medians of {args.repeats} interleaved whole processes")
    print("| ids | input (MB) | irpref (s) | irpref peak MB (x input) | pytrec_eval (s) "
          "| pytrec_eval peak MB | irpref / pytrec_eval | ranx | max abs diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for style in styles:
        report(style, input_bytes(args.data, style), results[style], args)


if __name__ == "__main__":
    main()
