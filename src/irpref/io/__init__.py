"""Input: TREC files, CSV/TSV/JSONL/Parquet tables, DataFrames and dicts (rules: trec.py)."""

from irpref.io.frames import as_qrels, as_runs
from irpref.io.lines import read_bytes
from irpref.io.records import GRADE_MAX, Qrels, Run, TrecFormatError, run_name_from_path
from irpref.io.trec import read_qrels, read_run, read_runs

__all__ = [
    "GRADE_MAX",
    "Qrels",
    "Run",
    "TrecFormatError",
    "as_qrels",
    "as_runs",
    "read_bytes",
    "read_qrels",
    "read_run",
    "read_runs",
    "run_name_from_path",
]
