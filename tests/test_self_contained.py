"""The test suite runs from a bare checkout: every file it reads is in tests/data."""

from __future__ import annotations

import re
from pathlib import Path

THIS = Path(__file__).resolve()
TESTS = THIS.parent
# "../shared", or a path built from a parent folder and "shared" (this file is skipped)
SHARED = re.compile(r"\.\./shared|parents?\b.*[\"']shared[\"']|[\"']shared[\"']\s*/")


def test_no_test_reads_the_shared_folder():
    offenders = []
    for path in sorted(TESTS.rglob("*")):
        if path.suffix not in {".py", ".sh", ".cfg", ".ini", ".toml"} or path == THIS:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if SHARED.search(line):
                offenders.append(f"{path.relative_to(TESTS)}:{number}: {line.strip()}")
    assert not offenders, "tests must read tests/data, not the shared folder:\n" + "\n".join(
        offenders
    )


def test_shipped_data_is_documented(data_dir):
    assert data_dir == TESTS / "data"
    readme = (data_dir / "README.md").read_text()
    for folder in sorted(p.name for p in data_dir.iterdir() if p.is_dir()):
        assert f"`{folder}/`" in readme, f"tests/data/{folder} is not described in its README"
