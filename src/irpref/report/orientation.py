"""Which direction is better for a measure or preference, read from its record.

Every view (markers, wins/losses, bold best values, sort orders, legends,
plot colours) asks :func:`sign_of`: ``+1`` when higher is better, ``-1`` when
lower is (search lengths: ``ASL``, ``SL1``, ``SL3``, ``RE``), ``0`` when
neither (counts and coverage: ``NumRet``, ``Judged``...). The answer comes
from the measure's or preference's one record (``irpref.measures.base.Family.
orientation``, ``irpref.preferences.registry.PrefFamily.orientation``), never
from its name. A record's word turns into a sign by :func:`orientation_sign`
(the one table of the three words); :func:`direction_note` is the one legend
text that names the measures whose better direction is not "higher".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from irpref.measures.base import ORIENTATION_SIGNS, orientation_sign

__all__ = ["ORIENTATIONS", "better_word", "direction_note", "orientation_sign", "sign_of"]

ORIENTATIONS = ORIENTATION_SIGNS  # the record layer's table (measures.base)


@lru_cache(maxsize=1024)
def sign_of(name: str) -> int:
    """+1 (higher is better), -1 (lower is better) or 0 (neither) for a measure
    or preference label (any accepted spelling)."""
    from irpref.errors import UsageError
    from irpref.measures import parse_measure
    from irpref.preferences import PREFERENCES, parse_preference

    try:
        return int(parse_measure(str(name)).sign)
    except (UsageError, ValueError):
        pass
    pref = parse_preference(str(name))  # raises when it is neither
    if pref.name in PREFERENCES:  # its record's orientation, as for a measure
        return orientation_sign(PREFERENCES[pref.name].orientation)
    raise ValueError(f"{name!r} is neither a measure nor a preference")


def better_word(sign: int) -> str:
    """``"higher is better"``, ``"lower is better"`` or ``"no better direction"``."""
    return {1: "higher is better", -1: "lower is better"}.get(int(sign), "no better direction")


def direction_note(measures: Iterable[str]) -> str:
    """The legend clause for the measures whose better direction is not "higher",
    e.g. ``lower is better for ASL; NumRet: no better direction, no mark``; ``""``
    when every measure is higher-is-better (callers join it with ``"; "``)."""
    names = [str(m) for m in dict.fromkeys(measures)]
    lower = [m for m in names if sign_of(m) < 0]
    none = [m for m in names if sign_of(m) == 0]
    parts = []
    if lower:
        parts.append(f"lower is better for {', '.join(lower)}")
    if none:
        parts.append(f"{', '.join(none)}: no better direction, no mark")
    return "; ".join(parts)
