#!/usr/bin/env bash
# Set up irpref in .venv and run the main job on the example collection shipped
# in the package (a slice of TREC 2019 Deep Learning passage; grade >= 2 relevant).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e .
# shellcheck disable=SC2046  # the paths are split on purpose
set -- $(python -m irpref.examples)
echo "== irpref evaluate (trec_eval-exact measures, grade >= 2 relevant)"
irpref evaluate "$@" --rel 2 -m AP nDCG@10 RR P@10 R@100
echo
echo "== irpref compare (lexiprecision, lexirecall, recall-paired preference)"
irpref compare "$@" --rel 2 -m sgnLP RPP
echo
echo "== irpref ties (how much docid tie-breaking moves each measure)"
irpref ties "$@" --rel 2 -m AP RR nDCG@10
