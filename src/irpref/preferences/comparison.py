"""A comparison: every preference of every run pair on every query, by blocks of pairs.

:class:`Comparison` holds the preference kernels' per-run state
(:mod:`irpref.preferences.engines`), O(R x Q x L), and computes the
per-query values of any block of run pairs on demand, so that what a reader
asks for is what is held:

- :meth:`Comparison.means` / :meth:`~Comparison.tidy_means`: the mean over
  queries of every pair, one block of pairs at a time (memory: one block);
- :meth:`~Comparison.tidy_frames`: the per-query rows, in the order the
  writers print them (queries in natural order), frame by frame;
- :meth:`~Comparison.win_rates`: per-query win rates (Q, R), by blocks of rows;
- :meth:`~Comparison.pair_values`: the (P, Q) values of any pairs, either order
  (what the paired tests read, block by block: :mod:`irpref.stats`);
- :attr:`~Comparison.values`: the (Q, R, R) matrices, built when one is read
  (O(Q R²): for the randomized HSD and readers of whole matrices).

Every value is the same double whichever block it is computed in: the
engines' arithmetic does not depend on the other pairs of a block, and a mean
or a row sum reads one contiguous row of values, as the all-at-once arrays did.
``map_blocks`` (:mod:`irpref.runtime.pairblocks`) runs the blocks in this process or,
set by :mod:`irpref.distributed`, as Dask tasks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irpref.preferences.engines import LexicographicState, RPPState
from irpref.preferences.registry import Preference
from irpref.runtime.pairblocks import MapBlocks, local_map, pair_blocks, pair_range

__all__ = ["PAIR_BUDGET", "Comparison", "PairJob", "PairedComparison"]

PAIR_BUDGET = 1 << 21
"""Per-query values (float64) of one block of pairs: pairs x queries (16 MB)."""

FRAME_ROWS = 1 << 18
"""Rows per frame of :meth:`Comparison.tidy_frames` (about one writer chunk)."""


@dataclass(eq=False)
class PairJob:
    """The preferences ``names`` computed on one population set over the queries
    ``queries`` (those with a relevant item). ``keys[name]``: ``("sign", order)``,
    ``("rr", order)`` or ``("rpp", weighting index)``; ``present`` (R, Q): which
    run has which query (None: every run has every query)."""

    names: list[str]
    queries: np.ndarray
    keys: dict[str, tuple[str, object]]
    lexicographic: LexicographicState | None = None
    rpp: RPPState | None = None
    present: np.ndarray | None = None

    def values(self, a: np.ndarray, b: np.ndarray, cols: np.ndarray | None = None,
               names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """(P, Q) per-query values of pairs ``a < b`` for each of ``names`` (default:
        all), over the query columns ``cols`` (ascending; default: all); NaN where a
        run of the pair lacks the query."""
        names = self.names if names is None else list(names)
        weightings = [int(self.keys[n][1]) for n in names if self.keys[n][0] == "rpp"]
        rpp = (dict(zip(weightings, self.rpp.values(a, b, cols, weightings)))
               if weightings else {})
        out = {}
        for name in names:
            kind, arg = self.keys[name]
            if kind == "rpp":
                out[name] = rpp[int(arg)]
            elif kind == "sign":
                out[name] = self.lexicographic.sign(str(arg), a, b, cols)
            else:
                out[name] = self.lexicographic.rr(str(arg), a, b, cols)
        if self.present is not None:
            present = self.present if cols is None else self.present[:, cols]
            both = present[a] & present[b]
            out = {k: np.where(both, v, np.nan) for k, v in out.items()}
        return out

    def mirror(self, name: str, values: np.ndarray) -> np.ndarray:
        """The values of the pairs the other way round: ``-v`` (a sign preference's
        0 stays +0.0, as ``sgn(rank_a - rank_b)`` gives it)."""
        return 0.0 - values if self.keys[name][0] == "sign" else -values


class Comparison:
    """Per-query preferences of every run pair, computed by blocks of pairs.

    ``runs`` in input order; ``preferences`` parsed; ``queries[name]`` the query
    ids of a preference (those with a relevant item at its ``rel``). Pair
    ``(a, b)`` on query ``q`` is the preference of run ``a`` over run ``b``
    (antisymmetric).
    """

    def __init__(self, runs: Sequence[str], preferences: Sequence[Preference],
                 jobs: Sequence[PairJob], map_blocks: MapBlocks | None = None) -> None:
        self.runs = list(runs)
        self.preferences = list(preferences)
        self.jobs = list(jobs)
        self.map_blocks = map_blocks or local_map
        self._job = {n: j for j in self.jobs for n in j.names}
        self.queries = {n: self._job[n].queries for n in self.names}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["map_blocks"] = None  # a Dask client stays here; workers compute in place
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.map_blocks = local_map

    @property
    def names(self) -> list[str]:
        return [str(p) for p in self.preferences]

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    def n_queries(self, name: str) -> int:
        return len(self.queries[name])

    def block_size(self) -> int:
        """Pairs per block: :data:`PAIR_BUDGET` values over the most queries."""
        most = max((len(q) for q in self.queries.values()), default=1)
        return max(1, PAIR_BUDGET // max(most, 1))

    def blocks(self) -> list[tuple[int, int]]:
        return pair_blocks(self.n_runs, self.block_size())

    # -- values ---------------------------------------------------------------
    def block_values(self, start: int, stop: int, cols: dict | None = None,
                     names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """(P, Q) values of the preferences ``names`` (default: all) on the pairs
        numbered [start, stop); ``cols[name]``: its query columns (default all;
        the preferences of one job share theirs)."""
        a, b = pair_range(self.n_runs, start, stop)
        wanted = self.names if names is None else list(names)
        out: dict[str, np.ndarray] = {}
        for job in self.jobs:
            mine = [n for n in job.names if n in wanted]
            if mine:
                out.update(job.values(a, b, None if cols is None else cols[mine[0]], mine))
        return {n: out[n] for n in wanted}

    def pair_values(self, name: str, a: np.ndarray, b: np.ndarray,
                    cols: np.ndarray | None = None) -> np.ndarray:
        """(P, Q) per-query values of ``name`` for the pairs (a[i], b[i]) in either
        order (a == b: 0, NaN where the run lacks the query), as the rows of the
        (Q, R, R) matrices hold them."""
        a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
        job = self._job[name]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        off = np.flatnonzero(lo != hi)
        n_cols = len(job.queries) if cols is None else len(cols)
        out = np.zeros((len(a), n_cols))
        if len(off):
            out[off] = job.values(lo[off], hi[off], cols, [name])[name]
            flip = off[a[off] > b[off]]
            out[flip] = job.mirror(name, out[flip])
        if job.present is not None:
            present = job.present if cols is None else job.present[:, cols]
            diag = np.flatnonzero(lo == hi)
            out[diag] = np.where(present[a[diag]], 0.0, np.nan)
        return out

    def source(self, name: str) -> PairSource:
        """The values of one preference as the paired tests read them (:class:`PairSource`)."""
        return PairSource(self, name)

    def matrix(self, name: str) -> np.ndarray:
        """(Q, R, R) matrices of ``name`` (O(Q R²) memory)."""
        job, r = self._job[name], self.n_runs
        out = np.zeros((len(job.queries), r, r))
        for start, stop in self.blocks():
            a, b = pair_range(r, start, stop)
            v = job.values(a, b, names=[name])[name]
            out[:, a, b] = v.T
            out[:, b, a] = job.mirror(name, v).T
        if job.present is not None:
            idx = np.arange(r)
            out[:, idx, idx] = np.where(job.present.T, 0.0, np.nan)
        return out

    @property
    def values(self) -> Mapping[str, np.ndarray]:
        """``values[name]``: the (Q, R, R) matrices, built when read (:meth:`matrix`)."""
        return _Matrices(self)

    # -- means ----------------------------------------------------------------
    def row_means(self, values: np.ndarray) -> np.ndarray:
        """(P,) mean of each row of (P, Q) contiguous values."""
        return values.mean(axis=1) if values.shape[1] else np.zeros(len(values))

    def means(self, names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """(P,) mean over queries of every pair ``a < b``, per preference (``names``:
        default all)."""
        names = self.names if names is None else list(names)
        parts = list(self.map_blocks(_block_means, self, self.blocks(), names))
        return {n: (np.concatenate([p[n] for p in parts]) if parts else np.zeros(0))
                for n in names}

    def mean(self, name: str, means: np.ndarray | None = None) -> np.ndarray:
        """(R, R) mean preference over the queries of ``name`` (``means``: its
        :meth:`means`, if computed already)."""
        r = self.n_runs
        upper = self.means([name])[name] if means is None else means
        out = np.zeros((r, r))
        a, b = np.triu_indices(r, 1)
        out[a, b] = upper
        out[b, a] = -upper
        return out

    # -- win rates --------------------------------------------------------------
    def win_rates(self, name: str, order: Sequence[int] | None = None) -> np.ndarray:
        """(Q, R) per-query win rates ``Σ_b Δ_q(a, b)`` of the runs in ``order``
        (default: input order), each the sum of the matrix row, added left to
        right over the columns in that order; NaN values left out (see
        :func:`irpref.preferences.aggregate.win_rates`)."""
        r = self.n_runs
        order = np.arange(r) if order is None else np.asarray(order, np.int64)
        rows = max(1, PAIR_BUDGET // max(self.n_queries(name) * r, 1))
        blocks = [(s, min(s + rows, r)) for s in range(0, r, rows)]
        parts = list(self.map_blocks(_block_win_rates, self, blocks, name, order))
        return np.concatenate(parts, axis=1) if parts else np.zeros((self.n_queries(name), 0))

    # -- tidy tables ------------------------------------------------------------
    def all_queries(self) -> list:
        """The queries of every preference, sorted (the categories of ``query``)."""
        return sorted(set().union(*(set(q) for q in self.queries.values())))

    def tidy(self) -> pd.DataFrame:
        """Long table (run_a, run_b, query, measure, value), pairs ``a < b`` in
        input order, one row per query (categorical key columns)."""
        rows = _Rows(self)
        per_name: dict[str, list] = {n: [] for n in self.names}
        for (start, stop), part in zip(self.blocks(),
                                       self.map_blocks(_block_values, self, self.blocks())):
            a, b = pair_range(self.n_runs, start, stop)
            for name, v in part.items():
                per_name[name].append(rows.piece(name, a, b, rows.query_code[name], v))
        return rows.frame([p for n in self.names for p in per_name[n]])

    def tidy_frames(self, order: Sequence[int] | None = None,
                    rows: int = FRAME_ROWS) -> Iterator[pd.DataFrame]:
        """The rows of :meth:`tidy` query by query, queries in ``order`` (indices of
        :meth:`all_queries`; default: as sorted there), in frames of about ``rows``
        rows. Given the order a writer sorts queries in, each frame is sorted
        already and the frames concatenate to the sorted table. Queries are computed
        in batches whose values fit :data:`PAIR_BUDGET`."""
        out = _Rows(self)
        total = self.all_queries()
        order = range(len(total)) if order is None else order
        position = {n: pd.Index(q).get_indexer(total) for n, q in self.queries.items()}
        a, b = np.triu_indices(self.n_runs, 1)
        batch = max(1, PAIR_BUDGET // max(len(a) * len(self.names), 1))
        pending, size = [], 0
        for s in range(0, len(order), batch):
            chosen = np.asarray(order[s : s + batch], np.int64)
            cols = {n: np.sort(p[chosen][p[chosen] >= 0]) for n, p in position.items()}
            parts = list(self.map_blocks(_block_values, self, self.blocks(), cols))
            for i in chosen:
                for name in self.names:
                    col = position[name][i]
                    if col < 0:
                        continue
                    j = int(np.searchsorted(cols[name], col))
                    v = np.concatenate([p[name][:, j] for p in parts]) if parts else []
                    pending.append(out.piece(name, a, b, np.array([i]), v))
                    size += len(a)
                    if size >= rows:
                        yield out.frame(pending)
                        pending, size = [], 0
        if pending:
            yield out.frame(pending)

    def tidy_means(self, means: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
        """Means over queries as a long table: run_a, run_b, measure, value (no query)."""
        means = self.means() if means is None else means
        r = self.n_runs
        a, b = np.triu_indices(r, 1)
        names = np.asarray(self.runs, dtype=object)
        frames = [pd.DataFrame({"run_a": names[a], "run_b": names[b], "measure": name,
                                "value": means[name]}) for name in self.names]
        if not frames:
            return pd.DataFrame({"run_a": [], "run_b": [], "measure": [], "value": []})
        return pd.concat(frames, ignore_index=True)


class PairedComparison(Comparison):
    """A :class:`Comparison` in which some run lacks some query: its pairs hold NaN
    there, means are over the queries each pair shares (:meth:`pairs_n` counts
    them) and the tidy tables leave the NaN rows out."""

    def row_means(self, values: np.ndarray) -> np.ndarray:
        if not values.shape[1]:
            return np.zeros(len(values))
        n = (~np.isnan(values)).sum(axis=1)
        with np.errstate(invalid="ignore"):
            return np.where(n > 0, np.nansum(values, axis=1) / np.maximum(n, 1), np.nan)

    def pairs_n(self, name: str) -> np.ndarray:
        """(R, R) number of queries each pair is compared on."""
        present = self._job[name].present
        if present is None:
            n = self.n_queries(name)
            return np.full((self.n_runs, self.n_runs), n)
        x = present.astype(np.float64)
        return np.rint(x @ x.T).astype(np.int64)  # exact: sums of 0/1 below 2^53

    def tidy(self) -> pd.DataFrame:
        table = super().tidy()
        return table[table["value"].notna()].reset_index(drop=True)

    def tidy_frames(self, order: Sequence[int] | None = None,
                    rows: int = FRAME_ROWS) -> Iterator[pd.DataFrame]:
        for frame in super().tidy_frames(order, rows):
            yield frame[frame["value"].notna()].reset_index(drop=True)


class PairSource:
    """One preference's values as :class:`irpref.stats.Pairwise` reads them:
    ``pair_values(a, b)`` (P, Q) for any pairs, ``matrix()`` the (Q, R, R) whole."""

    def __init__(self, comparison: Comparison, name: str) -> None:
        self.comparison, self.name = comparison, name

    def pair_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.comparison.pair_values(self.name, a, b)

    def matrix(self) -> np.ndarray:
        return self.comparison.matrix(self.name)

    def win_rates(self) -> np.ndarray:
        """(Q, R) per-query win rates, by blocks of pairs (no (Q, R, R) matrix)."""
        return self.comparison.win_rates(self.name)


class _Matrices(Mapping):
    """name -> (Q, R, R) matrices of a comparison, each built when read."""

    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.comparison.queries:
            raise KeyError(name)
        return self.comparison.matrix(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self.comparison.names)

    def __len__(self) -> int:
        return len(self.comparison.names)


class _Rows:
    """Tidy rows of a comparison: categorical codes and values, pieces joined in frames."""

    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.queries = comparison.all_queries()
        index = pd.Index(self.queries)
        self.query_code = {n: index.get_indexer(q) for n, q in comparison.queries.items()}

    def piece(self, name: str, a: np.ndarray, b: np.ndarray, queries: np.ndarray,
              values) -> tuple[np.ndarray, ...]:
        """Codes and values of the rows (pair, query) of ``name``: ``values`` (P, Q)
        of pairs (a, b) on the queries coded ``queries``."""
        nq = len(queries)
        measure = self.comparison.names.index(name)
        return (np.repeat(a, nq), np.repeat(b, nq), np.tile(queries, len(a)),
                np.full(len(a) * nq, measure),
                np.ascontiguousarray(values, dtype=np.float64).reshape(-1))

    def frame(self, pieces: list) -> pd.DataFrame:
        comp = self.comparison
        cols = [np.concatenate([p[k] for p in pieces]) if pieces else np.zeros(0, np.int64)
                for k in range(5)]
        cat = pd.Categorical.from_codes
        return pd.DataFrame({
            "run_a": cat(cols[0], categories=comp.runs),
            "run_b": cat(cols[1], categories=comp.runs),
            "query": cat(cols[2], categories=self.queries),
            "measure": cat(cols[3], categories=comp.names),
            "value": cols[4].astype(np.float64),
        })


def _block_means(comp: Comparison, block: tuple[int, int],
                 names: Sequence[str]) -> dict[str, np.ndarray]:
    """(P,) means of ``names`` on one block of pairs (a task of :meth:`Comparison.means`)."""
    return {n: comp.row_means(v) for n, v in comp.block_values(*block, names=names).items()}


def _block_values(comp: Comparison, block: tuple[int, int], cols: dict | None = None
                  ) -> dict[str, np.ndarray]:
    """(P, Q) values on one block of pairs (a task of the tidy tables)."""
    return comp.block_values(*block, cols)


def _block_win_rates(comp: Comparison, rows: tuple[int, int], name: str,
                     order: np.ndarray) -> np.ndarray:
    """(Q, k) win rates of the runs ``order[rows[0]:rows[1]]``: each the sum of its
    matrix row, columns in ``order``, added left to right (as the report always
    summed its permuted matrices), NaN values left out (all NaN: NaN)."""
    r = comp.n_runs
    chosen = order[rows[0] : rows[1]]
    v = comp.pair_values(name, np.repeat(chosen, r), np.tile(order, len(chosen)))
    m = v.reshape(len(chosen), r, -1).transpose(2, 0, 1)  # (Q, k, R)
    gaps = np.isnan(m)
    if not gaps.any():
        return np.cumsum(m, axis=2)[..., -1]
    total = np.cumsum(np.where(gaps, 0.0, m), axis=2)[..., -1]
    return np.where(gaps.all(axis=2), np.nan, total)
