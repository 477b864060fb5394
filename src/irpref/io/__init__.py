"""Input: TREC files, DataFrames and dicts."""

from irpref.io.frames import as_qrels, as_runs
from irpref.io.trec import Qrels, Run, TrecFormatError, read_qrels, read_run, run_name_from_path

__all__ = [
    "Qrels",
    "Run",
    "TrecFormatError",
    "as_qrels",
    "as_runs",
    "read_qrels",
    "read_run",
    "run_name_from_path",
]
