"""Which way a test points: the one rule behind every verdict, mark, letter and rank.

A significant comparison says run_a is ``better`` or ``worse`` than run_b. The
direction is read from the statistic the test itself used, the side whose
one-sided p-value is the smaller, oriented by the measure's record (a lower
ASL is better, :data:`irpref.measures.base.ORIENTATION_SIGNS`):

========================  ===========================================================
test                      direction of run_a over run_b
========================  ===========================================================
t, hsd, tukey, ppi        sign of the mean difference (``mean``: t's sign; hsd and
                          tukey rank |mean|, a max over all pairs, both ways)
sign                      wins - losses (already oriented)
wilcoxon                  W+ - W-, the signed-rank sums (sign of the rank-biserial
                          ``effect``; Wilcoxon 1945, Kerby 2014), not the mean
========================  ===========================================================

The mean and the signed ranks can disagree: 25 queries won by 1/6 and 5 lost
by 0.99 have a negative mean and W+ - W- = 325 - 140 > 0 (the Wilcoxon test
favours run_a, one-sided p 0.020). A measure without a better direction
(``NumRet``) has no direction (0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irpref.measures.base import ORIENTATION_SIGNS

__all__ = ["DIRECTION_OF", "MEAN_TESTS", "directions", "orientation_signs", "row_directions"]

MEAN_TESTS = ("t", "hsd", "tukey", "ppi")
"""Tests that compare means: their direction is the sign of the mean difference."""

DIRECTION_OF = {"t": "the mean difference", "hsd": "the mean difference",
                "tukey": "the mean difference", "ppi": "the mean difference",
                "sign": "wins - losses", "wilcoxon": "the signed ranks (W+ - W-)"}
"""What a test's direction is read from, as a legend names it."""


def directions(test, orientation, mean, effect, wins, losses) -> np.ndarray:
    """+1 (run_a better), -1 (worse) or 0 per row, by :data:`DIRECTION_OF` (see the
    module doc): ``test`` and ``orientation`` (``higher``/``lower``/``none``) are
    per-row words, ``mean`` the raw mean difference run_a - run_b, ``effect`` the
    row's effect (the rank-biserial correlation on Wilcoxon rows, raw), ``wins`` /
    ``losses`` the oriented counts. An unknown test is an error, never a guess."""
    codes, names = pd.factorize(pd.Series(test, dtype=object) if not isinstance(
        test, pd.Series) else test)
    unknown = set(map(str, names)) - set(DIRECTION_OF)
    if unknown or (codes < 0).any():
        raise ValueError(f"no direction rule for test(s) "
                         f"{', '.join(sorted(unknown)) or 'missing'}")
    names = list(names)
    is_sign = codes == (names.index("sign") if "sign" in names else -2)
    is_wilcoxon = codes == (names.index("wilcoxon") if "wilcoxon" in names else -2)
    orient = orientation_signs(orientation)
    with np.errstate(invalid="ignore"):
        raw = np.where(is_wilcoxon, np.sign(_floats(effect)), np.sign(_floats(mean)))
        oriented = np.where(is_sign, np.sign(_floats(wins) - _floats(losses)), raw * orient)
    return np.where(orient == 0, 0.0, np.nan_to_num(oriented)).astype(np.int8)


def orientation_signs(orientation) -> np.ndarray:
    """+1 / -1 / 0 (float) per row of orientation words (``higher``, ``lower``, ``none``;
    anything else, NaN included, 0), one dictionary look-up per distinct word."""
    codes, words = pd.factorize(orientation if isinstance(orientation, pd.Series)
                                else pd.Series(orientation, dtype=object))  # NaN: -1
    signs = np.array([ORIENTATION_SIGNS.get(w, 0) for w in words] + [0], dtype=np.float64)
    return signs[codes]


def row_directions(frame: pd.DataFrame, mean: str = "mean") -> np.ndarray:
    """:func:`directions` of the rows of a test table (:func:`irpref.stats.significance`,
    or a table with its columns; ``mean``: the column of the raw difference, ``diff``
    in :func:`irpref.stats.against_baselines`)."""
    missing = np.full(len(frame), np.nan)
    return directions(frame["test"], frame["orientation"], frame[mean],
                      frame.get("effect", missing), frame.get("wins", missing),
                      frame.get("losses", missing))


def _floats(values) -> np.ndarray:
    """A float array (pandas nullable NA -> NaN)."""
    if isinstance(values, pd.Series):
        return pd.to_numeric(values).to_numpy(np.float64, na_value=np.nan)
    return np.asarray(values, dtype=np.float64)
