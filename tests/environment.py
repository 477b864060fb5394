"""A test helper: an environment variable set for the duration of a block."""

from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def setenv(name: str, value: str):
    """Run the block with ``name=value`` in the environment, then restore it
    (hypothesis forbids pytest's function-scoped monkeypatch)."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old
