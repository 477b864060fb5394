"""Input: TREC files, CSV/TSV/JSONL/Parquet tables, DataFrames and dicts (rules: trec.py)."""

from irpref.io.frames import as_qrels, as_runs
from irpref.io.lines import read_bytes
from irpref.io.prefs import (
    JUDGE_PREFIX,
    JudgmentGroups,
    Preferences,
    read_judge,
    read_prefs,
    read_qrels_jg,
    read_qrels_prefs,
)
from irpref.io.records import GRADE_MAX, Qrels, Run, TrecFormatError, run_name_from_path
from irpref.io.trec import QRELS_SOURCES, read_qrels, read_run, read_runs

QRELS_SOURCES[JUDGE_PREFIX] = read_judge  # judge:NAME:FILE, one judge of a qrels_jg file

__all__ = [
    "GRADE_MAX",
    "JudgmentGroups",
    "Preferences",
    "Qrels",
    "Run",
    "TrecFormatError",
    "as_qrels",
    "as_runs",
    "read_bytes",
    "read_prefs",
    "read_qrels",
    "read_qrels_jg",
    "read_qrels_prefs",
    "read_run",
    "read_runs",
    "run_name_from_path",
]
