"""``python -m irpref.examples``: print the example qrels path, then the run paths."""

from irpref.examples import qrels_path, run_paths

print(" ".join(str(p) for p in [qrels_path(), *run_paths()]))
