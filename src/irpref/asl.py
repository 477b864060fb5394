"""Atomized search length analyses: per-document tables, distributions, ablation.

Alex, Hall & Metzler 2022, "Atomized Search Length: Beyond User Models":

- :func:`search_lengths`: one row per (run, query, relevant document) with
  its atomized search length (§3.1, Eq. 1-3; see
  :mod:`irpref.measures.search_length` for the conventions);
- :func:`distribution`: counts per search-length bucket and run (Fig. 5);
- :func:`change`: per-document change between two runs (Fig. 6: best minus
  median, negative = the first run wins) and :func:`histogram` of it;
- :func:`aggregate` / :func:`ablation`: arithmetic vs harmonic means within
  and across queries, the MAP -> ASL ablation of §3.2 and §4.4 (Table 2);
- :func:`rrie`: relative reduction in error (Eq. 11-12, Table 1);
- :func:`effective_fraction`: Appendix A.1, the share of the smallest search
  lengths whose plain mean matches the P-space (harmonic) mean.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.evaluate import announce_missing, judge_with
from irpref.judging.judged import JudgedRankings
from irpref.measures.search_length import search_length_slots
from irpref.params import DEFAULT_MISSING, Settings

__all__ = [
    "ablation",
    "aggregate",
    "change",
    "distribution",
    "effective_fraction",
    "histogram",
    "mean",
    "rrie",
    "rrie_table",
    "search_lengths",
]

MEANS = ("arithmetic", "harmonic")


def search_lengths(
    qrels=None,
    runs=None,
    *,
    settings: Settings | None = None,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    unretrieved: str = "retrieved",
    cutoff: int | None = None,
    judged: JudgedRankings | None = None,
) -> pd.DataFrame:
    """Per-document atomized search lengths (Alex, Hall & Metzler).

    A relevant document's search length is the number of non-relevant (or
    unjudged) documents ranked above it, plus one; ``ASL`` averages them per
    query.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels, optional
        The relevance judgments (None with ``judged``).
    runs : path, DataFrame, dict, Run, or a sequence or dict of them, optional
        The runs (None with ``judged``).
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    unretrieved : {"retrieved", "corpus"}, default "retrieved"
        A relevant document the run missed scores the number of non-relevant
        documents retrieved (Eq. 3), or sits at the bottom of the corpus.
    cutoff : int, optional
        Only the first ``cutoff`` relevant documents of each query (ASL@g1-n).
    judged : JudgedRankings, optional
        Rankings already judged.

    Returns
    -------
    pandas.DataFrame
        Columns ``run, query, doc, level`` (recall level, 1 = the highest-ranked
        relevant document; unretrieved ones last), ``rank`` (1-based, <NA> when
        not retrieved), ``search_length``.

    Raises
    ------
    UsageError
        ``ties="expected"`` or another invalid setting.
    InputError
        Input that cannot be read.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}}}
    >>> print(irpref.search_lengths(qrels, runs).to_string(index=False))
     run query doc  level  rank  search_length
    bm25    q1  d1      1     1            1.0
    bm25    q1  d3      2     3            2.0
    bm25    q2  d4      1     1            1.0
    bm25    q2  d5      2  <NA>            1.0
    """
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    if settings.judged_only:
        raise UsageError("per-document search lengths read the rankings as retrieved: "
                         "judged_only is not taken here")
    if judged is None:
        judged = judge_with(qrels, runs, settings)
    return search_lengths_with(judged, settings.missing, unretrieved=unretrieved,
                               cutoff=cutoff, stacklevel=4)


def search_lengths_with(judged: JudgedRankings, missing: str = DEFAULT_MISSING, *,
                        unretrieved: str = "retrieved", cutoff: int | None = None,
                        stacklevel: int = 3) -> pd.DataFrame:
    """:func:`search_lengths` of rankings already judged, with queries a run lacks
    following ``missing`` (the library's own callers, whose settings are resolved)."""
    if judged.ties == "expected":
        raise ValueError("per-document search lengths need one ranking: use ties='docid' "
                         "or 'input'")
    rel = judged.rel
    pos, sl = search_length_slots(judged, rel=rel, cutoff=cutoff, missing=unretrieved)
    rel_item = judged.relevant(rel)
    if cutoff is not None:
        rel_item &= judged.rank < cutoff
    doc = np.empty(len(sl), np.int64)
    rel_doc = judged.doc_ids.codes(judged.doc_key[rel_item])  # relevant items only
    doc[pos.retrieved] = rel_doc
    # unretrieved: the query's relevant qrels documents the run did not retrieve
    keep = judged.qrels_grade >= rel
    q_rel = judged.qrels_query[keep]
    d_rel = judged.qrels_doc[keep].astype(np.int64)
    n_q, n_d = judged.n_queries, max(judged.n_docs, 1)
    seg = (np.arange(judged.n_runs, dtype=np.int64)[:, None] * n_q + q_rel[None, :]).ravel()
    d_all = np.tile(d_rel, judged.n_runs)
    got = np.isin(seg * n_d + d_all, judged.segment[rel_item] * n_d + rel_doc)
    order = np.argsort(seg[~got], kind="stable")
    doc[~pos.retrieved] = d_all[~got][order]
    announce_missing(judged, missing, stacklevel=stacklevel)
    mask = judged.query_mask(missing).ravel()
    take = mask[pos.segment]
    s = pos.segment[take]
    runs_arr = np.asarray(judged.run_names, dtype=object)
    docs = (
        np.asarray(judged.docs.take(doc[take]).to_pylist(), dtype=object)
        if judged.docs is not None
        else doc[take]
    )
    rank = pd.array(np.where(pos.retrieved, pos.position, 0).astype(np.int64)[take],
                    dtype="Int64")
    rank[~pos.retrieved[take]] = pd.NA
    return pd.DataFrame(
        {
            "run": runs_arr[s // n_q],
            "query": judged.queries[s % n_q],
            "doc": docs,
            "level": pos.level[take],
            "rank": rank,
            "search_length": sl[take],
        }
    )


def default_edges(max_value: float) -> np.ndarray:
    """Bucket edges 1, 2, 3, 5, 10, 20, 30, 50, 100, ... up to ``max_value``."""
    edges = [1.0]
    scale = 1.0
    while edges[-1] <= max_value:
        for step in (2.0, 3.0, 5.0, 10.0):
            edges.append(step * scale)
        scale *= 10.0
    return np.unique(edges)


def histogram(values, edges: Sequence[float]) -> pd.DataFrame:
    """Counts of ``values`` in buckets ``[edges[j], edges[j+1])``; values below
    the first edge or at/above the last go to open buckets at either end."""
    values = np.asarray(values, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.float64)
    if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("edges must be at least two increasing numbers")
    low = np.concatenate(([-np.inf], edges))
    high = np.concatenate((edges, [np.inf]))
    counts = np.bincount(np.searchsorted(edges, values, side="right"), minlength=len(low))
    return pd.DataFrame({"low": low, "high": high, "count": counts[: len(low)]})


def distribution(table: pd.DataFrame, edges: Sequence[float] | None = None) -> pd.DataFrame:
    """Per run, how many relevant documents fall in each search-length bucket
    (Fig. 5). Unretrieved documents get their own bucket (``retrieved`` False).

    Columns: ``run, retrieved, low, high, count``.
    """
    if edges is None:
        edges = default_edges(float(table["search_length"].max()) if len(table) else 1.0)
    out = []
    retrieved = table["rank"].notna().to_numpy()
    for run, idx in table.groupby("run", sort=False).indices.items():
        h = histogram(table["search_length"].to_numpy()[idx][retrieved[idx]], edges)
        h = h[np.isfinite(h["high"]) & np.isfinite(h["low"]) | (h["count"] > 0)]
        missing = int((~retrieved[idx]).sum())
        h = pd.concat([h.assign(retrieved=True),
                       pd.DataFrame({"low": [np.nan], "high": [np.nan], "count": [missing],
                                     "retrieved": [False]})], ignore_index=True)
        out.append(h.assign(run=run))
    if not out:
        return pd.DataFrame(columns=["run", "retrieved", "low", "high", "count"])
    return pd.concat(out, ignore_index=True)[["run", "retrieved", "low", "high", "count"]]


def change(table: pd.DataFrame, run: str, baseline: str) -> pd.DataFrame:
    """Per relevant document, ``delta = SL(run) - SL(baseline)`` (Fig. 6:
    negative values are wins for ``run``). Columns: ``query, doc, run,
    baseline, delta``; only queries both runs have in ``table``."""
    for name in (run, baseline):
        if name not in set(table["run"]):
            raise ValueError(f"run {name!r} is not in the table")
    a = table[table["run"] == run][["query", "doc", "search_length"]]
    b = table[table["run"] == baseline][["query", "doc", "search_length"]]
    both = a.merge(b, on=["query", "doc"], suffixes=("_run", "_baseline"))
    return pd.DataFrame(
        {
            "query": both["query"],
            "doc": both["doc"],
            "run": both["search_length_run"],
            "baseline": both["search_length_baseline"],
            "delta": both["search_length_run"] - both["search_length_baseline"],
        }
    )


def mean(values, kind: str = "arithmetic") -> float:
    """Arithmetic or harmonic mean (harmonic: ``1 / mean(1/x)``; a zero gives
    0, an infinity contributes 1/inf = 0) -- ASL paper §3.2, Appendix A.1."""
    values = np.asarray(values, dtype=np.float64)
    if kind == "arithmetic":
        return float(np.mean(values))
    if kind == "harmonic":
        with np.errstate(divide="ignore"):
            inv = np.mean(1.0 / values)
        return float(1.0 / inv) if inv != 0 else float("inf")
    raise ValueError(f"kind must be one of {', '.join(MEANS)}, not {kind!r}")


def rates(table: pd.DataFrame, rate: str) -> np.ndarray:
    sl = table["search_length"].to_numpy(np.float64)
    if rate == "atomized":
        with np.errstate(divide="ignore"):
            return 1.0 / sl
    if rate == "precision":
        rank = table["rank"].to_numpy(dtype=np.float64, na_value=np.nan)
        level = table["level"].to_numpy(np.float64)
        return np.where(np.isnan(rank), 0.0, level / np.where(np.isnan(rank), 1.0, rank))
    if rate == "search_length":
        return sl
    raise ValueError(f"rate must be atomized, precision or search_length, not {rate!r}")


def aggregate(
    table: pd.DataFrame,
    rate: str = "atomized",
    within: str = "arithmetic",
    across: str = "arithmetic",
) -> pd.Series:
    """Per run: ``across``-mean over queries of the ``within``-mean over the
    query's relevant documents of a per-document ``rate``:

    - ``precision``: MAP's coupled precision ``(rel_{q,d}+1)/rank_{q,d}``,
      0 when unretrieved (Eq. 6); arithmetic/arithmetic = MAP (Eq. 7-8);
    - ``atomized``: ``1/ASL_{q,d}`` (the reciprocal of Eq. 2);
      harmonic/harmonic = 1/ASL;
    - ``search_length``: ``ASL_{q,d}``; arithmetic/arithmetic = ASL (Eq. 4).
    """
    for kind in (within, across):
        if kind not in MEANS:
            raise ValueError(f"means must be one of {', '.join(MEANS)}, not {kind!r}")
    frame = pd.DataFrame({"run": table["run"], "query": table["query"],
                          "x": rates(table, rate)})
    per_query = frame.groupby(["run", "query"], sort=False)["x"].agg(
        lambda v: mean(v.to_numpy(), within))
    return per_query.groupby(level="run", sort=False).agg(
        lambda v: mean(v.to_numpy(), across)).rename(f"{rate}:{within}/{across}")


ABLATION = (
    ("MAP", "precision", "arithmetic", "arithmetic"),
    ("atomize P", "atomized", "arithmetic", "arithmetic"),
    ("harmonic within queries", "atomized", "harmonic", "arithmetic"),
    ("harmonic across queries", "atomized", "harmonic", "harmonic"),
)


def ablation(table: pd.DataFrame) -> pd.DataFrame:
    """The MAP -> ASL steps of §4.4 (Table 2), one column per step and one
    row per run: ``MAP``; ``atomize P`` (1/ASL_{q,d} instead of Eq. 6);
    ``harmonic within queries`` (Eq. 7 harmonic); ``harmonic across queries``
    (Eq. 8 harmonic, = 1/ASL); and ``ASL`` itself (Eq. 4)."""
    cols = {name: aggregate(table, rate, w, a) for name, rate, w, a in ABLATION}
    cols["ASL"] = aggregate(table, "search_length")
    out = pd.DataFrame(cols)
    out.index.name = "run"
    return out.reset_index()


def rrie(base, new, optimum: float = 1.0):
    """Relative reduction in error from ``base`` to ``new`` (ASL paper Eq. 11-12):
    ``((optimum - base) - (optimum - new)) / (optimum - base)`` up to sign, i.e.
    ``(new - base) / (optimum - base)``; optimum 1 for precision-like measures
    (Eq. 11) and for ASL (Eq. 12)."""
    base = np.asarray(base, dtype=np.float64)
    new = np.asarray(new, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (new - base) / (optimum - base)
    return out if out.ndim else float(out)


OPTIMUM = {"SL1": 0.0, "SL3": 0.0, "RE": 0.0}


def rrie_table(summary: pd.DataFrame, baseline: str,
               optimum: dict[str, float] | None = None) -> pd.DataFrame:
    """RRIE of every run against ``baseline`` for each measure of a
    :func:`irpref.summarize` table (run, measure, value). The optimum is 1
    (P, AP, nDCG, ASL, ...) except SL1, SL3, RE (0) unless ``optimum`` says."""
    from irpref.measures import parse_measure

    optimum = {**OPTIMUM, **(optimum or {})}
    rows = []
    for measure, group in summary.groupby("measure", sort=False):
        values = dict(zip(group["run"], group["value"]))
        if baseline not in values:
            raise ValueError(f"baseline run {baseline!r} has no {measure} value")
        family = parse_measure(measure).name
        best = optimum.get(measure, optimum.get(family, 1.0))
        for run, value in values.items():
            rows.append((run, measure, value, rrie(values[baseline], value, best)))
    return pd.DataFrame(rows, columns=["run", "measure", "value", "rrie"])


def effective_fraction(search_lengths_: Sequence[float]) -> float:
    """ASL paper Appendix A.1: averaging in P-space (the harmonic mean of the
    search lengths) equals the plain mean of the smallest ``k`` search lengths
    for which fraction ``k/n``? (the ``k`` whose prefix mean is closest)."""
    sl = np.sort(np.asarray(search_lengths_, dtype=np.float64))
    if len(sl) == 0:
        raise ValueError("no search lengths")
    target = mean(sl, "harmonic")
    prefix = np.cumsum(sl) / np.arange(1, len(sl) + 1)
    return float((np.argmin(np.abs(prefix - target)) + 1) / len(sl))
