"""Wrong uses of irpref's public API that mypy must reject (tests/test_typing.py):
each line marked ``# error`` is one error mypy reports, so the annotations are
really read and really checked."""

from __future__ import annotations

import irpref

irpref.Settings(rel="2")  # error
irpref.evaluate({}, {}, 3.5)  # error
irpref.read_qrels(42)  # error
irpref.adjust_pvalues([0.1], method=1)  # error
irpref.worst_user(irpref.RecallLevelMetric(), [1, 2], n="big")  # error
wrong: int = irpref.parse_measure("AP")  # error
irpref.judge("qrels.txt")  # error
irpref.tukey_hsd("AP")  # error
