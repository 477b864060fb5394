"""trec_eval's ``-Z``: z-scores against reference means (get_zscores.c, convert_zscores.c)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irpref.errors import InputError

__all__ = ["MISSING_ZSCORE", "ZScores", "read_zscores", "to_zscores"]

MISSING_ZSCORE = -1000000.0
"""What trec_eval prints for a value without a usable mean and deviation."""

ZScores = dict[str, dict[str, tuple[float, float]]]


def read_zscores(path: str) -> ZScores:
    """A ``-Z`` file: lines ``qid measure_name mean stddev`` (whitespace
    separated; get_zscores.c). Returns {qid: {measure: (mean, stddev)}}.

    Refused with :class:`~irpref.errors.InputError` naming the line: a line
    without exactly four fields (trec_eval: "Malformed line", blank lines
    included), a mean or deviation that is not a number (trec_eval's ``atof``
    would read 0), the same query and measure twice (trec_eval would keep one
    of them at random).
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(path, None, f"cannot read the z-score file ({exc.strerror})") from None
    if not data:
        raise InputError(path, None, "empty z-score file")
    out: ZScores = {}
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        text = raw.decode("utf-8", "replace")
        fields = text.split()
        if len(fields) != 4:
            raise InputError(path, number, "expected 'qid measure mean stddev'", text)
        qid, meas, mean, sd = fields
        try:
            pair = (float(mean), float(sd))
        except ValueError:
            raise InputError(path, number, "mean and stddev must be numbers", text) from None
        if meas in out.setdefault(qid, {}):
            raise InputError(path, number, f"query {qid} measure {meas} given twice", text)
        out[qid][meas] = pair
    return out


def to_zscores(values: dict[str, np.ndarray | list[str]], requested: Sequence,
               queries: np.ndarray, zscores: ZScores) -> dict[str, np.ndarray | list[str]]:
    """Every per-query value as ``(value - mean) / stddev`` (convert_zscores.c).

    The mean and deviation are those of the query and the printed measure
    name; without them, or with a zero deviation and a value other than the
    mean, the value is :data:`MISSING_ZSCORE`; a zero deviation and the mean
    itself give 0. relstring is left as it is.
    """
    out: dict[str, np.ndarray | list[str]] = dict(values)
    for req in requested:
        if req.spec.name in ("runid", "relstring"):
            continue
        for label in req.names:
            raw = np.asarray(values[label], dtype=np.float64)
            mean = np.full(len(queries), np.nan)
            sd = np.full(len(queries), np.nan)
            for q, qid in enumerate(queries):
                pair = zscores.get(str(qid), {}).get(label)
                if pair is not None:
                    mean[q], sd[q] = pair
            known = ~np.isnan(mean)
            z = np.full(len(queries), MISSING_ZSCORE)
            scaled = known & (sd != 0)
            z[scaled] = (raw[scaled] - mean[scaled]) / sd[scaled]
            z[known & (sd == 0) & (raw == mean)] = 0.0
            out[label] = z
    return out
