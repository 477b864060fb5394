"""Progress bars on standard error for long work, and nothing otherwise.

One rule for the whole package: a bar is drawn (tqdm) only when standard
error is a terminal and progress is not silenced (``irpref --quiet`` calls
:func:`silence`; a library user may call ``irpref.runtime.progress.silence()`` too).
When standard error is a file or a pipe, nothing at all is written, so logs
and captured output stay clean. Bars appear after ``DELAY`` seconds only:
short work never draws one.

    for batch in progress.track(batches, total=n, desc="HSD permutations"):
        ...
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["bar", "enabled", "silence", "silenced", "task", "track"]

T = TypeVar("T")
DELAY = 0.5  # seconds before a bar is drawn
_silenced = False


def silence(value: bool = True) -> None:
    """Switch progress bars off (``True``) or back to the terminal rule (``False``)."""
    global _silenced
    _silenced = bool(value)


def silenced() -> bool:
    """True when progress bars are switched off (:func:`silence`)."""
    return _silenced


def enabled() -> bool:
    """A bar is drawn: not silenced and standard error is a terminal."""
    if _silenced:
        return False
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


def track(iterable: Iterable[T], total: int | None = None, desc: str = "",
          unit: str = "it") -> Iterator[T]:
    """``iterable`` unchanged, with a bar on a terminal (see the module rule)."""
    if not enabled():
        yield from iterable
        return
    from tqdm import tqdm

    with tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
              delay=DELAY, dynamic_ncols=True) as bar:
        yield from bar


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def set_description(self, desc: str) -> None:
        pass


@contextlib.contextmanager
def task(total: int | None, desc: str = "", unit: str = "it"):
    """A bar advanced by hand (``bar.update(n)``); a no-op object off a terminal."""
    if not enabled():
        yield _NoBar()
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=DELAY,
              dynamic_ncols=True) as bar:
        yield bar


def bar(total: int | None, desc: str = "", unit: str = "it"):
    """A bar advanced by hand and closed by the caller (``close()``); no-op off a terminal."""
    if not enabled():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=DELAY,
                dynamic_ncols=True)
