"""The optional C kernels (``irpref._kernels``, ``irpref._prefs``), chosen by ``IRPREF_KERNELS``.

``c_kernels()`` returns the compiled module, or None when it is not built or
``IRPREF_KERNELS=numpy``; ``IRPREF_KERNELS=c`` insists on it. Every caller has
a NumPy path that gives the same numbers (the randomized Tukey HSD and RPP's
level sums bit for bit, the residual bounds' largest gain ratio to rounding).
"""

from __future__ import annotations

import importlib
import os

from irpref.errors import UsageError

__all__ = ["KERNELS_ENV", "c_kernels"]

KERNELS_ENV = "IRPREF_KERNELS"


def c_kernels(module: str = "_kernels"):
    """The C module ``irpref._kernels`` (or ``irpref.<module>``, e.g. ``_prefs``), or
    None (not built, or ``IRPREF_KERNELS=numpy``)."""
    choice = os.environ.get(KERNELS_ENV, "").strip().lower()
    if choice not in ("", "c", "numpy"):
        raise UsageError(f"{KERNELS_ENV} must be 'c' or 'numpy', got {choice!r}")
    if choice == "numpy":
        return None
    try:
        return importlib.import_module(f"irpref.{module}")
    except ImportError:
        if choice == "c":
            raise ImportError(f"{KERNELS_ENV}=c but the C extension irpref.{module} is not "
                              "built (reinstall irpref with a C compiler)") from None
        return None
