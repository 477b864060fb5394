"""Groups of runs that do not differ: a compact letter display, or ranges of board rows.

Both read one boolean matrix ``different[i, j]`` (the pair differs significantly
in the family behind a leaderboard) and the board's order of the runs:

- :func:`letter_display`: two runs share a letter exactly when they do not
  differ (Piepho 2004). The letters are a-z, A-Z and the 24 Greek lower-case
  letters (76 in all); a display that needs more continues with CJK ideographs
  (one character each: U+4E00 on), which few fonts show well. On a 1,000-run
  board of a measure that separates most pairs a run can hold hundreds of
  letters;
- :func:`group_ranges`: per run, the rows of the board (1 = the first row of the
  measure) holding the runs it does not differ from, itself included, as ranges
  (``3-17,19``): readable on any board, and exact (a gap shows a run it differs
  from).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["GROUPS", "LETTERS", "group_ranges", "letter", "letter_display"]

GROUPS = ("auto", "letters", "ranges")
"""How a leaderboard shows its groups: ``letters`` (:func:`letter_display`), ``ranges``
(:func:`group_ranges`), or ``auto``: letters while every measure has at most
``len(LETTERS)`` (76) runs and its display needs at most 76 letters, ranges otherwise
(a display of 1,000 runs takes seconds to find and can need hundreds of letters)."""


LETTERS = ("abcdefghijklmnopqrstuvwxyz" "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           + "".join(chr(c) for c in range(0x3B1, 0x3CA) if c != 0x3C2))
"""The first letters of a display; beyond them, CJK ideographs (one character each)."""


def letter(k: int) -> str:
    """The k-th letter (0-based): a-z, A-Z, Greek, then CJK ideographs."""
    return LETTERS[k] if k < len(LETTERS) else chr(0x4E00 + k - len(LETTERS))


def letter_display(different: np.ndarray, order: Sequence[int] | None = None) -> list[str]:
    """A compact letter display: per run, a string of letters such that two runs share
    a letter exactly when ``different[i, j]`` is False (their difference is not
    significant).

    The letters are the maximal cliques of the graph of not-significantly-different
    runs, the sets the insert-absorb algorithm converges to (Piepho, "An algorithm
    for a letter-based representation of all-pairwise comparisons", J. Comput.
    Graph. Stat. 13, 2004: start from one letter holding every run, split each
    letter holding a significant pair in two, absorb letters inside others); they
    are found here directly by Bron-Kerbosch with pivoting (Tomita, Tanaka &
    Takahashi 2006), which stays fast when most pairs differ. Piepho's sweep then
    drops, smallest first, every letter whose pairs and runs other letters still
    cover. A significant pair never shares a letter (a clique holds none) and a
    non-significant pair always does (it lies in a maximal clique, and the sweep
    keeps it covered). Letters are named in ``order`` (default: run order): ``a``
    is the letter of the first run. Few letters, not a proven minimum (finding that
    is NP-hard).
    """
    diff = np.asarray(different, bool)
    r = diff.shape[0]
    if r == 0:
        return []
    alike = ~diff
    np.fill_diagonal(alike, False)
    neighbours = [_bits(np.flatnonzero(alike[i])) for i in range(r)]
    letters = _sweep(_maximal_cliques(neighbours, r), r)
    order = np.arange(r) if order is None else np.asarray(order, dtype=np.intp)
    position = np.empty(r, np.intp)
    position[order] = np.arange(r)
    members = [list(_members(c)) for c in letters]
    letters = [c for _, c in sorted(zip((min(position[m]) for m in members), letters),
                                    key=lambda x: x[0])]
    groups = [""] * r
    for k, c in enumerate(letters):
        name = letter(k)
        for j in _members(c):
            groups[j] += name
    return groups


def _bits(indices) -> int:
    """A Python int with the bits ``indices`` set."""
    out = 0
    for i in indices:
        out |= 1 << int(i)
    return out


def _members(bits: int):
    """The set bits of ``bits``, ascending."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _maximal_cliques(neighbours: list[int], r: int) -> list[int]:
    """Every maximal clique (as a bitset) of the graph ``neighbours`` (bitsets), by
    Bron-Kerbosch with Tomita's pivot, without recursion."""
    out = []
    stack = [(0, (1 << r) - 1, 0)]  # (clique, candidates, excluded)
    while stack:
        clique, cand, excluded = stack.pop()
        if not cand:
            if not excluded:
                out.append(clique)
            continue
        pivot = max(_members(cand | excluded), key=lambda u: (cand & neighbours[u]).bit_count())
        for v in _members(cand & ~neighbours[pivot]):
            bit = 1 << v
            stack.append((clique | bit, cand & neighbours[v], excluded & neighbours[v]))
            cand &= ~bit
            excluded |= bit
    return out


def _sweep(cliques: list[int], r: int) -> list[int]:
    """Drop, smallest first, each letter whose every run and pair of runs another kept
    letter still holds: ``count[i, j]`` letters hold both i and j (``count[i, i]``: i)."""
    kept = sorted(cliques, key=lambda c: (c.bit_count(), c))
    runs = [np.fromiter(_members(c), np.intp) for c in kept]
    count = np.zeros((r, r), np.int32)
    for idx in runs:
        count[np.ix_(idx, idx)] += 1
    alive = []
    for c, idx in zip(kept, runs):
        block = np.ix_(idx, idx)
        if count[block].min() >= 2:  # every run and pair of c is in another letter
            count[block] -= 1
        else:
            alive.append(c)
    return alive


def group_ranges(different: np.ndarray, order: Sequence[int] | None = None) -> list[str]:
    """Per run, the board rows (1-based, in ``order``: default run order) of the runs it
    does not differ from, itself included, written as ranges: ``"1-4,7"`` (the runs
    on rows 1 to 4 and 7). Two runs do not differ exactly when each one's ranges hold
    the other's row."""
    diff = np.asarray(different, bool)
    r = diff.shape[0]
    order = np.arange(r) if order is None else np.asarray(order, dtype=np.intp)
    alike = ~diff[np.ix_(order, order)]  # rows and columns in board order
    np.fill_diagonal(alike, True)
    out = [""] * r
    for row, run in enumerate(order):
        rows = np.flatnonzero(alike[row]) + 1
        cuts = np.flatnonzero(np.diff(rows) != 1) + 1
        out[run] = ",".join(f"{s[0]}" if len(s) == 1 else f"{s[0]}-{s[-1]}"
                            for s in np.split(rows, cuts))
    return out

