"""``irpref.plot``: figures of evaluation results (see :mod:`irpref.report.plots`).

``import irpref.plot as ip; fig = ip.differences(results, "bm25", "AP")``;
every figure carries the numbers it draws in ``fig.irpref_data``.
Needs matplotlib (``pip install irpref[plot]``), imported on first use.
"""

from irpref.report.plots import *  # noqa: F403
from irpref.report.plots import __all__  # noqa: F401
