"""``evaluate``: many runs, many measures, one tidy table.

The result has one row per (run, query, measure) with its value; ``summarize``
turns it into means over queries (columns run, measure, value: no query
column, so a query may be called ``all``), using each measure's own aggregate
(arithmetic mean unless the family says otherwise).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref import scan
from irpref.io.frames import as_qrels, as_runs
from irpref.judged import (
    LAYOUTS,
    TIES,
    JudgedRankings,
    concat_blocks,
    intern,
    judge,
    judge_block,
    merge_docs,
    refuse_bad_depth,
)
from irpref.measures import Measure, parse_measure
from irpref.measures.base import parse_labelled
from irpref.measures.diversity import attach_subtopics, check_subtopics, use_subtopics
from irpref.params import check_corpus_size, check_depth, check_rel

__all__ = ["evaluate", "judge_inputs", "layout_for", "summarize", "tidy"]


BLOCK_RUNS = 8
"""Run files read, interned and judged at a time for the compact layout."""


def judge_inputs(
    qrels,
    runs,
    *,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    use_tag: bool = False,
    warn: bool = True,
    corpus_size: int | None = None,
    layout: str = "full",
    count_docs: bool = False,
    block_runs: int = BLOCK_RUNS,
) -> JudgedRankings:
    """Read (if needed), intern and judge ``qrels`` and ``runs``.

    Run queries missing from the qrels are ignored, as trec_eval does, and
    counted in a warning.

    ``layout="compact"`` reduces each run at once to the items the qrels
    mention (:func:`irpref.judged.judge_block`), so memory grows with the
    judged items, not with the number of runs; measures and preferences that
    declare it (:func:`layout_for`) read it. Run files are judged one file at
    a time on a pool of threads (:func:`irpref.scan.judge_files`: one C pass
    per file); in-memory runs ``block_runs`` at a time. ``count_docs``
    also counts the distinct documents (``n_docs``) of the compact layout.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    qrels = as_qrels(qrels)
    if layout == "full":
        collection = intern(qrels, as_runs(runs, use_tag=use_tag))
        if warn and collection.unjudged_queries:
            warnings.warn(_unjudged_message(collection.unjudged_queries), stacklevel=2)
        return judge(
            collection, ties=ties, depth=depth, rel=rel, corpus_size=corpus_size, in_place=True
        )
    if ties not in TIES:  # refused before any run is read
        raise ValueError(f"ties must be one of {', '.join(TIES)}; got {ties!r}")
    refuse_bad_depth(depth)
    blocks, unjudged, docs, interned = [], {}, None, qrels
    if not count_docs and scan.takes(runs):  # run files, one at a time
        index = scan.QrelsIndex(qrels)
        interned = index.collection
        blocks, unjudged = scan.judge_files(index, runs, ties=ties, depth=depth, use_tag=use_tag)
    else:
        for block in _run_blocks(runs, use_tag, max(1, int(block_runs))):
            collection = intern(qrels, block)
            del block
            unjudged.update(collection.unjudged_queries)
            b = judge_block(collection, ties=ties, depth=depth, count_docs=count_docs)
            del collection
            if count_docs:
                docs = merge_docs(docs, b.docs)
                b = b._replace(docs=None)
            blocks.append(b)
            _release_memory()
    if warn and unjudged:
        warnings.warn(_unjudged_message(unjudged), stacklevel=2)
    judged = concat_blocks(
        blocks, interned, rel=rel, ties=ties, depth=depth, corpus_size=corpus_size,
        distinct_docs=len(docs) if docs is not None else None,
    )
    del blocks
    _release_memory()
    return judged


def _release_memory() -> None:
    """Hand the memory a judged block freed back to the system: Arrow's pool
    and (glibc) malloc keep freed pages for reuse, and the heap's holes then
    add to the peak of what the measures and preferences allocate next
    (100 runs: compare 0.47x the run text with a trim per block, 0.54x with
    one at the end). The price is page faults in the next block (about 15%
    of the judging time for 300 runs)."""
    import contextlib
    import ctypes

    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(None).malloc_trim(0)


def _run_blocks(runs, use_tag: bool, size: int):
    """The runs as lists of :class:`~irpref.io.trec.Run`, ``size`` at a time;
    a list of paths is read block by block (other inputs are in memory already)."""
    if isinstance(runs, (list, tuple)) and all(isinstance(r, (str, os.PathLike)) for r in runs):
        for i in range(0, len(runs), size):
            yield as_runs(list(runs[i : i + size]), use_tag=use_tag)
        return
    read = as_runs(runs, use_tag=use_tag)
    for i in range(0, len(read), size):
        yield read[i : i + size]


def layout_for(
    measures: Sequence = (), preferences: Sequence = (), *, ties: str = "docid",
    corpus_size: int | None = None, subtopics=None,
) -> tuple[str, bool]:
    """``(layout, count_docs)`` to judge with for computing ``measures`` and
    ``preferences``: ``"compact"`` only when every one declares it reads that
    layout (:attr:`Family.compact`, :attr:`PrefFamily.compact`), ``"full"``
    otherwise (so nothing computes on a layout it cannot read); ``count_docs``
    when a measure needs the number of distinct documents (``n_docs``)."""
    from irpref.measures.base import reads_compact, reads_n_docs
    from irpref.preferences import parse_preference

    ms = [parse_measure(m) for m in measures]
    ps = [parse_preference(p) for p in preferences]
    if subtopics is not None or not (ms or ps):
        return "full", False
    ok = all(reads_compact(m, ties) for m in ms) and all(p.family.compact for p in ps)
    if not ok:
        return "full", False
    return "compact", corpus_size is None and any(reads_n_docs(m) for m in ms)


def _unjudged_message(unjudged: dict[str, list[str]]) -> str:
    """One short line: how many distinct queries, in how many runs, the first few ids."""
    queries = sorted({q for qs in unjudged.values() for q in qs})
    shown = ", ".join(queries[:3]) + (", ..." if len(queries) > 3 else "")
    runs = len(unjudged)
    return (
        f"{len(queries)} quer{'y' if len(queries) == 1 else 'ies'} absent from the qrels "
        f"ignored in {runs} run{'' if runs == 1 else 's'} ({shown})"
    )


def tidy(
    judged: JudgedRankings,
    values: dict[str, np.ndarray],
    mask: np.ndarray,
) -> pd.DataFrame:
    """Long table (run, query, measure, value) of (R, Q) arrays, rows where ``mask``."""
    r_idx, q_idx = np.nonzero(mask)
    runs = np.asarray(judged.run_names, dtype=object)
    frames = [
        pd.DataFrame(
            {
                "run": runs[r_idx],
                "query": judged.queries[q_idx],
                "measure": name,
                "value": arr[r_idx, q_idx].astype(np.float64),
            }
        )
        for name, arr in values.items()
    ]
    if not frames:
        return pd.DataFrame({"run": [], "query": [], "measure": [], "value": []})
    return pd.concat(frames, ignore_index=True)


def evaluate(
    qrels,
    runs,
    measures: str | Measure | Sequence[str | Measure],
    *,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = "skip",
    corpus_size: int | None = None,
    judged: JudgedRankings | None = None,
    subtopics=None,
) -> pd.DataFrame:
    """Evaluate ``runs`` against ``qrels``: a tidy DataFrame (run, query, measure, value).

    qrels, runs: paths, DataFrames, nested dicts or read objects (see :mod:`irpref.io`).
    measures:    e.g. ``["AP", "nDCG@10", "P@10", "RBP(p=0.5)"]``, or the spellings of
                 trec_eval, ir_measures, ranx, PyTerrier (``map``, ``ndcg_cut.10``);
                 rows are labelled with the string passed (``str(m)`` for a Measure).
                 ir_measures objects (``ir_measures.nDCG@10``) are labelled by their
                 irpref text, e.g. ``P(rel=1)@10`` (see :mod:`irpref.interop.ir_measures`).
    rel:         relevance level, grade >= rel is relevant (trec_eval ``-l``).
    depth:       keep the top ``depth`` of every ranking after sorting (``-M``).
    ties:        ``docid`` (trec_eval), ``input`` (file order) or ``expected``.
    missing:     ``skip`` queries a run lacks, or score them as an empty ranking
                 (``zero``, trec_eval ``-c``).
    corpus_size: documents in the collection, for measures that impute
                 unretrieved relevant documents at the bottom of the corpus.
    subtopics:   ndeval-format subtopic qrels (path or DataFrame) for the diversity
                 measures (alpha-nDCG@k, ERR-IA@k, MAP-IA, S-recall@k); ``qrels=None``
                 (or the same path) uses them, collapsed, as the qrels too.
    """
    # every name checked before reading (ir_measures objects through the converter
    # irpref.interop.ir_measures registers with the resolver)
    labelled = parse_labelled(measures, parse_measure, Measure)
    check_subtopics([m for _, m in labelled], subtopics, judged)
    qrels, sub = use_subtopics(qrels, subtopics)
    if judged is None:
        rel = check_rel(rel, "rel")
        depth = check_depth(depth, "depth")
        corpus_size = check_corpus_size(corpus_size, "corpus_size")
        layout, count_docs = layout_for(
            [m for _, m in labelled], ties=ties, corpus_size=corpus_size, subtopics=sub
        )
        judged = judge_inputs(qrels, runs, rel=rel, depth=depth, ties=ties,
                              corpus_size=corpus_size, layout=layout, count_docs=count_docs)
    if sub is not None:
        attach_subtopics(judged, sub)
    mask = judged.query_mask(missing)
    computed: dict[Measure, np.ndarray] = {}  # two spellings of one measure: computed once
    values = {}
    for label, m in labelled:
        if m not in computed:
            computed[m] = m.compute(judged)
        values[label] = computed[m]
    return tidy(judged, values, mask)


def summarize(results: pd.DataFrame, wide: bool = False) -> pd.DataFrame:
    """Aggregate per-query rows into one row per (run, measure): columns run, measure, value.

    Each measure uses its family's aggregate (mean unless stated otherwise).
    Every row of ``results`` with a query id is a query (``all`` included);
    rows whose query is null (mean rows printed by the CLI) are left out.
    ``wide=True`` returns the run x measure table instead: index ``run`` (in
    input order), one column per measure (in input order).
    """
    if wide:
        tidy = summarize(results)
        table = tidy.pivot(index="run", columns="measure", values="value")
        table = table.reindex(index=pd.unique(tidy["run"]), columns=pd.unique(tidy["measure"]))
        table.columns.name = None
        table.index.name = "run"
        return table
    from irpref.measures import parse_measure

    out = []
    per_query = results[results["query"].notna()] if "query" in results else results
    for measure, group in per_query.groupby("measure", sort=False):
        aggregate = parse_measure(measure).family.aggregate or np.mean
        means = group.groupby("run", sort=False)["value"].agg(
            lambda v, f=aggregate: float(f(v.to_numpy()))
        )
        out.append(
            pd.DataFrame(
                {"run": means.index, "measure": measure, "value": means.values}
            )
        )
    if not out:
        return pd.DataFrame({"run": [], "measure": [], "value": []})
    return pd.concat(out, ignore_index=True)
