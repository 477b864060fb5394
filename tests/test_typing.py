"""The public API type-checks as a client sees it (``py.typed``, mypy --strict).

``tests/typecheck/client.py`` uses every name of ``irpref.__all__`` with the types
a user would write and must pass; ``tests/typecheck/misuse.py`` misuses it, and
mypy must report exactly the lines marked ``# error`` there, which shows that
irpref's annotations are read (through its ``py.typed`` marker) and checked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "typecheck"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("mypy")]


def _mypy(target: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(HERE / "mypy.ini"),
         "--cache-dir", str(cache), "--no-error-summary", "--show-error-codes",
         str(target)], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def test_the_marker_is_shipped():
    import irpref

    assert (Path(irpref.__file__).parent / "py.typed").is_file()


def test_the_client_type_checks(cache):
    import irpref

    text = (HERE / "client.py").read_text(encoding="utf-8")
    unused = [n for n in irpref.__all__ if not re.search(rf"\birpref\.{n}\b", text)]
    assert not unused, f"the client does not use {unused}"
    proc = _mypy(HERE / "client.py", cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_misuse_is_reported_line_by_line(cache):
    lines = (HERE / "misuse.py").read_text(encoding="utf-8").splitlines()
    marked = {i for i, line in enumerate(lines, 1) if line.rstrip().endswith("# error")}
    proc = _mypy(HERE / "misuse.py", cache)
    reported = {int(m.group(1)) for m in re.finditer(r"misuse\.py:(\d+): error", proc.stdout)}
    assert reported == marked, proc.stdout + proc.stderr
