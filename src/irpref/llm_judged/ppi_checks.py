"""What a prediction-powered interval can claim, said where it is printed.

The PPI entry points (:mod:`irpref.llm_judged.prediction_powered`) call these after
:func:`irpref.llm_judged.ppi.ppi_mean`: per row a ``note`` (empty when there is
nothing to say) that every output format prints, and one warning per kind:

- ``all N human values equal C``: no spread to estimate; the interval is the
  range bound of :func:`~irpref.llm_judged.ppi.ppi_mean` (Clopper-Pearson on the
  share of queries that differ), not a t interval;
- ``estimate outside [LO, HI]``: the estimate lies outside the measure's range
  (read from its record); PPI's correction is unbiased, not range-respecting;
- ``machine values all equal``: the machine labels carry no information on this
  row (weight 0): the estimate is the human labels' alone;
- few human-judged queries (:data:`SMALL_SAMPLE`), and a machine judge grading
  on another scale than the human one (:func:`announce_scales`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

__all__ = ["SMALL_SAMPLE", "ScaleMismatch", "SmallSample", "Unusual", "announce_scales",
           "measure_range", "notes", "preference_range", "warn_small_pilot",
           "warn_small_sample"]

SMALL_SAMPLE = 10
"""Fewer human-judged queries than this: below the smallest sample the coverage study
(``benchmarks/bench_ppi_coverage.py``) checked."""


class SmallSample(UserWarning):
    """Few human-judged queries: the interval's level has not been checked there."""


class Unusual(UserWarning):
    """PPI rows the ``note`` column flags (all human values equal, an estimate outside
    the measure's range, constant machine values)."""


class ScaleMismatch(UserWarning):
    """The machine and the human qrels grade on different scales."""


def _bounds(spec: str) -> tuple[float, float]:
    from irpref.measures.base import range_bounds

    lo, _, hi, _ = range_bounds(spec)
    return lo, hi


def measure_range(measure, *, difference: bool = False) -> tuple[float, float]:
    """(low, high) of a measure's values from its record (``range``), or of the
    difference of two of them (``difference``: [lo - hi, hi - lo])."""
    lo, hi = _bounds(measure.family.range)
    return (lo - hi, hi - lo) if difference else (lo, hi)


def preference_range(name: str) -> tuple[float, float]:
    """(low, high) of a preference's values from its record."""
    from irpref.preferences.registry import parse_preference

    return _bounds(parse_preference(name).family.range)


def warn_small_sample(n: np.ndarray, interval: str, stacklevel: int = 3) -> None:
    """One :class:`SmallSample` warning when some row has fewer than :data:`SMALL_SAMPLE`
    human-judged queries, or, for ppi_py's ``normal`` interval, fewer than 30."""
    least = int(np.min(n)) if len(n) else SMALL_SAMPLE
    if interval == "normal" and least < 30:
        warnings.warn(SmallSample(
            f"ppi_py's normal interval from {least} human-judged queries covers less than "
            "its level below about 30 (95% intervals from 10 queries covered 84-94% in the "
            "README's coverage study, RR at rel 1 66%): the default --ppi-interval t holds "
            "it from 10"), stacklevel=stacklevel)
    elif least < SMALL_SAMPLE:
        warnings.warn(SmallSample(
            f"PPI intervals from {least} human-judged queries: the coverage study behind "
            f"the interval starts at {SMALL_SAMPLE} queries; from fewer, its level rests "
            "on the per-query errors being close to normal, which so few queries cannot "
            "check"), stacklevel=stacklevel)


def warn_small_pilot(pilot_n: np.ndarray, stacklevel: int = 3) -> None:
    """One :class:`SmallSample` warning when a design's pilot has fewer than
    :data:`SMALL_SAMPLE` human-judged queries."""
    least = int(np.min(pilot_n)) if len(pilot_n) else SMALL_SAMPLE
    if least < SMALL_SAMPLE:
        warnings.warn(SmallSample(
            f"a pilot of {least} human-judged queries is too small to plan from: its "
            f"variances rest on {least - 1} degree{'s' if least != 2 else ''} of freedom "
            "(n_ppi_low-n_ppi_high: the plans they allow, which ignore the uncertainty of "
            f"rho, estimated from the same {least} queries); judge at least "
            f"{SMALL_SAMPLE} queries before planning"),
            stacklevel=stacklevel)


def notes(result, y: np.ndarray, machine: np.ndarray, ranges: np.ndarray,
          names: Sequence[str], stacklevel: int = 3) -> np.ndarray:
    """The ``note`` of each row of ``result`` (a :class:`~irpref.llm_judged.ppi.PPIMean`)
    and one :class:`Unusual` warning per kind naming the rows (at most 5).

    y:       (rows, units) human values of the labelled units used (NaN elsewhere).
    machine: (rows, units) machine values on every unit.
    ranges:  (rows, 2) the range of each row's values."""
    out = [[] for _ in range(len(result.estimate))]
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows
        common = np.nanmax(y, axis=1) if y.shape[1] else np.full(len(out), np.nan)
        outside = (result.estimate < ranges[:, 0]) | (result.estimate > ranges[:, 1])
        flat = np.nanmax(machine, axis=1) == np.nanmin(machine, axis=1)
    kinds = {
        "bounded": (result.bounded, lambda i: f"all {int(result.n[i])} human values equal "
                    f"{common[i]:g}: range bound, not a t interval"),
        "outside": (outside, lambda i: f"estimate outside the measure's range "
                    f"[{ranges[i, 0]:g}, {ranges[i, 1]:g}]"),
        "flat": (flat & ~np.isnan(result.estimate), lambda i: "machine values all equal: "
                 "the human labels alone"),
    }
    said = {
        "bounded": "the human-judged values are all equal: their interval is the "
                   "measure's range shrunk by the Clopper-Pearson bound on the share of "
                   "queries that differ (a t or normal interval would have width 0)",
        "outside": "the PPI estimate lies outside the measure's range (the machine "
                   "labels' correction is unbiased, not bounded): the mean itself is in "
                   "the range, so only the part of the interval inside it is informative",
        "flat": "every machine value is the same: the machine labels carry nothing and "
                "the estimate is the human labels' alone",
    }
    for kind, (mask, text) in kinds.items():
        rows = np.flatnonzero(mask)
        for i in rows:
            out[i].append(text(i))
        if len(rows):
            shown = ", ".join(names[i] for i in rows[:5]) + (", ..." if len(rows) > 5 else "")
            warnings.warn(Unusual(f"{len(rows)} PPI row{'s' if len(rows) > 1 else ''} "
                                  f"({shown}): {said[kind]}; see the note column"),
                          stacklevel=stacklevel)
    return np.array(["; ".join(parts) for parts in out], dtype=object)


def announce_scales(machine_grades: np.ndarray, human_grades: np.ndarray, rel: int,
                    machine_source: str, human_source: str, stacklevel: int = 3) -> None:
    """One :class:`ScaleMismatch` warning when the two qrels grade on different scales
    (their highest grades differ), saying what it does at relevance level ``rel``."""
    if not len(machine_grades) or not len(human_grades):
        return
    top_m, top_h = int(np.max(machine_grades)), int(np.max(human_grades))
    if top_m == top_h:
        return
    low_m, low_h = int(np.min(machine_grades)), int(np.min(human_grades))
    text = (f"the machine qrels {machine_source} grade {low_m}-{top_m}, the human qrels "
            f"{human_source} {low_h}-{top_h}: ")
    if top_m < rel <= top_h:
        text += (f"at --rel {rel} no machine label is relevant, so every binary measure "
                 "has the same machine value on every query and PPI gives the human labels "
                 "alone (lambda 0); map the machine grades onto the human scale or lower "
                 "--rel")
    elif top_h < rel <= top_m:
        text += f"at --rel {rel} no human label is relevant: every human value is the same"
    else:
        text += ("graded measures (nDCG, ERR, RPP) weigh the two scales differently; the "
                 "interval stays valid, and the machine labels help as far as they "
                 "correlate with the human ones (lambda)")
    warnings.warn(ScaleMismatch(text), stacklevel=stacklevel)
