"""The one loader of the optional C extensions (``irpref._native.*``), and its policy.

:func:`native` returns the compiled module ``irpref._native.<name>``
(``kernels``, ``prefs``, ``scan``, ``strings``; setup.py builds each from the
C files named after it), or None, and every caller has a NumPy / Arrow path
that gives the same numbers (the randomized Tukey HSD, RPP's level sums and
the judged layouts bit for bit, the residual bounds' largest gain ratio to
rounding). One environment policy decides:

- ``IRPREF_KERNELS``: unset or empty, each extension that is built;
  ``numpy``, none (the pure-Python paths everywhere); ``c``, every one, and
  a :class:`~irpref.errors.UsageError` naming the missing one when it is not
  built. Any other value is a usage error.
- ``IRPREF_SCAN``: ``c`` (default) or ``python``; ``python`` turns off the
  one-pass C reader of TREC files only (the tests compare both readers).

An installation built with ``IRPREF_NO_EXTENSIONS=1`` (a pure-Python wheel)
has none of them, and gives the same numbers.
"""

from __future__ import annotations

import importlib
import os

from irpref.errors import UsageError

__all__ = ["ENV", "NAMES", "SCAN_ENV", "native"]

ENV = "IRPREF_KERNELS"
SCAN_ENV = "IRPREF_SCAN"
NAMES = ("kernels", "prefs", "scan", "strings")


def _choice(env: str, allowed: tuple[str, str], default: str = "") -> str:
    choice = os.environ.get(env, "").strip().lower() or default
    if choice not in ("", *allowed):
        if env == SCAN_ENV:
            raise UsageError(f"{env} must be 'c' or 'python', not {choice!r}")
        raise UsageError(f"{env} must be 'c' or 'numpy', got {choice!r}")
    return choice


def native(name: str):
    """The C module ``irpref._native.<name>``, or None (not built, or switched off
    by ``IRPREF_KERNELS=numpy`` or, for ``scan``, ``IRPREF_SCAN=python``).

    Raises :class:`~irpref.errors.UsageError` for a bad value of either
    variable, and when ``IRPREF_KERNELS=c`` insists on a module that is not built."""
    if name not in NAMES:
        raise ValueError(f"no C extension irpref._native.{name} (one of {', '.join(NAMES)})")
    choice = _choice(ENV, ("c", "numpy"))
    if name == "scan" and _choice(SCAN_ENV, ("c", "python"), "c") == "python":
        return None
    if choice == "numpy":
        return None
    try:
        return importlib.import_module(f"irpref._native.{name}")
    except ImportError:
        if choice == "c":
            raise UsageError(f"{ENV}=c but the C extension irpref._native.{name} is not "
                             "built (reinstall irpref with a C compiler)") from None
        return None
