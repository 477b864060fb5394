"""Query subsampling (RPP Fig. 6, lexiprecision Fig. 8b): :func:`subsample`
gives Kendall's tau between the system ordering on k queries drawn without
replacement and the ordering on all; ``power=True`` adds discriminative power
on the sampled queries (:func:`irpref.meta.pairwise.power_percent`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

import irpref.runtime.progress as progress
from irpref.errors import UsageError
from irpref.judging.judged import JudgedRankings
from irpref.meta.pairwise import (
    check_power,
    check_samples,
    judged_with_subtopics,
    kendall_tau,
    pairwise,
    power_percent,
)

__all__ = ["subsample"]


def subsample(
    qrels=None, runs=None, measures: Sequence[str] = ("RR", "sgnLP"), *,
    sizes: Sequence[int] = (5, 10, 20, 30), samples: int = 50, seed: int | None = 0,
    rel: int = 1, aggregate: str = "winrate", judged: JudgedRankings | None = None,
    power: bool = False, alpha: float = 0.05, test: str = "paired", subtopics=None,
) -> pd.DataFrame:
    """``measure, size, kendall_tau, kendall_tau_sd``: tau between the ordering
    on ``size`` queries drawn without replacement and the ordering on all.
    ``power=True`` adds ``discriminative_power`` and its ``_sd`` on the
    sampled queries (see module docstring)."""
    check_power(alpha, test)
    sizes = [int(k) for k in sizes]
    if not sizes or any(k < 1 for k in sizes):
        raise UsageError(f"sizes={sizes}: every size must be >= 1")
    samples = check_samples(samples)
    judged, sub = judged_with_subtopics(qrels, runs, judged, rel, measures, subtopics)
    pw = pairwise(judged, measures, aggregate=aggregate, subtopics=sub)
    nq = len(pw.queries)
    if max(sizes) > nq:
        raise UsageError(f"size {max(sizes)} exceeds the {nq} queries with a relevant item")
    full = {n: pw.scores(n) for n in pw.names}
    rng = np.random.default_rng(seed)
    rows = []
    for k in progress.track(sizes, len(sizes), "subsample", "size"):
        picks = np.argsort(rng.random((samples, nq)), axis=1)[:, :k]
        taus = np.array([[kendall_tau(pw.scores(n, p), full[n]) for p in picks] for n in pw.names])
        if power:
            pows = np.array([power_percent(pw, np.sort(p), alpha=alpha, test=test)
                             for p in picks]).T
        for mi, (n, t) in enumerate(zip(pw.names, taus)):
            rows.append({"measure": n, "size": k, "kendall_tau": float(np.nanmean(t)),
                         "kendall_tau_sd": float(np.nanstd(t, ddof=1)) if samples > 1 else 0.0})
            if power:
                pm = pows[mi]
                rows[-1]["discriminative_power"] = float(np.mean(pm))
                rows[-1]["discriminative_power_sd"] = (
                    float(np.std(pm, ddof=1)) if samples > 1 else 0.0)
    return pd.DataFrame(rows)
