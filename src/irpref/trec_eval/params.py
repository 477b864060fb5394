"""trec_eval's ``-m`` parameters as meas_init.c and gain_init.c read them.

Cut-offs and real parameters through C's ``atol``/``atof`` (``23.4`` is 23,
``x`` is 0), ``name=value`` pairs (``get_param_pairs``), ndcg's custom gains
(``ndcg.1=3,2=9``) and the gains trec_eval 10.0 cannot order
(:func:`refuse_ambiguous_gains`). Errors are :class:`TrecEvalError`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = ["TrecEvalError", "atof", "atol", "ndcg_gains", "param_pairs",
           "refuse_ambiguous_gains", "valid_int"]


class TrecEvalError(ValueError):
    """A trec_eval error: bad measure or parameters, or nothing to evaluate.

    ``usage`` marks an error of the request found only once the data is read
    (the CLI exits 2 for it, 1 for the others)."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix, 0.0 if none."""
    m = re.match(r"\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)", text)
    return float(m.group(0)) if m else 0.0


def atol(text: str) -> int:
    """C ``atol``: optional blanks and sign, then the leading digits; 0 if none
    (trec_eval reads cut-offs so: ``23.4`` is 23, ``x`` is 0)."""
    m = re.match(r"[ \t\n\v\f\r]*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def valid_int(text: str) -> bool:
    """gain_init.c's ``valid_int``: an optional sign, then only digits."""
    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def param_pairs(params: str) -> list[tuple[str, float]]:
    """``name=value,...`` as meas_init.c's ``get_param_pairs`` reads it: every
    item holds one '=', values are C ``atof``; anything else is malformed."""
    last = ","
    for ch in params:
        if ch in ",=":
            if ch == last:
                last = ","
                break
            last = ch
    if last != "=":
        raise TrecEvalError(f"trec_eval: malformed pair parameters in '{params}'")
    out = []
    for item in params.split(","):
        name, _, value = item.partition("=")
        out.append((name, atof(value)))
    return out


def ndcg_gains(params: str) -> dict[int, float]:
    """trec_eval's custom gains of ``-m ndcg.1=3,2=9`` (gain_init.c): the pairs
    whose name is an integer; other names are ignored, as trec_eval ignores them.
    A negative level (trec_eval's unjudged codes) or a level given twice is
    refused: trec_eval's answer then depends on its sort order."""
    for item in params.split(","):
        level, _, value = item.partition("=")
        if valid_int(level) and not _NUMBER.fullmatch(value.strip()):
            # trec_eval's atof would read 'x' as gain 0 and print a number: refused here
            raise TrecEvalError(f"irpref trec_eval: ndcg.{params}: the gain of level {level} "
                                f"is {value!r}, not a number")
    pairs = [(int(k), v) for k, v in param_pairs(params) if valid_int(k)]
    levels = [k for k, _ in pairs]
    if any(k < 0 for k in levels):
        raise TrecEvalError(f"irpref trec_eval: ndcg.{params}: gains of negative relevance "
                            "levels (unjudged documents) are not supported")
    if len(set(levels)) != len(levels):
        raise TrecEvalError(f"irpref trec_eval: ndcg.{params}: a relevance level is given "
                            "twice")
    if not all(np.isfinite(v) for _, v in pairs):
        raise TrecEvalError(f"irpref trec_eval: ndcg.{params}: gains must be finite")
    return dict(pairs)


def refuse_ambiguous_gains(requested: Sequence, query: np.ndarray,
                           grade: np.ndarray) -> None:
    """Refuse custom ndcg gains that trec_eval 10.0 may order wrongly.

    gain_init.c sorts a query's gains with a comparison that truncates their
    difference to an integer (``comp_rel_gain``), so two gains less than 1
    apart compare equal and the ideal ranking of m_ndcg.c then depends on the
    sort's internals. The gains that matter are those of the levels the query
    judges (listed, or the default gain = level) and any gain <= 0 (the ideal
    ranking stops at the first one it meets); ``query`` and ``grade`` are the
    qrels' rows.
    """
    custom = [req for req in requested if req.gains]
    if not custom:
        return
    pairs = np.unique(np.stack([np.unique(query, return_inverse=True)[1],
                                np.asarray(grade, np.int64)]), axis=1)
    levels = np.split(pairs[1], np.flatnonzero(np.diff(pairs[0])) + 1)
    for req in custom:
        spoilers = {g for g in req.gains.values() if g <= 0}
        for present in {tuple(int(x) for x in lv if x >= 0) for lv in levels}:
            if not present:
                continue
            gains = {float(req.gains.get(k, k)) for k in present} | spoilers
            gains |= {0.0} if 0 not in req.gains else set()
            g = sorted(gains)
            close = [(a, b) for a, b in zip(g, g[1:]) if b - a < 1.0]
            if close:
                a, b = close[0]
                raise TrecEvalError(
                    f"irpref trec_eval: ndcg.{req.params}: gains {a:g} and {b:g} differ by "
                    "less than 1; trec_eval 10.0 compares gains truncated to integers, so its "
                    "ideal ranking is then not defined (choose gains at least 1 apart)",
                    usage=True)
