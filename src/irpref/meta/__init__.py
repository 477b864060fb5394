"""Meta-evaluation: discriminative power, ties, degradation, orientation.

The experiments of ``irpref meta`` are records in :mod:`irpref.meta.catalog`
(one per subcommand: name, help, options, functions); each record names the
Python functions it exports here, e.g. ``tie_rates``, ``agreement``,
``degrade``, ``subsample``, ``tie_table``, ``worst_case_agreement``. They are
loaded on first use: the attribute table below is generated from the records
and only spares ``import irpref.meta`` the cost of importing every
experiment module.
"""

from __future__ import annotations

import importlib

from irpref.meta.catalog import exports

_LAZY = exports()  # function name -> module, from the records


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"irpref.meta.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'irpref.meta' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
