#!/usr/bin/env bash
# The release as a user gets it (run by .ci/run before the test suite):
#  1. python -m build: an sdist, and a wheel built from that sdist (C extensions);
#  2. the sdist holds every file of src/, tests/ and docs/ (MANIFEST.in);
#  3. the wheel (built from the sdist, so the sdist compiles) installs in a fresh
#     virtual environment and passes scripts/smoke.py (the shipped example
#     through the installed command);
#  4. a wheel built with IRPREF_NO_EXTENSIONS=1 installs in a fresh environment
#     where no C extension is importable, passes the smoke test with the same
#     bytes of output, and passes the tests of the code paths the extensions
#     replace (the NumPy / Arrow fallbacks: run files, ids, kernels, preferences).
# Prints one line per step; exit 1 at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
PY="${PYTHON:-python3}"
step() { printf '\n== release-check: %s\n' "$*"; }
fresh_venv() {  # fresh_venv DIR: an empty environment with a current pip
  "$PY" -m venv "$1"
  "$1/bin/python" -m pip install --quiet --upgrade pip
}

step "build the sdist and a wheel from it"
"$PY" -m venv "$scratch/buildenv"
"$scratch/buildenv/bin/python" -m pip install --quiet --upgrade pip "build==1.6.1"
"$scratch/buildenv/bin/python" -m build --outdir "$scratch/dist" . > "$scratch/build.log" 2>&1 \
  || { tail -40 "$scratch/build.log"; exit 1; }
sdist="$(ls "$scratch"/dist/irpref-*.tar.gz)"
wheel="$(ls "$scratch"/dist/irpref-*.whl)"
echo "built $(basename "$sdist") and $(basename "$wheel")"

step "the sdist holds src/, tests/ and docs/"
"$PY" - "$sdist" <<'PYEOF'
import sys, tarfile
from pathlib import Path
with tarfile.open(sys.argv[1]) as tar:
    names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
wanted = {str(p) for top in ("src", "tests", "docs") for p in Path(top).rglob("*")
          if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".pyd", ".pyc")
          and not p.name.endswith(".egg-info") and ".egg-info" not in str(p)}
wanted |= {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "setup.py", "MANIFEST.in",
           "mkdocs.yml", "scripts/smoke.py", "scripts/test.sh"}
missing = sorted(wanted - names)
if missing:
    sys.exit(f"the sdist lacks {len(missing)} files: {', '.join(missing[:20])}")
print(f"the sdist holds all {len(wanted)} files of src/, tests/, docs/ and the top level")
PYEOF

step "the wheel in a fresh environment"
fresh_venv "$scratch/wheel"
"$scratch/wheel/bin/python" -m pip install --quiet "$wheel"
"$scratch/wheel/bin/python" scripts/smoke.py --extensions all --save "$scratch/out-wheel"

step "without the C extensions: IRPREF_NO_EXTENSIONS=1"
mkdir "$scratch/src" && tar -xzf "$sdist" -C "$scratch/src"
IRPREF_NO_EXTENSIONS=1 "$scratch/buildenv/bin/python" -m build --wheel \
  --outdir "$scratch/dist-noext" "$scratch"/src/irpref-* > "$scratch/build-noext.log" 2>&1 \
  || { tail -40 "$scratch/build-noext.log"; exit 1; }
pure="$(ls "$scratch"/dist-noext/irpref-*.whl)"
case "$(basename "$pure")" in
  *-py3-none-any.whl) echo "built $(basename "$pure") (pure Python)";;
  *) echo "error: $(basename "$pure") is not a pure-Python wheel" >&2; exit 1;;
esac
fresh_venv "$scratch/noext"
"$scratch/noext/bin/python" -m pip install --quiet "$pure" \
  "pytest>=7,<10" "hypothesis>=6.80,<7" "pytest-xdist>=3.5,<4" "pytrec-eval-terrier>=0.5.6,<0.6"
"$scratch/noext/bin/python" scripts/smoke.py --extensions none --save "$scratch/out-noext"
"$PY" - "$scratch/out-wheel" "$scratch/out-noext" <<'PYEOF'
# the same bytes with and without the extensions, except the d_z interval of
# significance: the C solver and SciPy's root finder agree to 1e-8 (documented)
import math, sys
from pathlib import Path
a, b = map(Path, sys.argv[1:])
for name in ("evaluate", "compare", "trec_eval"):
    if (a / f"{name}.txt").read_bytes() != (b / f"{name}.txt").read_bytes():
        sys.exit(f"irpref {name}: the output differs without the extensions")
rows_a, rows_b = ([line.split("\t") for line in (d / "significance.txt").read_text().splitlines()]
                  for d in (a, b))
head = rows_a[0]
assert rows_b[0] == head and len(rows_a) == len(rows_b), "significance: other rows"
loose = {head.index("effect_low"), head.index("effect_high")}
worst = 0.0
for ra, rb in zip(rows_a[1:], rows_b[1:]):
    for i, (x, y) in enumerate(zip(ra, rb)):
        if i in loose:
            worst = max(worst, abs(float(x) - float(y)) / max(1.0, abs(float(x))))
        elif x != y:
            sys.exit(f"significance: column {head[i]} differs without the extensions: {x} {y}")
if worst > 1e-8:
    sys.exit(f"significance: the d_z interval moves by {worst:.2e} without the extensions")
print("evaluate, compare and trec_eval print the same bytes with and without the extensions; "
      f"significance (randomized HSD) the same bytes but the d_z interval (within {worst:.1e})")
PYEOF
# the tests of the paths the extensions replace, on the installed pure wheel
# (a copy of tests/, so nothing of src/ is on the path; the suite's own
# test_c_extension_is_built insists on the extension and is left out here)
cp -r tests "$scratch/tests" && cp setup.py pyproject.toml "$scratch/" && mkdir "$scratch/scripts" \
  && cp scripts/smoke.py "$scratch/scripts/"
(cd "$scratch" && PATH="$scratch/noext/bin:$PATH" IRPREF_EXPECT_NO_EXTENSIONS=1 \
  noext/bin/python -m pytest -q -p no:cacheprovider -n 2 -m "not slow" \
  --deselect tests/test_stats.py::test_c_extension_is_built \
  tests/test_no_extensions.py tests/test_conformance.py tests/test_classic.py tests/test_io.py \
  tests/test_io_speed_paths.py tests/test_bad_input_files.py tests/test_id_shapes.py \
  tests/test_recommendation_inputs.py tests/test_compact.py tests/test_tie_aware.py \
  tests/test_preferences.py tests/test_preferences_engine.py tests/test_prefs_measures.py \
  tests/test_pair_blocks.py tests/test_significance.py tests/test_stats.py \
  tests/test_noncentral.py tests/test_bounds_kernels.py)
echo "release-check: passed"
