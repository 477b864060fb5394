"""Randomized Tukey HSD (Carterette, TOIS 2012) and its C kernels (``irpref._native.kernels``).

Within each query, permute which run produced which values; the statistic is
the maximum over pairs of |mean over queries| of the permuted matrix; the
p-value of a pair is the fraction of permutations whose maximum reaches the
pair's observed |mean|. Lexiprecision Table 3(a); RPP (Diaz & Ferraro 2022),
Table 3.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

import irpref.runtime.progress as progress
from irpref.runtime.native import native
from irpref.runtime.threads import COMPUTE_CAP, worker_count
from irpref.stats.pairwise import Pairwise
from irpref.stats.seeds import SeedLike, generator

__all__ = ["hsd_permutations", "tukey_hsd"]


def hsd_permutations(
    rng: np.random.Generator, permutations: int, n_queries: int, n_runs: int, batch: int
) -> Iterator[np.ndarray]:
    """Batches (B, Q, R) of independent uniform permutations of the runs, one per query.

    The stream does not depend on ``batch``: permuting the rows one after the
    other draws the same numbers in any batching.
    """
    dtype = np.int16 if n_runs < 2**15 else np.int32
    base = np.arange(n_runs, dtype=dtype)
    kernels = _kernels()
    fast = kernels is not None and _c_permute_ok(rng, kernels)
    done = 0
    with progress.task(permutations, "randomized HSD", "perm") as bar:
        while done < permutations:
            b = min(batch, permutations - done)
            if fast:
                perm = np.empty((b, n_queries, n_runs), dtype)
                with rng.bit_generator.lock:
                    kernels.permute(rng.bit_generator.capsule, perm, n_runs)
            else:
                perm = rng.permuted(np.broadcast_to(base, (b, n_queries, n_runs)), axis=-1)
            yield perm
            done += b
            bar.update(b)


# ----------------------------------------------------- optional C kernels

_PERMUTE_OK: dict[type, bool] = {}


def _kernels():
    """The C module ``irpref._native.kernels`` or None (:func:`irpref.runtime.native.native`).

    Both paths give the same maxima bit for bit (same permutations, same
    summation order and dtype); the C one runs the gather-accumulate-max loop
    per permutation without temporaries, with the GIL released.
    """
    return native("kernels")


def _c_permute_ok(rng: np.random.Generator, kernels) -> bool:
    """Whether the C shuffle reproduces ``rng.permuted`` for this bit generator type.

    Checked once per type on two clones of the generator's state (the C
    shuffle follows NumPy's algorithm; a NumPy that changed it, or a bit
    generator without the standard capsule, falls back to ``permuted``).
    """
    if type(rng) is not np.random.Generator:
        return False
    kind = type(rng.bit_generator)
    ok = _PERMUTE_OK.get(kind)
    if ok is None:
        try:
            state = rng.bit_generator.state
            ours, theirs = kind(), kind()
            ours.state = state
            theirs.state = state
            for dtype in (np.int16, np.int32):
                shape = (2, 3, 37)
                want = np.random.Generator(theirs).permuted(
                    np.broadcast_to(np.arange(37, dtype=dtype), shape), axis=-1)
                got = np.empty(shape, dtype)
                kernels.permute(ours.capsule, got, 37)
                ok = bool(np.array_equal(got, want)) and _same(ours.state, theirs.state)
                if not ok:
                    break
        except Exception:  # no capsule / state, or anything unexpected: use NumPy
            ok = False
        _PERMUTE_OK[kind] = ok
    return ok


def tukey_hsd(
    pairwise: Pairwise,
    permutations: int = 10_000,
    seed: SeedLike = None,
    *,
    batch: int | None = None,
    exploit_order: bool = True,
    strict: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Randomized Tukey HSD (Carterette, TOIS 2012, Sec. 4): family-wise p-values of all run pairs.

    Each permutation shuffles, independently within every query, which run
    produced which values: for a preference matrix, the rows and columns of
    that query's R x R matrix together. Statistic: max over pairs of
    |mean_q D*[q, a, b]|; p(a, b) = #{permutations: max >= |mean_q D[q, a, b]|} / B.
    Queries some run lacks are dropped (HSD needs every run on every query).
    The permutations run in the optional C kernels when built, with the same
    permutation stream, summation order and dtype as the NumPy kernels, so the
    p-values for a seed are the same bit for bit.

    Parameters
    ----------
    pairwise : Pairwise
        The per-query values of one measure.
    permutations : int, default 10000
        Number of permutations B.
    seed : int or numpy.random.Generator, optional
        Random seed (None: 0); same seed, same p-values.
    batch : int, optional
        Permutations per batch (memory); the result does not depend on it.
    exploit_order : bool, default True
        Use the faster loops for metrics and ordering sign preferences;
        False forces the generic gather (same result).
    strict : bool, default False
        Count only maxima strictly above the observed value; differs only for
        discrete statistics (sign preferences), where it is anti-conservative.

    Returns
    -------
    p : numpy.ndarray
        p-values of the pairs a < b (in the order of ``pairwise.pairs``).
    observed : numpy.ndarray
        |mean difference| of each pair.

    Raises
    ------
    ValueError
        ``permutations`` < 1.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1},
    ...          "q3": {"d7": 1, "d8": 0}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}, "q3": {"d8": 2.0, "d7": 1.0}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}},
    ...         "hybrid": {"q1": {"d3": 0.9, "d2": 0.8, "d1": 0.1},
    ...                    "q2": {"d6": 0.7, "d4": 0.6}, "q3": {"d7": 0.5, "d8": 0.4}}}
    >>> pairwise = irpref.Pairwise.from_metric(irpref.evaluate(qrels, runs, ["AP"]))
    >>> p, observed = irpref.tukey_hsd(pairwise, permutations=1000, seed=0)
    >>> p
    array([0.331, 0.876, 0.566])
    >>> observed.round(4)
    array([0.3889, 0.0833, 0.3056])
    """
    if permutations < 1:
        raise ValueError(f"permutations must be >= 1, got {permutations}")
    rng = generator(seed)
    matrix = pairwise.matrix if pairwise.kind != "metric" else None  # (Q, R, R), built once
    complete = _complete_queries(pairwise, matrix)
    nq = int(complete.sum())
    a, b = pairwise.pairs
    if nq == 0:
        return np.full(len(a), np.nan), np.full(len(a), np.nan)
    if pairwise.kind == "metric":
        x = np.ascontiguousarray(pairwise.scores[:, complete].T)  # (Q, R)
        means = x.mean(0)
        observed = np.abs(means[a] - means[b])
        tol = 1e-9 * max(1.0, float(np.abs(x).max()))
        maxima = _hsd_metric_maxima(x, rng, permutations, batch)
    else:
        m = matrix[complete]
        sign = pairwise.kind == "sign"
        observed = np.abs(m.sum(0)[a, b]) / nq
        keys = _order_keys(m) if sign and exploit_order else None
        if keys is not None:
            maxima = _hsd_order_maxima(keys, rng, permutations, batch)
        else:
            maxima = _hsd_matrix_maxima(m, sign, rng, permutations, batch, a, b)
        maxima = maxima / nq
        tol = (0.5 if sign else 1e-9 * max(1.0, float(np.abs(m).max())) * nq) / nq
    srt = np.sort(maxima)
    if strict:
        reached = len(srt) - np.searchsorted(srt, observed + tol, side="right")
    else:
        reached = len(srt) - np.searchsorted(srt, observed - tol, side="left")
    return reached / len(srt), observed


def _hsd_metric_maxima(
    x: np.ndarray, rng: np.random.Generator, permutations: int, batch: int | None
) -> np.ndarray:
    """Range of the permuted run means (Q, R) -> one maximum per permutation."""
    nq, r = x.shape
    kernels = _kernels()
    if kernels is not None:
        xc = np.ascontiguousarray(x, dtype=np.float64)

        def maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.metric_maxima(xc, perm, nq, r, out)
            return out

        batch = batch or max(1, 2**19 // (nq * r))
        return np.concatenate(_map_batches(maxima, hsd_permutations(rng, permutations, nq, r,
                                                                    batch)))
    batch = batch or max(1, 2**20 // (nq * r))
    qi = np.arange(nq)[None, :, None]
    return np.concatenate(_map_batches(
        lambda perm: np.ptp(x[qi, perm].mean(1), axis=-1),
        hsd_permutations(rng, permutations, nq, r, batch),
    ))


def _hsd_matrix_maxima(
    m: np.ndarray, sign: bool, rng: np.random.Generator, permutations: int,
    batch: int | None, a: np.ndarray, b: np.ndarray,
) -> np.ndarray:
    """max over pairs of |sum_q m[q, pi_q(a), pi_q(b)]| per permutation (gather).

    Per batch of B permutations, one pass per query q: the flat index
    ``pi(i) R + pi(j)`` of the permuted R x R matrix (one broadcast add), one
    ``take`` from that query's matrix (R^2 values, cache resident), one add
    into the (B, R, R) sum. The sums run over queries in order 0..Q-1, as the
    reference gather does; the whole matrix is summed (its antisymmetry
    makes the maximum over all cells the maximum over pairs a < b).
    """
    nq, r, _ = m.shape
    table = m.reshape(nq, r * r).astype(np.int8 if sign else np.float64)
    acc_type = np.int32 if sign else np.float64
    kernels = _kernels()
    if kernels is not None and (sign or np.isfinite(table).all()):
        # an exactly antisymmetric table gives acc[j, i] == -acc[i, j] bit for bit (IEEE
        # negation is exact) and a zero diagonal: the cells i < j hold the maximum
        half = bool(np.array_equal(m, -m.transpose(0, 2, 1)))

        def c_maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.matrix_maxima(table, perm, nq, r, half, out)
            return out

        batch = batch or 32  # the C kernel sums up to 32 permutations per pass over a query
        return np.concatenate(_map_batches(c_maxima, hsd_permutations(rng, permutations, nq, r,
                                                                      batch)))
    batch = batch or max(1, 2**17 // (r * r))

    def maxima(perm: np.ndarray) -> np.ndarray:
        p = perm.astype(np.intp)
        pr = p * r
        size = (len(p), r, r)
        acc = np.zeros(size, acc_type)
        part = np.empty(size, table.dtype)
        idx = np.empty(size, np.intp)
        for q in range(nq):
            np.add(pr[:, q, :, None], p[:, q, None, :], out=idx)
            np.take(table[q], idx, out=part)
            acc += part
        return np.abs(acc).max((1, 2))

    return np.concatenate(_map_batches(maxima, hsd_permutations(rng, permutations, nq, r, batch)))


def _map_batches(fn, batches: Iterator[np.ndarray]) -> list[np.ndarray]:
    """``[fn(x) for x in batches]`` on a few threads, in order (NumPy releases the GIL).

    Batches are drawn in order from one generator in this thread, so the
    permutation stream, and every result, is that of a plain loop.
    """
    workers = _threads()
    if workers == 1:
        return [fn(x) for x in batches]
    from concurrent.futures import ThreadPoolExecutor

    out, pending = [], []
    with ThreadPoolExecutor(workers) as pool:
        for x in batches:
            pending.append(pool.submit(fn, x))
            if len(pending) > 2 * workers:
                out.append(pending.pop(0).result())
        out.extend(f.result() for f in pending)
    return out


def _threads() -> int:
    """Threads for HSD batches: the one thread policy (:mod:`irpref.runtime.threads`), at most 8."""
    return worker_count(COMPUTE_CAP)


def _order_keys(m: np.ndarray) -> np.ndarray | None:
    """Per-query keys k with m[q, a, b] = sgn(k[q, a] - k[q, b]), or None if m is no order.

    A sign matrix comes from a total preorder exactly when it equals the sign
    of differences of its row sums (Copeland scores); keys are min-ranks 0..R-1.
    """
    w = m.sum(2)
    if not np.array_equal(np.sign(w[:, :, None] - w[:, None, :]), m):
        return None
    q, r = w.shape
    flat = (w + np.arange(q)[:, None] * (4 * r)).ravel()
    ranks = np.searchsorted(np.sort(flat), flat) - np.repeat(np.arange(q) * r, r)
    return ranks.reshape(q, r).astype(np.int8 if r <= 127 else np.int16)


def _hsd_order_maxima(
    keys: np.ndarray, rng: np.random.Generator, permutations: int, batch: int | None
) -> np.ndarray:
    """max over pairs of |sum_q sgn(k[q, pi_q(a)] - k[q, pi_q(b)])| per permutation."""
    nq, r = keys.shape
    kernels = _kernels()
    if kernels is not None:
        kc = np.ascontiguousarray(keys)

        def c_maxima(perm: np.ndarray) -> np.ndarray:
            out = np.empty(len(perm))
            kernels.order_maxima(kc, perm, nq, r, out)
            return out

        batch = batch or 16
        return np.concatenate(_map_batches(c_maxima, hsd_permutations(rng, permutations, nq, r,
                                                                      batch)))
    acc = np.int16 if nq < 2**15 else np.int32
    batch = batch or max(1, 2**22 // (nq * r * r))
    qi = np.arange(nq)[None, :, None]

    def maxima(perm: np.ndarray) -> np.ndarray:
        y = keys[qi, perm]
        d = np.subtract(y[..., :, None], y[..., None, :], dtype=keys.dtype)
        np.sign(d, out=d)
        return np.abs(d.sum(1, dtype=acc)).max((-1, -2))

    batches = hsd_permutations(rng, permutations, nq, r, batch)
    return np.concatenate(_map_batches(maxima, batches)).astype(np.float64)


def _same(x, y) -> bool:
    """Equality of bit generator states (dicts of ints and arrays)."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return bool(np.array_equal(x, y))
    return bool(x == y)


def _complete_queries(pairwise: Pairwise, matrix: np.ndarray | None) -> np.ndarray:
    if pairwise.kind == "metric":
        return ~np.isnan(pairwise.scores).any(0)
    return ~np.isnan(matrix).any((1, 2))

