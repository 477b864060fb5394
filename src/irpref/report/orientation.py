"""Which direction is better for a measure or preference, read from its record.

Every view (markers, wins/losses, bold best values, sort orders, legends,
plot colours) asks :func:`sign_of`: ``+1`` when higher is better, ``-1`` when
lower is (search lengths: ``ASL``, ``SL1``, ``SL3``, ``RE``), ``0`` when
neither (counts and coverage: ``NumRet``, ``Judged``...). The answer comes
from the measure's one record (``irpref.measures.base.Family.orientation``),
never from its name. A preference value is positive when it favours run_a,
so a preference is ``+1``.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["better_word", "sign_of"]


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
        return {"higher": 1, "lower": -1}.get(PREFERENCES[pref.name].orientation, 0)
    raise ValueError(f"{name!r} is neither a measure nor a preference")


def better_word(sign: int) -> str:
    """``"higher is better"``, ``"lower is better"`` or ``"no better direction"``."""
    return {1: "higher is better", -1: "lower is better"}.get(int(sign), "no better direction")
