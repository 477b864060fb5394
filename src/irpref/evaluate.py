"""``evaluate``: many runs, many measures, one tidy table.

The result has one row per (run, query, measure) with its value; ``summarize``
turns it into means over queries (columns run, measure, value: no query
column, so a query may be called ``all``), using each measure's own aggregate
(arithmetic mean unless the family says otherwise).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from irpref.interop.ir_measures import from_ir_measures
from irpref.io.frames import as_qrels, as_runs
from irpref.judged import JudgedRankings, intern, judge
from irpref.measures import Measure, parse_measure
from irpref.measures.base import parse_labelled
from irpref.measures.diversity import attach_subtopics, check_subtopics, use_subtopics
from irpref.params import check_corpus_size, check_depth, check_rel

__all__ = ["evaluate", "judge_inputs", "summarize", "tidy"]


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
) -> JudgedRankings:
    """Read (if needed), intern and judge ``qrels`` and ``runs``.

    Run queries missing from the qrels are ignored, as trec_eval does, and
    counted in a warning.
    """
    collection = intern(as_qrels(qrels), as_runs(runs, use_tag=use_tag))
    if warn and collection.unjudged_queries:
        warnings.warn(_unjudged_message(collection.unjudged_queries), stacklevel=2)
    return judge(
        collection, ties=ties, depth=depth, rel=rel, corpus_size=corpus_size, in_place=True
    )


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
    # ir_measures objects -> irpref text; every name checked before reading
    labelled = parse_labelled(from_ir_measures(measures), parse_measure, Measure)
    check_subtopics([m for _, m in labelled], subtopics, judged)
    qrels, sub = use_subtopics(qrels, subtopics)
    if judged is None:
        rel = check_rel(rel, "rel")
        depth = check_depth(depth, "depth")
        corpus_size = check_corpus_size(corpus_size, "corpus_size")
        judged = judge_inputs(qrels, runs, rel=rel, depth=depth, ties=ties, corpus_size=corpus_size)
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
