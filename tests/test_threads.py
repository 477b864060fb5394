"""The one thread policy (irpref.runtime.threads) and native threads at exit.

- ``worker_count``: the CPUs this process may use, lowered by ``IRPREF_THREADS``
  and the pool's cap; a bad ``IRPREF_THREADS`` is a usage error (exit 2);
- ``IRPREF_THREADS=1`` prints the same bytes as the default (evaluate, significance);
- many short commands in parallel all end with their own exit code: no native
  thread outlives its work (an abort at exit is 134, with ``terminate called``).
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import QRELS, RUNS, irpref_cli

from irpref.errors import UsageError
from irpref.runtime import threads

SRC = Path(__file__).resolve().parents[1] / "src" / "irpref"


def test_worker_count_caps(monkeypatch):
    monkeypatch.setattr(threads, "available_cpus", lambda: 6)
    monkeypatch.delenv("IRPREF_THREADS", raising=False)
    assert threads.worker_count() == 6
    assert threads.worker_count(threads.IO_CAP) == 4
    assert threads.worker_count(threads.WRITE_CAP) == 2
    monkeypatch.setenv("IRPREF_THREADS", "3")
    assert threads.worker_count(threads.COMPUTE_CAP) == 3
    monkeypatch.setenv("IRPREF_THREADS", "64")  # never more than the CPUs
    assert threads.worker_count(threads.COMPUTE_CAP) == 6
    monkeypatch.setenv("IRPREF_THREADS", "1")
    assert threads.worker_count(threads.IO_CAP) == 1
    monkeypatch.setenv("IRPREF_THREADS", " ")
    assert threads.worker_count() == 6


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_bad_thread_count_is_a_usage_error(value, monkeypatch):
    monkeypatch.setenv("IRPREF_THREADS", value)
    with pytest.raises(UsageError, match=r"IRPREF_THREADS must be a positive integer"):
        threads.worker_count()
    for args in (["evaluate", QRELS, *RUNS[:2], "-m", "AP"], ["trec_eval", QRELS, RUNS[0]]):
        out = irpref_cli(*args, env={"IRPREF_THREADS": value})
        assert out.returncode == 2, out.stderr
        assert out.stdout == ""
        assert out.stderr.strip().endswith(
            f"error: IRPREF_THREADS must be a positive integer, not {value!r}")


def test_in_threads_keeps_order_and_joins(monkeypatch):
    monkeypatch.setattr(threads, "available_cpus", lambda: 4)
    monkeypatch.setattr(threads, "PARALLEL_MIN", 0)
    assert threads.in_threads(lambda x: x * x, range(50), weight=[1]) == [x * x for x in range(50)]

    def fail(x):
        if x == 3:
            raise ValueError("three")
        return x

    with pytest.raises(ValueError, match="three"):
        threads.in_threads(fail, range(8), weight=[1])
    import threading

    assert not [t for t in threading.enumerate() if t.name.startswith("irpref")]


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["evaluate", QRELS, *RUNS, "-m", "AP", "nDCG@10", "RR", "P@10", "--format", "tsv"],
    ["evaluate", QRELS, *RUNS, "-m", "AP", "nDCG@10", "--ties", "expected", "--format", "tsv"],
    ["significance", QRELS, *RUNS, "-m", "AP", "--test", "hsd", "--seed", "7",
     "--format", "tsv"],
    ["significance", QRELS, *RUNS, "-m", "nDCG@10", "--seed", "7", "--format", "tsv"],
], ids=["evaluate", "evaluate-expected", "significance-hsd", "significance-t"])
def test_one_thread_prints_the_same_bytes(args):
    default = irpref_cli(*args)
    serial = irpref_cli(*args, env={"IRPREF_THREADS": "1"})
    assert default.returncode == 0, default.stderr
    assert serial.returncode == 0, serial.stderr
    assert serial.stdout == default.stdout and default.stdout


def test_every_pool_reads_the_one_policy():
    """No module sizes a pool by itself: os.sched_getaffinity / os.cpu_count
    appear in irpref.runtime.threads only, and every ThreadPoolExecutor is a ``with``
    block or shut down in a ``finally``."""
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        if path.name != "threads.py":
            assert "sched_getaffinity" not in text and "cpu_count()" not in text, path
        if "ThreadPoolExecutor(" in text:
            tree = ast.parse(text)
            pools = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and getattr(n.func, "id", None) == "ThreadPoolExecutor"]
            withs = [i.context_expr for n in ast.walk(tree) if isinstance(n, ast.With)
                     for i in n.items]
            for call in pools:
                assert call in withs or "shutdown(wait=True" in text, path


# ---------------------------------------------------------------- exit codes


def _commands(tmp_path: Path) -> list[tuple[list, int]]:
    good = tmp_path / "good.csv"
    good.write_text("query_id,doc_id,score\n" + "".join(
        f"1037798,d{i},{1.0 / (i + 1)}\n" for i in range(300)))
    bad = tmp_path / "bad.csv"
    rows = good.read_text().splitlines()
    rows[150] = "1037798,d149,abc"  # line 151: a score that is no number
    bad.write_text("\n".join(rows) + "\n")
    return [
        (["trec_eval", QRELS, RUNS[0]], 0),
        (["evaluate", QRELS, *RUNS[:3], "-m", "AP", "RR"], 0),
        (["evaluate", QRELS, RUNS[0], bad, "-m", "AP"], 1),
        (["trec_eval", QRELS, bad], 1),
        (["evaluate", QRELS, good, "-m", "AP", "--quiet"], 0),
        (["evaluate", QRELS, RUNS[0], "-m", "AP", "--rel", "0"], 2),
    ]


@pytest.mark.slow
def test_short_commands_end_with_their_own_exit_code(tmp_path):
    """60 short commands, 2 at a time (benchmarks/stress_exit.py runs hundreds):
    each ends with its exit code (0, 1 for the bad file, 2 for the bad option),
    never an abort at exit."""
    kinds = _commands(tmp_path)
    plan = [kinds[i % len(kinds)] for i in range(60)]

    def one(item):
        args, expected = item
        out = irpref_cli(*args, timeout=120)
        return args[0], expected, out.returncode, out.stderr

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, plan))
    wrong = [(cmd, want, got, err[-300:]) for cmd, want, got, err in results
             if got != want or "terminate called" in err]
    assert not wrong
