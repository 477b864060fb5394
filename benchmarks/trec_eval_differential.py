"""Differential test of ``irpref trec_eval`` against trec_eval built from source.

Builds trec_eval with ``make`` from a source folder (copied to a scratch
directory first), runs it and ``irpref trec_eval`` on seeded random cases
(``trec_eval_cases.make_case``: every judgment format, every flag family,
measure parameters, custom gains, queries missing from either side, ties,
negative grades) and compares standard output byte for byte, the exit status
(0, an error, a crash) and whether standard error says anything. Every
difference is put in a named class (``trec_eval_classes.CLASSES``) that says
which side is right and the trec_eval source line that decides it; a
difference no class explains is printed in full with the command that
reproduces it, and the run exits 1.

Usage::

    python benchmarks/trec_eval_differential.py SRC_DIR [--cases 5000] [--seed 0]
        [--workers 2] [--subprocess] [--binary PATH] [--show N] [--keep DIR]

``SRC_DIR`` is trec_eval's source folder (``tar xzf trec_eval-10.0.tar.gz``).
irpref runs in the worker processes through ``irpref.cli.main.main`` (the same
code path as the command, without a new interpreter per case);
``--subprocess`` runs the installed ``irpref`` command instead.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from trec_eval_cases import FAMILIES, Case, make_case  # noqa: E402
from trec_eval_classes import CLASSES, Outcome, classify  # noqa: E402


def build(source: Path) -> Path:
    """trec_eval built with ``make`` in a scratch copy of ``source``; its binary."""
    scratch = Path(tempfile.mkdtemp(prefix="trec-eval-build-")) / "src"
    shutil.copytree(source, scratch, ignore=shutil.ignore_patterns("*.o", "trec_eval"))
    proc = subprocess.run(["make", "-C", str(scratch)], capture_output=True, text=True)
    binary = scratch / "trec_eval"
    if proc.returncode != 0 or not binary.exists():
        raise SystemExit(f"make failed in {scratch}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return binary


def run_trec_eval(binary: str, argv: list[str], cwd: Path) -> Outcome:
    try:
        proc = subprocess.run([binary, *argv], cwd=cwd, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return Outcome(-999, b"", b"timeout")
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def run_irpref(argv: list[str], cwd: Path, in_process: bool) -> Outcome:
    if not in_process:
        proc = subprocess.run(["irpref", "trec_eval", *argv], cwd=cwd, capture_output=True,
                              timeout=120)
        return Outcome(proc.returncode, proc.stdout, proc.stderr)
    from irpref.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["trec_eval", *argv])
    finally:
        os.chdir(here)
    return Outcome(code, out.getvalue().encode("utf-8", "surrogateescape"),
                   err.getvalue().encode("utf-8", "surrogateescape"))


@dataclass
class Result:
    """One case's outcome: its families and the class of its difference (None: same)."""

    seed: int
    families: list[str]
    klass: str | None
    command: str = ""
    detail: str = ""


_STATE: dict = {}


def _init(binary: str, in_process: bool, keep: str | None, root: str) -> None:
    tmp = Path(root) / str(os.getpid())
    tmp.mkdir()
    _STATE.update(binary=binary, in_process=in_process, keep=keep, tmp=tmp)


def check(seed: int) -> Result:
    """Run case ``seed`` on both sides and classify the difference, if any."""
    case = make_case(seed)
    where = _STATE["tmp"] / str(seed)
    where.mkdir()
    for name, data in case.files.items():
        (where / name).write_bytes(data)
    te = run_trec_eval(_STATE["binary"], case.argv, where)
    ir = run_irpref(case.argv, where, _STATE["in_process"])
    klass = None
    if not te.same_as(ir):
        klass = classify(case, te, ir,
                         lambda argv, files, irpref=False: _rerun(argv, files, where, irpref))
    detail = "" if klass not in (None, "unexplained") else _detail(case, te, ir)
    if _STATE["keep"] and klass is not None:
        shutil.copytree(where, Path(_STATE["keep"]) / f"{klass}-{seed}", dirs_exist_ok=True)
    shutil.rmtree(where)
    return Result(seed, sorted(case.families), klass, case.command(), detail)


def _rerun(argv: list[str], files: dict[str, bytes], where: Path, irpref: bool) -> Outcome:
    """trec_eval (or irpref) on a changed case (``files`` written to a sibling directory)."""
    other = where.with_name(where.name + ".repaired")
    other.mkdir(exist_ok=True)
    for name, data in files.items():
        (other / name).write_bytes(data)
    try:
        if irpref:
            return run_irpref(argv, other, _STATE["in_process"])
        return run_trec_eval(_STATE["binary"], argv, other)
    finally:
        shutil.rmtree(other)


def _detail(case: Case, te: Outcome, ir: Outcome) -> str:
    import difflib

    diff = difflib.unified_diff(te.stdout.decode(errors="replace").splitlines(),
                                ir.stdout.decode(errors="replace").splitlines(),
                                "trec_eval", "irpref", lineterm="", n=0)
    files = "".join(f"--- {n}\n{d.decode(errors='replace')}" for n, d in case.files.items())
    return (f"seed {case.seed}: {case.command()}\n  trec_eval exit {te.code}: "
            f"{te.stderr.decode(errors='replace').strip()[:300]}\n  irpref exit {ir.code}: "
            f"{ir.stderr.decode(errors='replace').strip()[:300]}\n"
            + "\n".join(list(diff)[:30]) + "\n" + files[:3000])


def table(results: list[Result], show: int) -> str:
    """The report: cases per family, differences per class with their verdicts."""
    lines = ["| flag family | cases | differing |", "|---|---:|---:|"]
    for fam in FAMILIES:
        rows = [r for r in results if fam in r.families]
        lines.append(f"| {fam} | {len(rows)} | {sum(r.klass is not None for r in rows)} |")
    counts = Counter(r.klass for r in results)
    lines += ["", f"{len(results)} cases, {counts[None]} identical (stdout bytes, exit "
              f"status, stderr empty or not), {len(results) - counts[None]} differing", "",
              "| class | cases | right | why (trec_eval 10.0 source) |", "|---|---:|---|---|"]
    for k in CLASSES:
        if counts[k.name]:
            lines.append(f"| {k.name} | {counts[k.name]} | {k.right} | {k.why} |")
    if counts["unexplained"]:
        lines.append(f"| unexplained | {counts['unexplained']} | ? | see below |")
        lines += ["", *[r.detail for r in results if r.klass == "unexplained"][:show]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="trec_eval's source folder")
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0, help="first case seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--subprocess", action="store_true",
                        help="run the installed irpref command per case")
    parser.add_argument("--binary", type=Path, help="an already built trec_eval (skip make)")
    parser.add_argument("--show", type=int, default=10, help="unexplained cases to print")
    parser.add_argument("--keep", type=Path, help="copy every differing case here")
    parser.add_argument("--json", type=Path, help="write every result here")
    opts = parser.parse_args(argv)
    binary = str(opts.binary or build(opts.source))
    try:
        results = _run_all(opts, binary)
    finally:
        if not opts.binary:
            shutil.rmtree(Path(binary).parent.parent, ignore_errors=True)
    print(table(results, opts.show))
    if opts.json:
        opts.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 1 if any(r.klass == "unexplained" for r in results) else 0


def _run_all(opts, binary: str) -> list[Result]:
    start = time.perf_counter()
    seeds = range(opts.seed, opts.seed + opts.cases)
    root = tempfile.mkdtemp(prefix="te-diff-")
    init = (binary, not opts.subprocess, str(opts.keep) if opts.keep else None, root)
    try:
        if opts.workers > 1:
            with multiprocessing.get_context("fork").Pool(opts.workers, _init, init) as pool:
                results = list(pool.imap(check, seeds, chunksize=20))
        else:
            _init(*init)
            results = [check(s) for s in seeds]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{len(results)} cases in {time.perf_counter() - start:.0f} s ({opts.workers} "
          f"workers, irpref {'subprocess' if opts.subprocess else 'in process'})",
          file=sys.stderr)
    return results


if __name__ == "__main__":
    sys.exit(main())
