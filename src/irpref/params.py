"""The rules for the options every command shares, in one place.

Each check raises :class:`irpref.errors.UsageError` with one message form,
``--rel 0: must be >= 1``, so the Python API and every subcommand refuse the
same values with the same words. The CLI applies them while it parses the
command line, before any input is read or any output printed.

Relevance level (``--rel``, trec_eval ``-l``): grade >= rel is relevant. Grades
are ``0`` for judged non-relevant and negative for "in the pool, unjudged"
(trec_eval's ``form_res_rels.c`` counts a document as relevant only when its
grade is >= 0 and >= the level). A level <= 0 would make judged non-relevant
documents (grade 0) relevant, so irpref's own commands refuse it; only the
``irpref trec_eval`` drop-in accepts ``-l 0`` as trec_eval does.
"""

from __future__ import annotations

import math

import numpy as np

from irpref.errors import UsageError

__all__ = [
    "check_alpha",
    "check_corpus_size",
    "check_depth",
    "check_nonnegative_int",
    "check_positive_int",
    "check_probability",
    "check_rel",
    "check_seed",
    "check_teleport",
]


def _who(flag: str, value) -> str:
    """``--rel 0`` for a command-line flag, ``rel=0`` for a Python keyword."""
    return f"{flag} {value}" if flag.startswith("-") else f"{flag}={value}"


def _int(flag: str, value) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    try:
        return int(str(value).strip(), 10)
    except ValueError:
        raise UsageError(f"{_who(flag, value)}: must be an integer") from None


def _float(flag: str, value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{_who(flag, value)}: must be a number") from None
    if math.isnan(out):
        raise UsageError(f"{_who(flag, value)}: must be a number")
    return out


def check_rel(value, flag: str = "--rel") -> int:
    """Relevance level: an integer >= 1 (grade 0 is judged non-relevant)."""
    rel = _int(flag, value)
    if rel < 1:
        raise UsageError(f"{_who(flag, value)}: must be >= 1 (grade 0 is judged non-relevant, "
                         "negative grades are unjudged)")
    return rel


def check_positive_int(value, flag: str) -> int:
    out = _int(flag, value)
    if out < 1:
        raise UsageError(f"{_who(flag, value)}: must be >= 1")
    return out


def check_nonnegative_int(value, flag: str) -> int:
    out = _int(flag, value)
    if out < 0:
        raise UsageError(f"{_who(flag, value)}: must be >= 0")
    return out


def check_depth(value, flag: str = "--depth") -> int | None:
    return None if value is None else check_positive_int(value, flag)


def check_corpus_size(value, flag: str = "--corpus-size") -> int | None:
    return None if value is None else check_positive_int(value, flag)


def check_seed(value, flag: str = "--seed") -> int | None:
    return None if value is None else check_nonnegative_int(value, flag)


def check_probability(value, flag: str, *, low_open: bool = True, high_open: bool = True) -> float:
    """A number in (0, 1) (bounds included when ``*_open`` is False)."""
    out = _float(flag, value)
    lo_ok = out > 0 if low_open else out >= 0
    hi_ok = out < 1 if high_open else out <= 1
    if not (lo_ok and hi_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise UsageError(f"{_who(flag, value)}: must be in {interval}")
    return out


def check_alpha(value, flag: str = "--alpha") -> float:
    return check_probability(value, flag)


def check_teleport(value, flag: str = "--teleport") -> float:
    """MC4 random-jump probability in [0, 1)."""
    return check_probability(value, flag, low_open=False)
