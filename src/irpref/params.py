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

Tie policy (``--ties``, :data:`TIES`): ``docid`` (trec_eval: score descending,
then docid descending), ``input`` (file order among equal scores),
``expected`` (mean over all orderings of tied items).

Queries a run lacks (``--missing``, :data:`MISSING`): a judged query for which
a run retrieved nothing is ``skip``-ped (default, as trec_eval without ``-c``:
the run's means are over the queries it has) or scored as an empty ranking,
``zero`` for most measures (trec_eval ``-c``: means over every judged query).
Either way the evaluation warns, naming the run and the queries it lacks.

Each ``check_*`` takes the value and the name to print: the command-line flag
(``--rel``) or the Python keyword (``rel``). :func:`option_type` turns a check
into an argparse ``type=`` for a command that declares its own option.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

import numpy as np

from irpref.errors import UsageError

__all__ = [
    "DEFAULT_MISSING",
    "MISSING",
    "TIES",
    "check_alpha",
    "check_corpus_size",
    "check_choice",
    "check_depth",
    "check_missing",
    "check_nonnegative_int",
    "check_positive_int",
    "check_probability",
    "check_rel",
    "check_seed",
    "check_teleport",
    "check_ordering_ties",
    "check_ties",
    "option_type",
]

TIES = ("docid", "input", "expected")
"""Tie policies: ``docid`` (trec_eval: score desc, then docid desc), ``input``
(file order among equal scores), ``expected`` (mean over all orderings of
tied items)."""

ORDERING_TIES = ("docid", "input")
"""The tie policies that give each ranking one ordering (not ``expected``)."""

MISSING = ("skip", "zero")
"""What a judged query a run lacks counts: skipped (trec_eval) or an empty ranking (``-c``)."""

DEFAULT_MISSING = "skip"
"""The default of ``missing`` everywhere (CLI and Python): trec_eval's, without ``-c``."""


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


def check_choice(value, flag: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (exact text)."""
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{_who(flag, value)}: must be one of {', '.join(choices)}")
    return value


def check_ties(value, flag: str = "--ties") -> str:
    """A tie policy of :data:`TIES`."""
    return check_choice(value, flag, TIES)


def check_ordering_ties(value, flag: str = "--ties") -> str:
    """A tie policy that yields one ordering (:data:`ORDERING_TIES`): what
    preferences and the commands comparing orderings accept."""
    return check_choice(value, flag, ORDERING_TIES)


def check_missing(value, flag: str = "--missing") -> str:
    """A rule for queries a run lacks, of :data:`MISSING`."""
    return check_choice(value, flag, MISSING)


def option_type(check: Callable, flag: str) -> Callable[[str], object]:
    """An argparse ``type=`` applying ``check`` (its message, raised as
    ``argparse.ArgumentTypeError``): ``add_argument("--rel", type=option_type(
    check_rel, "--rel"))``."""

    def convert(text: str):
        try:
            return check(text, flag)
        except UsageError as exc:  # argparse prefixes "argument FLAG: "
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{flag} ")) from None

    convert.__name__ = flag.lstrip("-")
    return convert
