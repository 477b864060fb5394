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

import pytest

from irpref import examples, progress

QRELS = str(examples.qrels_path())
RUNS = [str(p) for p in examples.run_paths()]
HSD = ["significance", QRELS, *RUNS, "-m", "AP", "--test", "hsd", "--permutations", "300000",
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


def test_no_bar_when_stderr_is_not_a_terminal(plain_output):
    assert plain_output.stderr == b""


def test_bar_on_a_pseudo_terminal(plain_output):
    result, terminal = run_with_tty_stderr(HSD)
    assert result.returncode == 0
    assert b"randomized HSD" in terminal and b"perm" in terminal and b"\r" in terminal
    assert result.stdout == plain_output.stdout  # the bar never touches the results


def test_quiet_silences_the_bar():
    result, terminal = run_with_tty_stderr([*HSD, "--quiet"])
    assert result.returncode == 0
    assert b"randomized HSD" not in terminal


def test_meta_degrade_bar_and_quiet_after_the_experiment():
    args = ["meta", "degrade", QRELS, *RUNS, "--rel", "2", "-m", "RR", "sgnLP", "--samples", "100"]
    result, terminal = run_with_tty_stderr(args)
    assert result.returncode == 0 and b"degrade" in terminal
    result, terminal = run_with_tty_stderr([*args, "--quiet"])
    assert result.returncode == 0 and terminal == b""
