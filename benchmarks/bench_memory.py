"""Benchmark: peak memory (and wall time) of ``irpref evaluate`` and ``irpref
compare``, full layout vs compact layout, as whole processes.

The compact layout (the default whenever every requested measure or
preference reads it) judges the runs ``BLOCK_RUNS`` files at a time and keeps
only the retrieved items the qrels mention, so peak memory grows with the
judged items and the largest block, not with the number of runs. The full
layout (every retrieved item of every run, the pipeline before the compact
one) is forced in the same script by a child that patches
``irpref.evaluate.layout_for``; both print the same numbers (checked here).

Each measurement is a new process (imports included); the peak RSS of the
child comes from ``wait4``. Printed per collection and command: wall time
(median of ``--repeats``), peak RSS, and peak / text size of the runs.

Usage::

    python benchmarks/generate.py                          # 100 runs: benchmarks/data/
    python benchmarks/generate.py --runs 300 --out benchmarks/data/runs300
    python benchmarks/bench_memory.py [--data DIR ...] [--repeats 1]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import median, run_process  # noqa: E402

MEASURES = ["AP", "nDCG", "RR", "P@10", "R@1000"]
PREFERENCES = ["sgnLP", "RPP"]

# the child: irpref's CLI, with the layout forced to "full" when asked
CHILD = """
import sys
layout = sys.argv.pop(1)
if layout == "full":
    import importlib
    def full(*args, **kwargs):
        return "full", False
    for name in ("irpref.evaluate", "irpref.compare"):  # the modules, not the functions
        importlib.import_module(name).layout_for = full
from irpref.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def commands(qrels: Path, runs: list[Path]) -> dict[str, list[str]]:
    files = [str(qrels), *map(str, runs)]
    return {
        "evaluate " + " ".join(MEASURES): ["evaluate", *files, "-m", *MEASURES,
                                           "--format", "tsv", "--quiet"],
        "compare -m " + " ".join(PREFERENCES): ["compare", *files, "-m", *PREFERENCES,
                                                "--format", "tsv", "--quiet"],
    }


def measure(data: Path, repeats: int) -> list[dict]:
    qrels = data / "qrels.txt"
    runs = sorted((data / "runs").glob("run-*.txt"))
    if not runs:
        raise SystemExit(f"no runs in {data / 'runs'}: run benchmarks/generate.py first")
    text = sum(p.stat().st_size for p in runs)
    rows = []
    for label, args in commands(qrels, runs).items():
        digests = {}
        for layout in ("full", "compact"):
            ms = []
            for _ in range(repeats):
                m = run_process([sys.executable, "-c", CHILD, layout, *args])
                if m.returncode != 0:
                    raise SystemExit(f"{label} ({layout}) failed:\n"
                                     + m.stderr.decode(errors="replace")[-2000:])
                ms.append(m)
            digests[layout] = hashlib.sha256(ms[0].stdout).hexdigest()
            peak = max(m.max_rss_mb for m in ms)
            rows.append({"data": data.name, "runs": len(runs), "text_mb": text / 1e6,
                         "command": label, "layout": layout,
                         "seconds": median([m.seconds for m in ms]),
                         "peak_mb": peak, "ratio": peak * 2**20 / text})
            print(f"  {data.name} {label} {layout}: {rows[-1]['seconds']:.1f} s, "
                  f"{peak:.0f} MB", file=sys.stderr, flush=True)
        if digests["full"] != digests["compact"]:
            raise SystemExit(f"{label}: full and compact layouts printed different output")
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, nargs="+", default=[HERE / "data"],
                   help="collections written by generate.py (default benchmarks/data)")
    p.add_argument("--repeats", type=int, default=1)
    args = p.parse_args(argv)
    rows = [r for d in args.data for r in measure(d, args.repeats)]
    print("| runs | run text | command | layout | wall time | peak RSS | peak / text |")
    print("|---:|---:|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['runs']} | {r['text_mb']:.0f} MB | `{r['command']}` | {r['layout']} | "
              f"{r['seconds']:.1f} s | {r['peak_mb']:.0f} MB | {r['ratio']:.2f} |")
    print("(identical output from both layouts: checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
