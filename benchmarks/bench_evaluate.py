"""Benchmark: irpref evaluate vs pytrec_eval (and ir_measures, ranx) as whole processes.

Each tool evaluates AP, nDCG, RR, P@10 and R@1000 for every run of the
synthetic collection written by ``generate.py``; each timing is a new Python
process (imports included), repeated ``--repeats`` times; the median wall time
and the peak RSS of the child are printed, with ratios to irpref, and the
largest absolute difference between irpref's and pytrec_eval's means.

Usage::

    python benchmarks/generate.py                 # once: writes benchmarks/data/
    python benchmarks/bench_evaluate.py [--repeats 3] [--skip-others] [--data DIR]
    python benchmarks/bench_evaluate.py --shapes all [--runs 30] [--repeats 3]

``--shapes`` times irpref and the pytrec_eval pipeline on one collection per
document-id shape and tie regime (``DATA/<shape>/``, generated with
``generate.py --ids``/``--ties`` when missing), repeats interleaved across
shapes and tools, and prints per shape: both medians, their ratio, irpref's
time relative to its best shape, irpref's peak RSS and peak / text size.

The competing pipelines are this same file run as ``--pipeline NAME QRELS
RUN...``: they read the files the way each tool's users do and print
``run<TAB>measure<TAB>mean`` lines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Measurement, Timing, median, run_process, time_process  # noqa: E402

MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
# irpref name -> pytrec_eval / ir_measures / ranx name
PYTREC = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "P@10": "P_10", "R@1000": "recall_1000"}
IRM = {"AP": "AP", "nDCG": "nDCG", "RR": "RR", "P@10": "P@10", "R@1000": "R@1000"}
RANX = {"AP": "map", "nDCG": "ndcg", "RR": "mrr", "P@10": "precision@10", "R@1000": "recall@1000"}


def _run_name(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".txt"):
        name = name.removesuffix(suffix)
    return name


def _open(path: str):
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rt")
    return open(path)


# ---- competing pipelines (run in a child process) --------------------------
def pipeline_pytrec_eval(qrels_path: str, run_paths: list[str]) -> None:
    """What pytrec_eval users write: nested dicts parsed in Python, one evaluator."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    with _open(qrels_path) as f:
        for line in f:
            qid, _, docid, rel = line.split()
            qrels.setdefault(qid, {})[docid] = int(rel)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()))
    out = sys.stdout
    for path in run_paths:
        run: dict[str, dict[str, float]] = {}
        with _open(path) as f:
            for line in f:
                qid, _, docid, _, score, *_ = line.split()
                run.setdefault(qid, {})[docid] = float(score)
        per_query = evaluator.evaluate(run)
        name = _run_name(path)
        for ours, theirs in PYTREC.items():
            values = [v[theirs] for v in per_query.values()]
            out.write(f"{name}\t{ours}\t{sum(values) / len(values)!r}\n")


def pipeline_ir_measures(qrels_path: str, run_paths: list[str]) -> None:
    """ir_measures: its TREC readers and calc_aggregate (pytrec_eval backend)."""
    import ir_measures

    measures = [ir_measures.parse_measure(IRM[m]) for m in MEASURES]
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    for path in run_paths:
        result = ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(path))
        name = _run_name(path)
        for ours, measure in zip(MEASURES, measures):
            sys.stdout.write(f"{name}\t{ours}\t{float(result[measure])!r}\n")


def pipeline_ranx(qrels_path: str, run_paths: list[str]) -> None:
    """ranx: Qrels/Run.from_file and evaluate (numba kernels)."""
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    for path in run_paths:
        run = Run.from_file(path, kind="trec")
        result = evaluate(qrels, run, [RANX[m] for m in MEASURES], make_comparable=True)
        name = _run_name(path)
        for ours in MEASURES:
            sys.stdout.write(f"{name}\t{ours}\t{float(result[RANX[ours]])!r}\n")


PIPELINES = {
    "pytrec_eval": pipeline_pytrec_eval,
    "ir_measures": pipeline_ir_measures,
    "ranx": pipeline_ranx,
}


# ---- harness ----------------------------------------------------------------
def irpref_command(qrels: Path, runs: list[Path]) -> list[str]:
    # the console script of this interpreter (not a pyenv/conda shim), else -m
    beside = Path(sys.executable).parent / "irpref"
    exe = str(beside) if beside.exists() else shutil.which("irpref")
    head = [exe] if exe else [sys.executable, "-m", "irpref.cli.main"]
    return [*head, "evaluate", str(qrels), *map(str, runs), "-m", *MEASURES, "--format", "tsv"]


def parse_irpref(stdout: bytes) -> dict[tuple[str, str], float]:
    """Means printed by ``irpref evaluate`` without ``--per-query`` (every row
    is a mean; with or without a ``query`` column)."""
    lines = stdout.decode().splitlines()
    header = lines[0].split("\t")
    run_i, measure_i, value_i = (header.index(c) for c in ("run", "measure", "value"))
    means = {}
    for line in lines[1:]:
        fields = line.split("\t")
        means[fields[run_i], fields[measure_i]] = float(fields[value_i])
    return means


def parse_pipeline(stdout: bytes) -> dict[tuple[str, str], float]:
    means = {}
    for line in stdout.decode().splitlines():
        run, measure, value = line.split("\t")
        means[run, measure] = float(value)
    return means


def max_diff(a: dict, b: dict) -> tuple[float, int]:
    """Largest |a - b| over shared keys, and how many keys are not shared."""
    shared = a.keys() & b.keys()
    diff = max((abs(a[k] - b[k]) for k in shared), default=float("nan"))
    return diff, len(a.keys() ^ b.keys())


def find_data(data: Path) -> tuple[Path, list[Path]]:
    qrels = next((p for p in (data / "qrels.txt", data / "qrels.txt.gz") if p.exists()), None)
    runs = sorted((data / "runs").glob("run-*.txt*"))
    if qrels is None or not runs:
        raise SystemExit(f"no collection in {data}: run `python benchmarks/generate.py` first")
    return qrels, runs


SHAPES = {  # collection name -> generate.py options
    **{ids: ["--ids", ids] for ids in ("clueweb", "msmarco1", "msmarco2", "robust", "uuid", "url")},
    "ties-heavy": ["--ties", "heavy"],
    "ties-none": ["--ties", "none"],
}


def bench_shapes(args: argparse.Namespace) -> int:
    """irpref and pytrec_eval on every id shape / tie regime, interleaved."""
    names = list(SHAPES) if args.shapes == "all" else args.shapes.split(",")
    unknown = [n for n in names if n not in SHAPES]
    if unknown:
        raise SystemExit(f"unknown shape(s) {unknown}; choose from {', '.join(SHAPES)}")
    me = [sys.executable, str(Path(__file__).resolve()), "--pipeline"]
    commands, sizes = {}, {}
    for name in names:
        out = args.data / name
        if not (out / "runs").is_dir() or len(list((out / "runs").iterdir())) != args.runs:
            gen = [sys.executable, str(HERE / "generate.py"), "--out", str(out),
                   "--runs", str(args.runs), *SHAPES[name]]
            print(f"generating {name}: {' '.join(gen[1:])}", file=sys.stderr, flush=True)
            if run_process(gen).returncode:
                raise SystemExit(f"generate.py failed for {name}")
        qrels, runs = find_data(out)
        sizes[name] = sum(f.stat().st_size for f in runs)
        commands[name, "irpref"] = irpref_command(qrels, runs)
        if not args.skip_pytrec:
            commands[name, "pytrec_eval"] = [*me, "pytrec_eval", str(qrels), *map(str, runs)]
    for name in names:
        for _ in range(args.warmup):
            run_process(commands[name, "irpref"], timeout=args.timeout)
    got: dict[tuple[str, str], list[Measurement]] = {key: [] for key in commands}
    reference_repeats = args.repeats if args.reference_repeats is None else args.reference_repeats
    load = os.getloadavg()[0]
    for i in range(args.repeats):  # interleaved: load changes hit every shape alike
        for key, cmd in commands.items():
            if key[1] != "irpref" and i >= reference_repeats:
                continue
            m = run_process(cmd, timeout=args.timeout)
            got[key].append(m)
            print(f"  {key[0]} {key[1]} [{i + 1}/{args.repeats}]: {m.seconds:.2f} s, "
                  f"{m.max_rss_mb:.0f} MB", file=sys.stderr, flush=True)
            if m.returncode:
                raise SystemExit(f"{key} failed:\n{m.stderr.decode(errors='replace')[-2000:]}")
    ours = {n: median([m.seconds for m in got[n, "irpref"]]) for n in names}
    best = min(ours.values())
    print(f"{args.runs} runs x 250 queries x 1000 documents per shape; medians of "
          f"{args.repeats} (irpref) and {reference_repeats} (pytrec_eval), interleaved; "
          f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print("| shape | run text (MB) | irpref (s) | pytrec_eval (s) | pytrec / irpref "
          "| irpref / best shape | irpref peak (MB) | peak / text | max abs diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in names:
        peak = max(m.max_rss_mb for m in got[n, "irpref"])
        row = [n, f"{sizes[n] / 1e6:.0f}", f"{ours[n]:.2f}"]
        if (n, "pytrec_eval") in got:
            theirs = median([m.seconds for m in got[n, "pytrec_eval"]])
            d, unshared = max_diff(parse_irpref(got[n, "irpref"][-1].stdout),
                                   parse_pipeline(got[n, "pytrec_eval"][-1].stdout))
            diff = f"{d:.1e}" + (f" ({unshared} unmatched)" if unshared else "")
            row += [f"{theirs:.2f}", f"{theirs / ours[n]:.1f}"]
        else:
            row += ["-", "-"]
            diff = "-"
        row += [f"{ours[n] / best:.2f}", f"{peak:.0f}", f"{peak * 2**20 / sizes[n]:.2f}", diff]
        print("| " + " | ".join(row) + " |")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=HERE / "data")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--skip-others", action="store_true", help="skip ir_measures and ranx")
    p.add_argument("--skip-pytrec", action="store_true", help="time irpref alone")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    p.add_argument("--warmup", type=int, default=1,
                   help="untimed irpref runs first (page cache, memory); default 1")
    p.add_argument("--shapes", help="comma-separated id shapes / tie regimes, or 'all' "
                   f"({', '.join(SHAPES)}): one collection each under DATA/<shape>/")
    p.add_argument("--runs", type=int, default=30, help="runs per shape collection (--shapes)")
    p.add_argument("--reference-repeats", type=int, default=None,
                   help="with --shapes: time pytrec_eval in only the first N repeats "
                        "(default: --repeats)")
    p.add_argument("--pipeline", choices=PIPELINES, help=argparse.SUPPRESS)
    p.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if args.reference_repeats is not None and not 1 <= args.reference_repeats <= args.repeats:
        p.error("--reference-repeats must be between 1 and --repeats")
    if args.pipeline:
        PIPELINES[args.pipeline](args.files[0], args.files[1:])
        return 0
    if args.shapes:
        return bench_shapes(args)

    qrels, runs = find_data(args.data)
    size = sum(f.stat().st_size for f in [qrels, *runs])
    print(f"collection: {qrels}, {len(runs)} runs, {size / 1e6:.0f} MB", file=sys.stderr)
    files = [str(qrels), *map(str, runs)]
    me = [sys.executable, str(Path(__file__).resolve()), "--pipeline"]
    commands = {"irpref": irpref_command(qrels, runs)}
    if not args.skip_pytrec:
        commands["pytrec_eval"] = [*me, "pytrec_eval", *files]
    if not args.skip_others:
        commands["ir_measures"] = [*me, "ir_measures", *files]
        commands["ranx"] = [*me, "ranx", *files]

    for _ in range(args.warmup):
        time_process("warm-up", commands["irpref"], 1, timeout=args.timeout)
    timings: dict[str, Timing] = {}
    for label, cmd in commands.items():
        timings[label] = time_process(label, cmd, args.repeats, timeout=args.timeout)

    base = timings["irpref"]
    if not base.ok:
        print("irpref failed", file=sys.stderr)
        return 1
    ours = parse_irpref(base.runs[-1].stdout)
    print("| tool | median time (s) | peak memory (MB) | time / irpref | max abs diff vs irpref |")
    print("|---|---:|---:|---:|---:|")
    for label, t in timings.items():
        if not t.ok:
            print(f"| {label} | failed | | | |")
            continue
        if label == "irpref":
            diff = "-"
        else:
            d, unshared = max_diff(ours, parse_pipeline(t.runs[-1].stdout))
            diff = f"{d:.2e}" + (f" ({unshared} unmatched)" if unshared else "")
        print(
            f"| {label} | {t.median:.2f} | {t.max_rss_mb:.0f} | "
            f"{t.median / base.median:.2f} | {diff} |"
        )
    if "pytrec_eval" in timings and timings["pytrec_eval"].ok:
        t = timings["pytrec_eval"]
        d, unshared = max_diff(ours, parse_pipeline(t.runs[-1].stdout))
        print(
            f"\nirpref vs pytrec_eval: {len(ours)} means, max abs difference {d:.3g}"
            f"{f', {unshared} unmatched' if unshared else ''}; irpref takes "
            f"1/{t.median / base.median:.1f} of pytrec_eval's time"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
