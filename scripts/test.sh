#!/usr/bin/env bash
# Set up irpref with its test dependencies in .venv and run the whole test suite.
# pytest's exit 5 ("no tests collected") is a failure here, never a pass.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-browser.sh   # Debian chromium + chromedriver for the HTML report test
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e ".[test]"
ruff check src tests benchmarks experiments
set +e
# two workers (pytest-xdist; CI has 2 cores); modules marked xdist_group keep their
# module-scoped fixtures (browser, dask cluster, reports) on one worker. "$@" may
# override, e.g. -n 0 for a serial run.
python -m pytest -q -n 2 --dist loadgroup "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "error: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
