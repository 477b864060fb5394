"""Judged rankings saved to Parquet (irpref.judging.store, irpref judge): exact round trip,
every command reads the file, and every kind of stale file is refused."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from helpers import irpref_cli

import irpref
from irpref import examples
from irpref.judging.store import StaleCacheError, is_judged_file, load, save
from irpref.params import Settings

EXAMPLE = Path(examples.__file__).parent / "dl19"
RUNS = ["bm25base_p.gz", "bm25tuned_rm3_p.gz", "p_bert.gz"]


@pytest.fixture()
def inputs(tmp_path):
    for name in ["qrels.txt", *RUNS]:
        shutil.copy(EXAMPLE / name, tmp_path / name)
    return tmp_path / "qrels.txt", [tmp_path / r for r in RUNS]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """``irpref judge --rel 2`` of the example inputs, run once: the tests below only read
    the saved file and its inputs (the tests that change inputs use their own copies)."""
    folder = tmp_path_factory.mktemp("saved")
    for name in ["qrels.txt", *RUNS]:
        shutil.copy(EXAMPLE / name, folder / name)
    qrels, runs, out = folder / "qrels.txt", [folder / r for r in RUNS], folder / "j.parquet"
    r = _cli("judge", qrels, *runs, "-o", out, "--rel", "2")
    assert r.returncode == 0, r.stderr
    return qrels, runs, out


def _judge(qrels, runs, out, **kw):
    judged = irpref.judge_inputs(qrels, runs, warn=False, **kw)
    save(judged, out, qrels=qrels, runs=runs)
    return judged


def _cli(*args):
    return irpref_cli(*args)


def test_round_trip_keeps_every_field(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    judged = _judge(qrels, runs, out, rel=2, depth=50)
    assert is_judged_file(out) and not is_judged_file(qrels)
    back = load(out)
    for f in ("offsets", "doc_key", "score", "grade", "present", "qrels_offsets",
              "qrels_doc_key", "qrels_grade", "queries"):
        a, b = getattr(judged, f), getattr(back, f)
        assert a.dtype == b.dtype and a.shape == b.shape, f
        np.testing.assert_array_equal(a, b)
    assert back.run_names == judged.run_names
    assert (back.rel, back.depth, back.ties) == (2, 50, "docid")
    assert back.docs.to_pylist() == judged.docs.to_pylist()
    np.testing.assert_array_equal(back.doc, judged.doc)


@pytest.mark.parametrize("measures", [["AP", "nDCG@10", "RR", "P@10", "R@1000"]])
def test_measures_and_preferences_identical_from_file(inputs, tmp_path, measures):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    judged = _judge(qrels, runs, out, rel=2)
    back = load(out, Settings(rel=2))
    a = irpref.evaluate(None, None, measures, judged=judged)
    b = irpref.evaluate(None, None, measures, judged=back)
    pd.testing.assert_frame_equal(a, b)
    from irpref.compare import compare_matrices

    pa_ = compare_matrices(None, None, ["sgnLP", "rrLP", "RPP"], rel=2, judged=judged)
    pb_ = compare_matrices(None, None, ["sgnLP", "rrLP", "RPP"], rel=2, judged=back)
    pd.testing.assert_frame_equal(pa_.tidy(), pb_.tidy())


@pytest.mark.slow
def test_cli_commands_read_the_saved_file(saved):
    qrels, runs, out = saved
    for cmd, extra in [("evaluate", ["-m", "AP", "RR", "--per-query", "--format", "tsv"]),
                       ("compare", ["-m", "rrLP", "--per-query", "--format", "tsv"]),
                       ("significance", ["-m", "AP", "--seed", "1", "--format", "tsv"]),
                       ("ties", ["-m", "AP", "--format", "tsv"])]:
        direct = _cli(cmd, qrels, *runs, "--rel", "2", *extra)
        cached = _cli(cmd, out, "--rel", "2", *extra)
        assert direct.returncode == 0, direct.stderr
        assert cached.returncode == 0, cached.stderr
        assert cached.stdout == direct.stdout, cmd


@pytest.mark.slow
@pytest.mark.parametrize("option,value", [("--rel", "1"), ("--depth", "10"),
                                          ("--ties", "input")])
def test_different_option_is_refused(saved, option, value):
    _, _, out = saved
    args = ["--rel", "2", option, value] if option != "--rel" else [option, value]
    r = _cli("evaluate", out, "-m", "AP", *args)
    assert r.returncode == 1 and r.stdout == ""
    assert "j.parquet" in r.stderr and option in r.stderr and "re-run irpref judge" in r.stderr


def test_changed_run_same_size_is_refused(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    load(out)  # fresh: fine
    data = bytearray(runs[1].read_bytes())
    data[-5] ^= 1  # same size, other content
    runs[1].write_bytes(bytes(data))
    os.utime(runs[1], ns=(1, 1))
    with pytest.raises(StaleCacheError, match="bm25tuned_rm3_p.gz changed"):
        load(out)


def test_touched_but_identical_input_is_accepted(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    os.utime(qrels, ns=(10**9, 10**9))  # mtime moved, content equal: hash decides
    load(out)


def test_changed_qrels_is_refused(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    with open(qrels, "a") as f:
        f.write("19335 0 extra-doc 3\n")
    with pytest.raises(StaleCacheError, match="qrels.txt changed .*size"):
        load(out)
    r = _cli("evaluate", out, "-m", "AP")
    assert r.returncode == 1 and "qrels.txt changed" in r.stderr and r.stdout == ""


def test_vanished_input_is_refused(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    runs[0].unlink()
    with pytest.raises(StaleCacheError, match="is gone"):
        load(out)


def test_file_of_another_version_is_refused(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    table = pq.read_table(out)
    meta = json.loads(table.schema.metadata[b"irpref"])
    meta["fields"].append("new_field")
    pq.write_table(table.replace_schema_metadata({"irpref": json.dumps(meta)}), out)
    with pytest.raises(StaleCacheError, match="new_field"):
        load(out)


@pytest.mark.slow
def test_runs_after_a_saved_file_are_a_usage_error(inputs, tmp_path):
    qrels, runs = inputs
    out = tmp_path / "j.parquet"
    _judge(qrels, runs, out)
    r = _cli("evaluate", out, runs[0], "-m", "AP")
    # a bad request: UsageError, exit 2
    assert r.returncode == 2 and r.stdout == "" and "saved judged file" in r.stderr
    r = _cli("evaluate", qrels, "-m", "AP")
    assert r.returncode == 2 and "no RUN" in r.stderr
