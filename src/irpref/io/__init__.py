"""Input: TREC files, CSV/TSV/JSONL/Parquet tables, DataFrames and dicts (rules: trec.py)."""

from irpref.io.frames import as_qrels, as_runs
from irpref.io.trec import (
    GRADE_MAX,
    Qrels,
    Run,
    TrecFormatError,
    read_bytes,
    read_qrels,
    read_run,
    read_runs,
    run_name_from_path,
)

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
