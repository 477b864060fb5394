"""Progress bars: drawn on a terminal (pseudo-TTY), never on a pipe or with --quiet."""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irpref import examples
from irpref.runtime import progress

# under pytest-xdist (scripts/test.sh: -n 2 --dist loadgroup) this module runs on one
# worker, so its module-scoped HSD output (17 s) is built once
pytestmark = pytest.mark.xdist_group("progress")

QRELS = str(examples.qrels_path())
RUNS = [str(p) for p in examples.run_paths()]
try:  # the C kernels draw and test 300,000 permutations in under the bar's 0.5 s delay
    import irpref._native.kernels  # noqa: F401

    PERMUTATIONS = "3000000"
except ImportError:
    PERMUTATIONS = "300000"
HSD = ["significance", QRELS, *RUNS, "-m", "AP", "--test", "hsd", "--permutations", PERMUTATIONS,
       "--seed", "1", "--bootstrap", "0", "--format", "tsv"]


def exe() -> str:
    return shutil.which("irpref") or str(Path(sys.executable).parent / "irpref")


def run_with_tty_stderr(args: list[str]) -> tuple[subprocess.CompletedProcess, bytes]:
    """Run ``irpref args`` with stderr on a pseudo-terminal; (result, bytes on the terminal)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([exe(), *args], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    out = proc.stdout.read()
    proc.wait()
    os.close(master)
    return subprocess.CompletedProcess(args, proc.returncode, out, b""), data


def test_library_off_a_terminal_writes_nothing(capsys):
    assert list(progress.track(range(5), 5, "x")) == list(range(5))
    with progress.task(3, "y") as bar:
        bar.update(3)
    progress.bar(2, "z").close()
    assert capsys.readouterr().err == ""
    assert not progress.enabled()


def test_silence_wins_over_a_terminal(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    progress.silence(True)
    try:
        assert not progress.enabled()
    finally:
        progress.silence(False)


@pytest.fixture(scope="module")
def plain_output():
    r = subprocess.run([exe(), *HSD], capture_output=True)
    assert r.returncode == 0, r.stderr
    return r


@pytest.mark.slow
def test_no_bar_when_stderr_is_not_a_terminal(plain_output):
    assert plain_output.stderr == b""


@pytest.mark.slow
def test_bar_on_a_pseudo_terminal(plain_output):
    result, terminal = run_with_tty_stderr(HSD)
    assert result.returncode == 0
    assert b"randomized HSD" in terminal and b"perm" in terminal and b"\r" in terminal
    assert result.stdout == plain_output.stdout  # the bar never touches the results


@pytest.mark.slow
def test_quiet_silences_the_bar():
    result, terminal = run_with_tty_stderr([*HSD, "--quiet"])
    assert result.returncode == 0
    assert b"randomized HSD" not in terminal


@pytest.mark.slow
def test_meta_degrade_bar_and_quiet_after_the_experiment():
    args = ["meta", "degrade", QRELS, *RUNS, "--rel", "2", "-m", "RR", "sgnLP", "--samples", "100"]
    result, terminal = run_with_tty_stderr(args)
    assert result.returncode == 0 and b"degrade" in terminal
    result, terminal = run_with_tty_stderr([*args, "--quiet"])
    assert result.returncode == 0 and terminal == b""


# ------------------------------------------------------------------ bootstrap

# Intervals printed by the code BEFORE the bootstrap learnt its progress bar
# (float.hex, so exact): the bar must not change a bit of them.
BOOT_LOW = ["-0x1.4231f031bf9e6p-1", "-0x1.0842cfa1bad63p-1", "-0x1.2e9e25e1e8568p-2",
            "-0x1.81e8b2fa825e2p-2", "-0x1.b92d3d9ae2940p-2", "-0x1.a464d1f068d79p-2"]
BOOT_HIGH = ["-0x1.0ff42f6944e0bp-3", "0x1.8682fcbe092f6p-4", "0x1.d23b5e00d1bc7p-3",
             "0x1.682000847218bp-3", "0x1.0d850c2c3171bp-4", "0x1.0b09fc13e4ed8p-2"]
CI_LOW = ["0x1.318d0bb69fdebp-2", "0x1.61134951c9eacp-2", "0x1.b4ca15fdcefd6p-2",
          "0x1.85abe5452d6f2p-2", "0x1.d5eec98c0e1dap-2", "0x1.38b64e563a090p-2"]
CI_HIGH = ["0x1.19f3bbc1052c0p-1", "0x1.5f1bc49e1f6b5p-1", "0x1.5f1249b649697p-1",
           "0x1.4b40461dbbd9dp-1", "0x1.904426786f45fp-1", "0x1.30c01de3ca1e6p-1"]


def _pair_values():
    d = np.random.default_rng(7).normal(size=(6, 25))
    d[1, 3] = np.nan
    return d


def _results():
    rng = np.random.default_rng(3)
    rows = [(run, str(q), m, float(rng.random()))
            for m in ("AP", "nDCG") for run in ("r1", "r2", "r10") for q in range(15)]
    return pd.DataFrame(rows, columns=["run", "query", "measure", "value"])


def _hex(values) -> list[str]:
    return [float(v).hex() for v in values]


@pytest.fixture(params=[False, True], ids=["no-bar", "bar"])
def bar_on(request, monkeypatch):
    """Progress drawn (tqdm into the captured stderr) or not; small chunks either way."""
    from irpref import stats
    from irpref.report import baseline

    monkeypatch.setattr(progress, "enabled", lambda: request.param)
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(stats.bootstrap, "BOOTSTRAP_CHUNK", 64)
    monkeypatch.setattr(baseline, "BOOTSTRAP_CHUNK", 64)
    return request.param


def test_bootstrap_ci_bits_recorded_before_the_bar(bar_on, capsys):
    from irpref.stats import bootstrap_ci

    low, high = bootstrap_ci(_pair_values(), 300, 0.9, seed=11)
    assert _hex(low) == BOOT_LOW and _hex(high) == BOOT_HIGH
    assert ("bootstrap CI" in capsys.readouterr().err) == bar_on


def test_evaluate_bootstrap_ci_bits_recorded_before_the_bar(bar_on, capsys):
    from irpref.report.baseline import mean_ci

    table = mean_ci(_results(), method="bootstrap", resamples=200, seed=5)
    assert _hex(table["ci_low"]) == CI_LOW and _hex(table["ci_high"]) == CI_HIGH
    assert ("bootstrap CI" in capsys.readouterr().err) == bar_on


def test_bootstrap_ci_equals_the_one_shot_computation(bar_on):
    """Chunked draws and quantiles == one multinomial draw, one product, one quantile."""
    from irpref.stats import bootstrap_ci

    d = np.random.default_rng(1).normal(size=(37, 19))
    d[4, :3] = np.nan
    rng = np.random.default_rng(2)
    counts = rng.multinomial(19, np.full(19, 1 / 19), size=501).astype(np.float64)
    valid = ~np.isnan(d)
    means = (np.where(valid, d, 0.0) @ counts.T) / (valid.astype(np.float64) @ counts.T)
    tail = (1 - 0.95) / 2  # as the library computes it (not the literal 0.025)
    want = np.quantile(means, [tail, 1 - tail], axis=-1)
    low, high = bootstrap_ci(d, 501, 0.95, seed=2)
    assert np.array_equal(low, want[0]) and np.array_equal(high, want[1])


def test_evaluate_bootstrap_equals_the_one_shot_computation(bar_on):
    from irpref.report.baseline import mean_ci

    results = _results()
    table = mean_ci(results, method="bootstrap", resamples=301, seed=9)
    rng = np.random.default_rng(9)
    for measure, part in results.groupby("measure", sort=False):
        wide = part.pivot(index="run", columns="query", values="value")
        values = wide.loc[["r1", "r2", "r10"], pd.unique(part["query"])].to_numpy()
        idx = rng.integers(0, values.shape[1], size=(301, values.shape[1]))
        means = np.nanmean(values[:, idx], -1)
        tail = (1 - 0.95) / 2 * 100  # as the library computes it
        low, high = np.nanpercentile(means, [tail, 100 - tail], axis=1)
        got = table[table["measure"] == measure]
        assert np.array_equal(got["ci_low"], low) and np.array_equal(got["ci_high"], high)


# enough resamples that each bootstrap lasts well past the bar's 0.5 s delay on a quiet
# machine (200,000 took about 0.5 s for evaluate: the bar came or not by chance)
SIG_BOOT = ["significance", QRELS, *RUNS, "-m", "AP", "--test", "t", "--ci", "bootstrap",
            "--bootstrap", "1000000", "--seed", "1", "--format", "tsv"]
EVAL_BOOT = ["evaluate", QRELS, *RUNS, "-m", "AP", "--ci", "bootstrap", "--bootstrap", "1000000",
             "--seed", "1", "--format", "tsv"]


@pytest.mark.slow
@pytest.mark.parametrize("args", [SIG_BOOT, EVAL_BOOT], ids=["significance", "evaluate"])
def test_bootstrap_bar_on_a_terminal_only(args):
    plain = subprocess.run([exe(), *args], capture_output=True)
    assert plain.returncode == 0 and plain.stderr == b""
    result, terminal = run_with_tty_stderr(args)
    assert result.returncode == 0 and b"bootstrap" in terminal  # resampling or CI bar
    assert result.stdout == plain.stdout  # bit-identical intervals with the bar


@pytest.mark.slow
def test_quiet_silences_the_bootstrap_bar():
    result, terminal = run_with_tty_stderr([*EVAL_BOOT, "--quiet"])
    assert result.returncode == 0 and b"bootstrap CI" not in terminal
