"""Reports, tables and figures: :func:`build_report` (the report's one entry point;
needs matplotlib to write HTML or Markdown), :func:`write_report` (HTML, Markdown or
JSON by the file's suffix); the one table writer is :mod:`irpref.report.formats`, the
figures are :mod:`irpref.report.plots` (``irpref.plot``)."""

from irpref.report.build import build_report
from irpref.report.context import ReportOptions
from irpref.report.document import write_report

__all__ = ["ReportOptions", "build_report", "write_report"]
