"""Smoke test of an installed irpref: the shipped example collection evaluated
by the installed ``irpref`` command, with the numbers checked.

Run by scripts/release-check.sh in fresh environments (the wheel and the sdist,
with and without the C extensions) and by cibuildwheel on every wheel it
builds (``[tool.cibuildwheel] test-command``). With ``--save DIR`` it writes
each command's standard output to DIR, so two installations can be compared
byte for byte. Exit 0 when every check holds; one line per failure otherwise.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import math
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

# irpref evaluate QRELS RUN... --rel 2 -m AP nDCG@10 RR --format tsv on the shipped
# example (TREC DL 2019 passage slice); the values are trec_eval 10.0's (-l 2), whose
# means add the queries in file order: irpref's are the exact sum rounded once, then
# divided (the same for any query order), so they may differ in the last digit or two
EXPECTED_EVALUATE = """\
run\tmeasure\tvalue
TUA1-1\tAP\t0.41490633452797604
UNH_bm25\tAP\t0.21149383485961626
bm25base_p\tAP\t0.24761595813584467
bm25tuned_rm3_p\tAP\t0.2778022558578232
idst_bert_p1\tAP\t0.4479872922883427
p_bert\tAP\t0.4199919516354217
TUA1-1\tnDCG@10\t0.7314487785125671
UNH_bm25\tnDCG@10\t0.4494677437106562
bm25base_p\tnDCG@10\t0.5058310024399073
bm25tuned_rm3_p\tnDCG@10\t0.5230744424798522
idst_bert_p1\tnDCG@10\t0.7644751776018358
p_bert\tnDCG@10\t0.7379749834937342
TUA1-1\tRR\t0.87015503875969
UNH_bm25\tRR\t0.6035644473906042
bm25base_p\tRR\t0.7036418565794331
bm25tuned_rm3_p\tRR\t0.6991880574272176
idst_bert_p1\tRR\t0.928294573643411
p_bert\tRR\t0.8662790697674421
"""


SETUP_PY = Path(__file__).resolve().parents[1] / "setup.py"


def extension_names(setup_py: Path = SETUP_PY) -> list[str]:
    """The C extensions setup.py declares (``Extension("irpref._x", ...)``), read
    from its text, so this list follows setup.py whatever the names are."""
    tree = ast.parse(setup_py.read_text(encoding="utf-8"))
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Extension"
            and node.args and isinstance(node.args[0], ast.Constant)]


def importable_extensions() -> tuple[list[str], list[str]]:
    """(importable, not importable) among setup.py's extensions."""
    found, missing = [], []
    for name in extension_names():
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
        else:
            found.append(name)
    return found, missing


def same_values(got: str, expected: str, rel: float = 1e-14) -> bool:
    """The same rows of ``run, measure, value`` in the same order, each value within
    ``rel`` of the expected one (a few units in the last place: the summation order)."""
    a, b = got.splitlines(), expected.splitlines()
    if len(a) != len(b) or a[:1] != b[:1]:
        return False
    for x, y in zip(a[1:], b[1:]):
        *key_x, vx = x.split("\t")
        *key_y, vy = y.split("\t")
        if key_x != key_y or not math.isclose(float(vx), float(vy), rel_tol=rel):
            return False
    return True


def _irpref() -> str:
    exe = Path(sys.executable).with_name("irpref.exe" if sys.platform == "win32" else "irpref")
    return str(exe) if exe.exists() else (shutil.which("irpref") or "irpref")


def _run(*args: str) -> str:
    proc = subprocess.run([_irpref(), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"smoke: irpref {' '.join(args[:1])} exited {proc.returncode}: "
                         f"{proc.stderr.strip()}")
    return proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", type=Path, help="write each command's output to this folder")
    parser.add_argument("--extensions", choices=["all", "none", "any"], default="any",
                        help="require every C extension of setup.py importable, or none")
    args = parser.parse_args()
    from irpref import examples

    data = [str(examples.qrels_path()), *map(str, examples.run_paths())]
    outputs = {
        "version": _run("--version"),
        "evaluate": _run("evaluate", *data, "--rel", "2", "-m", "AP", "nDCG@10", "RR",
                         "--format", "tsv"),
        "compare": _run("compare", *data, "--rel", "2", "-m", "sgnLP", "rrLP", "RPP",
                        "--format", "tsv"),
        "significance": _run("significance", *data, "--rel", "2", "-m", "AP", "RPP",
                             "--test", "hsd", "--permutations", "500", "--format", "tsv"),
        "trec_eval": _run("trec_eval", "-m", "all_trec", "-l2", data[0], data[1]),
    }
    failures = []
    found, missing = importable_extensions()
    if args.extensions == "all" and missing:
        failures.append(f"C extensions not importable: {', '.join(missing)}")
    if args.extensions == "none" and found:
        failures.append(f"C extensions importable: {', '.join(found)}")
    version = metadata.version("irpref")
    if outputs["version"].strip() != f"irpref {version}":
        failures.append(f"irpref --version printed {outputs['version'].strip()!r}, "
                        f"the installed metadata says {version}")
    if not same_values(outputs["evaluate"], EXPECTED_EVALUATE):
        failures.append("irpref evaluate on the example: the values differ from trec_eval's")
    if len(outputs["compare"].splitlines()) != 1 + 3 * 15:  # 6 runs: 15 pairs
        failures.append("irpref compare: expected 45 rows of means")
    if len(outputs["significance"].splitlines()) < 1 + 2 * 15:  # 15 pairs x 2 measures
        failures.append("irpref significance: expected 30 rows of tests")
    if "map                   \tall\t0.4149\n" not in outputs["trec_eval"]:
        failures.append("irpref trec_eval: map of TUA1-1 is not trec_eval's")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        for name, text in outputs.items():
            (args.save / f"{name}.txt").write_text(text, encoding="utf-8")
    for failure in failures:
        print(f"smoke: {failure}", file=sys.stderr)
    if not failures:
        print(f"smoke: irpref {version} from {Path(examples.__file__).parents[1]} "
              f"(C extensions: {', '.join(found) or 'none'}): {len(outputs)} commands "
              "on the example collection, numbers as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
