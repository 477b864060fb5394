"""Reports, tables and figures: :func:`build_report` (the report's one entry point;
needs matplotlib to write HTML or Markdown), :func:`write_report` (HTML, Markdown or
JSON by the file's suffix), :class:`ReportOptions`; the one table writer is
:mod:`irpref.report.formats`, the figures are :mod:`irpref.report.plots`
(``irpref.plot``). The report's modules load on first use, so a command that only
writes a table does not import them."""

from __future__ import annotations

__all__ = ["ReportOptions", "build_report", "write_report"]

_HOMES = {"build_report": "irpref.report.build", "ReportOptions": "irpref.report.context",
          "write_report": "irpref.report.document"}


def __getattr__(name: str):
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'irpref.report' has no attribute {name!r}")
