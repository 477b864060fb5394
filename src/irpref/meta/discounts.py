"""Parse the position discounts the meta analyses take: ``RBP(p=...)`` or a plain name."""

from __future__ import annotations

import re

from irpref.errors import UsageError

__all__ = ["parse_discount"]


def parse_discount(
    text: str, names: dict[str, str], default_p: float, what: str = "discount"
) -> tuple[str, float]:
    """``(name, p)`` for ``text``, one of ``names`` (lower case -> printed name),
    case-insensitive; only RBP takes ``p``, which must lie in (0, 1)."""
    m = re.fullmatch(r"\s*([a-z]+)\s*(?:\(\s*p\s*=\s*([0-9.eE+-]+)\s*\))?\s*", str(text),
                     re.IGNORECASE)
    name = names.get(m.group(1).lower()) if m else None
    if name is None:
        choices = ", ".join("RBP(p=...)" if n == "RBP" else n for n in names.values())
        raise UsageError(f"{what} {text!r}: must be one of {choices}")
    if m.group(2) is not None and name != "RBP":
        raise UsageError(f"{text}: only RBP takes a parameter")
    p = float(m.group(2)) if m.group(2) is not None else default_p
    if name == "RBP" and not 0 < p < 1:
        raise UsageError(f"RBP(p={p}): p must be in (0, 1)")
    return name, p
