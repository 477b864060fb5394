"""The noncentral t distribution inverted in its noncentrality, for many values at once.

T = (Z + delta) / sqrt(V / nu), Z ~ N(0, 1), V ~ chi2(nu); F(t; nu, delta) falls
as delta grows. :func:`noncentrality` returns, for every element, the delta
with F(t; nu, delta) = level: the bounds of the exact interval of a
standardized mean difference (:func:`irpref.stats.intervals.smd_interval`;
Steiger & Fouladi 1997, Cumming & Finch 2001).

Each root is found by safeguarded Newton steps: a step that would leave the
bracket the signs of F - level have shown so far becomes a bisection (or a
doubling step while one side is still open). The search starts at a
Cornish-Fisher quantile: F = P(W >= delta) for W = t S - Z, S = sqrt(V / nu),
whose first four cumulants are closed forms in E[S] (about 2 CDF evaluations
a root). The C path steps with the exact
dF/ddelta, the NumPy path with secant slopes:

- C (``irpref._native.kernels``, when built): F and dF/ddelta from one pass of the
  Poisson-mixture series of Lenth (AS 243, 1989), summed from the Poisson mode
  in both directions (Benton & Krishnamoorthy 2003), see ``kernels_nct.c``;
- NumPy: F from SciPy's ``stats.nct.cdf``; the slope of each step is that of
  the last two points (the first step takes the normal approximation's),
  whose convergence is superlinear (order 1.6) inside the same bracket.

Far in t (|t| > 1000 and t^2 > 800 nu), where the series needs about 12 |delta|
terms and SciPy's CDF returns NaN, both paths use the exact mixture
F = E_Z[Q_chi2(nu (Z + delta)^2 / t^2)] (t > 0) by Gauss-Hermite quadrature
(:data:`GH_POINTS` points): the integrand varies on a scale t / sqrt(2 nu) >= 20
there. A root found so with |delta| < 40 (where the kink at Z = -delta is near
the points) is found again without it. The two paths agree to 1e-10 relative
and SciPy's roots (where SciPy's CDF is defined) to 1e-8 (tests).
"""

from __future__ import annotations

import functools

import numpy as np

from irpref.runtime.native import native
from irpref.runtime.threads import COMPUTE_CAP, in_threads

__all__ = ["GH_POINTS", "noncentrality"]

GH_POINTS = 100
"""Gauss-Hermite points of the mixture far in t."""

BIG_T, GH_WIDTH, GH_MIN_DELTA = 1000.0, 800.0, 40.0
"""Where the mixture is used (|t| > BIG_T and t^2 > GH_WIDTH nu) and where it is not
trusted (a root with |delta| < GH_MIN_DELTA is found again by the series); as ``kernels_nct.c``."""

CHUNK = 1 << 12
"""Values per task of the thread pool (C path)."""

ROOT_COST = 256
"""A root costs about as much as this many rows of array work (the weight the thread
pool's threshold, :data:`irpref.runtime.threads.PARALLEL_MIN`, reads)."""


@functools.cache
def _nodes() -> tuple[np.ndarray, np.ndarray]:
    """Points and weights of E over Z ~ N(0, 1) (Gauss-Hermite, rescaled)."""
    x, w = np.polynomial.hermite.hermgauss(GH_POINTS)
    return np.ascontiguousarray(x * np.sqrt(2.0)), np.ascontiguousarray(w / np.sqrt(np.pi))


def noncentrality(t: np.ndarray, df: np.ndarray, level: float) -> np.ndarray:
    """The delta with F(t; df, delta) = level, elementwise (NaN where t is not finite or
    df <= 0). ``level`` in (0, 1)."""
    from scipy.special import ndtri

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    t, df = (np.ascontiguousarray(x, dtype=np.float64) for x in np.broadcast_arrays(t, df))
    shape = t.shape
    t, df = t.ravel(), df.ravel()
    out = np.full(len(t), np.nan)
    z = float(ndtri(level))
    kernels = native("kernels")
    if kernels is not None:
        nodes, weights = _nodes()

        def solve(part: slice) -> None:
            kernels.nct_noncentrality(t[part], df[part], level, z, nodes, weights, out[part])

        parts = [slice(i, i + CHUNK) for i in range(0, len(t), CHUNK)]
        in_threads(solve, parts, [CHUNK * ROOT_COST] * len(parts), cap=COMPUTE_CAP,
                   name="irpref-nct")
        return out.reshape(shape)
    ok = np.isfinite(t) & (df > 0)
    far = ok & (np.abs(t) > BIG_T) & (t * t > GH_WIDTH * df)
    near = ok & ~far
    if far.any():
        idx = np.flatnonzero(far)
        root = _newton(t[idx], df[idx], level, z, _mixture)
        out[idx] = root
        near[idx[np.abs(root) < GH_MIN_DELTA]] = True
    if near.any():
        out[near] = _newton(t[near], df[near], level, z, _series_scipy)
    return out.reshape(shape)


def cdf(t: np.ndarray, df: np.ndarray, delta: np.ndarray, mode: str = "auto"
        ) -> tuple[np.ndarray, np.ndarray]:
    """(F(t; df, delta), dF/ddelta), elementwise, by the path the kernels choose
    (``mode``: ``auto``, ``series``, ``mixture``); for tests. The NumPy path's
    slope is exact for the mixture, a central difference of SciPy's CDF otherwise."""
    t, df, delta = (np.ascontiguousarray(x, dtype=np.float64).ravel()
                    for x in np.broadcast_arrays(t, df, delta))
    kernels = native("kernels")
    if kernels is not None:
        f, d = np.empty(len(t)), np.empty(len(t))
        nodes, weights = _nodes()
        code = {"auto": -1, "series": 0, "mixture": 1}[mode]
        kernels.nct_cdf(t, df, delta, nodes, weights, code, f, d)
        return f, d
    if mode == "auto":
        far = (np.abs(t) > BIG_T) & (t * t > GH_WIDTH * df)
    else:
        far = np.full(len(t), mode == "mixture")
    f, d = np.empty(len(t)), np.full(len(t), np.nan)
    if far.any():
        f[far], d[far] = _mixture_slope(t[far], df[far], delta[far])
    near = ~far
    if near.any():  # SciPy's CDF; its slope by central differences
        tn, dn, xn = t[near], df[near], delta[near]
        h = 1e-5 * (1.0 + np.abs(xn))
        f[near] = _series_scipy(tn, dn, xn)
        d[near] = (_series_scipy(tn, dn, xn + h) - _series_scipy(tn, dn, xn - h)) / (2 * h)
    return f, d


def _newton(t: np.ndarray, df: np.ndarray, level: float, z: float, fn) -> np.ndarray:
    """Safeguarded Newton for every element at once (the NumPy twin of ``kernels_nct.c``'s root)."""
    x, spread = _start(t, df, z)
    lo, hi, grow = np.full(len(t), -np.inf), np.full(len(t), np.inf), spread.copy()
    out = np.full(len(t), np.nan)
    with np.errstate(all="ignore"):  # the first slope: the normal approximation's
        slope = -np.exp(-z * z / 2) / np.sqrt(2 * np.pi) / spread
    last_x, last_g = np.full(len(t), np.nan), np.full(len(t), np.nan)
    active = np.arange(len(t))
    for _ in range(300):
        if not len(active):
            break
        f = fn(t[active], df[active], x[active])
        g = f - level
        xa = x[active]
        with np.errstate(all="ignore"):
            secant = (g - last_g[active]) / (xa - last_x[active])
        d = np.where(np.isfinite(secant) & (secant < 0), secant, slope[active])
        slope[active], last_x[active], last_g[active] = d, xa, g
        bad = np.isnan(f)
        exact = g == 0
        lo[active] = np.where(g > 0, xa, lo[active])
        hi[active] = np.where(g < 0, xa, hi[active])
        la, ha = lo[active], hi[active]
        with np.errstate(all="ignore"):
            nx = xa - g / d
        both = np.isfinite(la) & np.isfinite(ha)
        ga = grow[active]
        newton = (d < 0) & (nx > la) & (nx < ha) & (both | (np.abs(nx - xa) <= ga))
        with np.errstate(all="ignore"):
            fallback = np.where(both, 0.5 * (la + ha),
                                np.where(np.isfinite(la), la + ga, ha - ga))
        grow[active] = np.where(~newton & ~both, 2.0 * ga, ga)
        nx = np.where(newton, nx, fallback)
        done = ((newton & (np.abs(nx - xa) <= 1e-11 * (1.0 + np.abs(nx))))
                | (ha - la <= 1e-15 * (1.0 + np.abs(nx))))
        out[active] = np.where(exact, xa, np.where(done, nx, np.nan))
        x[active] = nx
        active = active[~(exact | done | bad)]
    out[active] = x[active]
    return out


def _start(t: np.ndarray, df: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """The start of the search and the sd of W = t S - Z (as ``kernels_nct.c``'s ``start``):
    F = P(W >= delta), so delta is W's (1 - level) quantile, by Cornish-Fisher from its
    first four cumulants (the normal quantile where the expansion moves it by > 2)."""
    from scipy.special import gammaln

    with np.errstate(all="ignore"):
        m1 = np.where(df > 1e7, 1.0 - 0.25 / df,
                      np.sqrt(2.0 / df) * np.exp(gammaln((df + 1) / 2) - gammaln(df / 2)))
        m3, m4 = m1 * (df + 1) / df, (df + 2) / df
        var = np.maximum(1.0 - m1 * m1, 0.0)
        k3 = m3 - 3 * m1 + 2 * m1**3
        k4 = m4 - 4 * m1 * m3 + 6 * m1**2 - 3 * m1**4 - 3 * var**2
        sd = np.sqrt(1.0 + t * t * var)
        t2 = t * t / (sd * sd)
        g1, g2, zp = k3 * t * t2 / sd, k4 * t2 * t2, -z
        w = (zp + (zp * zp - 1) * g1 / 6 + (zp**3 - 3 * zp) * g2 / 24
             - (2 * zp**3 - 5 * zp) * g1 * g1 / 36)
    w = np.where(np.isfinite(w) & (np.abs(w - zp) <= 2.0), w, zp)
    return t * m1 + sd * w, sd


def _series_scipy(t: np.ndarray, df: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """F by SciPy's noncentral t (clipped to [0, 1])."""
    from scipy import stats

    with np.errstate(all="ignore"):
        f = np.clip(stats.nct.cdf(t, df, delta), 0.0, 1.0)
    # SciPy's CDF is NaN far in a tail: there it is 1 (delta well below t) or 0
    return np.where(np.isnan(f), (delta < t).astype(np.float64), f)


def _mixture(t: np.ndarray, df: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """F as E_Z[Q_chi2(nu (Z + delta)^2 / t^2)] (t > 0; reflected for t < 0)."""
    return _mixture_slope(t, df, delta)[0]


def _mixture_slope(t: np.ndarray, df: np.ndarray, delta: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """F and dF/ddelta as E_Z[Q_chi2(nu (Z + delta)^2 / t^2)] (t > 0; reflected for t < 0)."""
    from scipy.special import gammaincc, gammaln

    nodes, weights = _nodes()
    sign = np.where(t < 0, -1.0, 1.0)
    tt, dd = np.abs(t)[:, None], (sign * delta)[:, None]
    a = (df / 2)[:, None]
    s = nodes[None, :] + dd
    with np.errstate(all="ignore"):
        half = df[:, None] * (s / tt) ** 2 / 2
        q = np.where(s <= 0, 1.0, gammaincc(a, half))
        dens = np.exp((a - 1) * np.log(half) - half - gammaln(a))
        dq = np.where(s <= 0, 0.0, -dens * df[:, None] * s / (tt * tt))
    f = q @ weights
    return np.where(sign < 0, 1.0 - f, f), dq @ weights
