"""Shared test fixtures: the real TREC data shipped in tests/data (see its README)."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the test data is missing: expected it at {DATA}")
    return DATA
