"""``evaluate``: many runs, many measures, one tidy table.

The result has one row per (run, query, measure) with its value; ``summarize``
turns it into means over queries (columns run, measure, value: no query
column, so a query may be called ``all``), using each measure's own aggregate
(arithmetic mean unless the family says otherwise).
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

import irpref.judging.scan as scan
from irpref.errors import InputError, MissingQueries
from irpref.io.frames import as_qrels, as_runs
from irpref.judging.interning import intern, merge_docs
from irpref.judging.judged import LAYOUTS, JudgedRankings
from irpref.judging.ranking import concat_blocks, judge_block
from irpref.judging.ranking import judge_with as judge_with_settings
from irpref.measures import Measure, parse_measure
from irpref.measures.arithmetic import mean_aggregate
from irpref.measures.base import parse_labelled, reads_compact, reads_n_docs
from irpref.measures.bounds import residual_bounds
from irpref.measures.subtopic_judgments import check_subtopics, use_subtopics, with_subtopics
from irpref.measures.trec_prefs import use_preferences
from irpref.params import DEFAULT_MISSING, Settings
from irpref.preferences import parse_preference
from irpref.runtime.memory import release_block

__all__ = [
    "announce_best_for_lacking",
    "announce_missing",
    "computing",
    "refuse_unshared",
    "evaluate",
    "judge_inputs",
    "layout_for",
    "missing_message",
    "summarize",
    "tidy",
]


BLOCK_RUNS = 8
"""Run files read, interned and judged at a time for the compact layout."""


def judge_inputs(
    qrels,
    runs,
    settings: Settings | None = None,
    *,
    rel: int = 1,
    depth: int | None = None,
    ties: str = "docid",
    missing: str = DEFAULT_MISSING,
    corpus_size: int | None = None,
    judged_only: bool = False,
    use_tag: bool = False,
    columns=None,
    warn: bool = True,
    layout: str = "full",
    count_docs: bool = False,
    block_runs: int = BLOCK_RUNS,
) -> JudgedRankings:
    """Read, intern and judge qrels and runs once, under the judging settings.

    The funnel every evaluation passes through (CLI and Python): the settings
    are checked before any input is read; run queries missing from the qrels
    are ignored (as trec_eval does) and counted in a warning; judged queries a
    run lacks are announced where means are taken. The result can be evaluated,
    compared and tested many times (``judged=`` of `evaluate`,
    `compare`, `significance`).

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels
        The relevance judgments, in any form `evaluate` reads.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them
        The runs, in any form `evaluate` reads.
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    warn : bool, default True
        Warn about run queries the qrels lack.
    layout : {"full", "compact"}, default "full"
        ``compact`` keeps only the items the qrels mention (memory grows with
        the judged items, not with the runs); measures and preferences that
        declare they read it accept it.
    count_docs : bool, default False
        Also count the distinct documents of a compact layout.
    block_runs : int, default 8
        In-memory runs judged this many at a time.

    Returns
    -------
    JudgedRankings
        Every run x query ranking, ranked, cut and joined with the qrels,
        carrying its settings.

    Raises
    ------
    UsageError
        An invalid setting (before any input is read).
    InputError
        Input that cannot be read, or a run that shares no query with the qrels.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}}}
    >>> judged = irpref.judge_inputs(qrels, runs, rel=1)
    >>> judged.run_names, judged.rel
    (['bm25'], 1)
    >>> print(irpref.evaluate(None, None, ["AP", "RR"], judged=judged).to_string(index=False))
     run query measure    value
    bm25    q1      AP 0.833333
    bm25    q2      AP 0.500000
    bm25    q1      RR 1.000000
    bm25    q2      RR 1.000000
    """
    settings = Settings.resolve(settings, rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    return judge_with(qrels, runs, settings, warn=warn, layout=layout, count_docs=count_docs,
                      block_runs=block_runs, stacklevel=3)


def judge_with(qrels, runs, settings: Settings, *, warn: bool = True, layout: str = "full",
               count_docs: bool = False, block_runs: int = BLOCK_RUNS, stacklevel: int = 2
               ) -> JudgedRankings:
    """:func:`judge_inputs` under settings already resolved (the library's own callers:
    the public entry points resolve their keywords once, and pass the value on)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    columns = settings.column_map
    if layout == "full":
        collection = intern(as_qrels(qrels, columns=columns),
                            as_runs(runs, use_tag=settings.use_tag, columns=columns))
        unjudged = collection.unjudged_queries
        judged = judge_with_settings(collection, settings, in_place=True)
    else:
        judged, unjudged = _judge_compact(qrels, runs, settings, count_docs, block_runs,
                                          columns)
    refuse_unshared(judged, unjudged)
    if warn and unjudged:
        warnings.warn(_unjudged_message(unjudged), stacklevel=stacklevel)
    return judged


def _judge_compact(qrels, runs, settings: Settings, count_docs: bool, block_runs: int,
                   columns) -> tuple[JudgedRankings, dict[str, list[str]]]:
    """The compact layout of ``runs``: run files one C pass each, in-memory runs
    ``block_runs`` at a time; and the run queries absent from the qrels."""
    blocks, unjudged, docs = [], {}, None
    if not count_docs and scan.takes(runs, columns):  # run files, one at a time
        index = scan.qrels_index(qrels, columns=columns)
        interned = index.collection
        blocks, unjudged = scan.judge_files(index, runs, settings)
        index.close()
    else:
        interned = qrels = as_qrels(qrels, columns=columns)
        for block in _run_blocks(runs, settings, max(1, int(block_runs))):
            collection = intern(qrels, block)
            del block
            unjudged.update(collection.unjudged_queries)
            b = judge_block(collection, settings, count_docs=count_docs)
            del collection
            if count_docs:
                docs = merge_docs(docs, b.docs)
                b = b._replace(docs=None)
            blocks.append(b)
            release_block()
    judged = concat_blocks(blocks, interned, settings,
                           distinct_docs=len(docs) if docs is not None else None)
    del blocks
    release_block()
    return judged, unjudged


def refuse_unshared(judged: JudgedRankings, unjudged: dict[str, list[str]]) -> None:
    """Refuse a run that has queries but shares none with the qrels (an
    :class:`~irpref.errors.InputError` naming the run and a few query ids of
    each side: ``001`` in the qrels and ``1`` in the run is the usual cause).
    A run given in memory with no rows at all lacks every query (announced as
    any other run lacking queries)."""
    for r in np.flatnonzero(~judged.present.any(axis=1)):
        run = judged.run_names[r]
        theirs = list(unjudged.get(run, []))
        if not theirs:
            continue
        ours = [str(q) for q in judged.queries[:3]]
        shown = ", ".join(theirs[:3]) + (", ..." if len(theirs) > 3 else "")
        raise InputError(
            f"run {run}", None,
            f"it shares no query with the qrels (no queries with both results and "
            f"relevance info): its queries are {shown}, the qrels' are "
            f"{', '.join(ours)}{', ...' if judged.n_queries > 3 else ''}")


def _run_blocks(runs, settings: Settings, size: int):
    """The runs as lists of :class:`~irpref.io.trec.Run`, ``size`` at a time, read
    under ``settings`` (use_tag, columns); a list of paths is read block by block
    (other inputs are in memory already)."""
    use_tag, columns = settings.use_tag, settings.column_map
    if isinstance(runs, (list, tuple)) and all(isinstance(r, (str, os.PathLike)) for r in runs):
        for i in range(0, len(runs), size):
            yield as_runs(list(runs[i : i + size]), use_tag=use_tag, columns=columns)
        return
    read = as_runs(runs, use_tag=use_tag, columns=columns)
    for i in range(0, len(read), size):
        yield read[i : i + size]


def layout_for(
    measures: Sequence = (), preferences: Sequence = (), *, settings: Settings | None = None,
    subtopics=None,
) -> tuple[str, bool]:
    """``(layout, count_docs)`` to judge with for computing ``measures`` and
    ``preferences``: ``"compact"`` only when every one declares it reads that
    layout (:attr:`Family.compact`, :attr:`PrefFamily.compact`), ``"full"``
    otherwise (so nothing computes on a layout it cannot read); ``count_docs``
    when a measure needs the number of distinct documents (``n_docs``)."""
    settings = settings or Settings()
    ties, corpus_size = settings.ties, settings.corpus_size
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


def missing_message(run: str, lacks: Sequence[str], n_queries: int, missing: str) -> str:
    """One line: ``run X lacks 2 of 54 judged queries (q1, q7): its means are
    over 52 queries; --missing zero scores them 0`` (or, under ``zero``, that
    they are scored as empty rankings)."""
    shown = ", ".join(lacks[:3]) + (", ..." if len(lacks) > 3 else "")
    head = (f"run {run} lacks {len(lacks)} of {n_queries} judged "
            f"quer{'y' if n_queries == 1 else 'ies'} ({shown}): ")
    if missing == "zero":
        return head + (f"scored as empty rankings (--missing zero), its means are over "
                       f"all {n_queries}")
    kept = n_queries - len(lacks)
    return head + (f"its means are over {kept} quer{'y' if kept == 1 else 'ies'}; "
                   "--missing zero scores them 0")


def announce_missing(judged: JudgedRankings, missing: str, stacklevel: int = 2) -> None:
    """Warn (:class:`~irpref.errors.MissingQueries`) once per run lacking judged queries."""
    for run, lacks in judged.lacking().items():
        warnings.warn(MissingQueries(missing_message(run, lacks, judged.n_queries, missing)),
                      stacklevel=stacklevel)


def announce_best_for_lacking(label: str, m: Measure, judged: JudgedRankings,
                              values: np.ndarray, lacking: np.ndarray,
                              stacklevel: int = 2) -> None:
    """Under ``missing="zero"`` a query a run lacks (``lacking``, (R, Q)) is scored as
    an empty ranking; where that scores a measure's *best* value (ASL counts the
    non-relevant retrieved above each relevant item: none, so 0), the lacking
    queries raise the run's mean instead of lowering it. Warn once per such
    measure, naming the runs (:class:`~irpref.errors.MissingQueries`)."""
    best = m.best
    if best is None:
        return
    at_best = lacking & (values == best)
    runs = [judged.run_names[r] for r in np.flatnonzero(at_best.any(axis=1))]
    if not runs:
        return
    shown = ", ".join(runs[:3]) + (", ..." if len(runs) > 3 else "")
    n, one = int(at_best.sum()), len(runs) == 1
    warnings.warn(MissingQueries(
        f"{label} is {best:g}, its best value ({m.orientation} is better), on an empty "
        f"ranking: the {n} quer{'y' if n == 1 else 'ies'} run{'' if one else 's'} {shown} "
        f"lack{'s' if one else ''} raise {'its' if one else 'their'} mean under --missing "
        "zero; --missing skip leaves them out"),
        stacklevel=stacklevel)


def tidy(
    judged: JudgedRankings,
    values: dict[str, np.ndarray | Callable[[], np.ndarray]],
    mask: np.ndarray,
    bounds: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> pd.DataFrame:
    """Long table (run, query, measure, value) of (R, Q) arrays, rows where ``mask``;
    with ``bounds`` (``{name: (lower, upper)}``) the columns ``lower`` and ``upper`` too.

    A value may be the function computing the array (:func:`computing`): it is
    called when its rows are filled, so only one measure's array is held beside
    the table. ``run``, ``query`` and ``measure`` are categorical (codes into the
    run names, the queries and the measure labels): no Python object per row,
    whatever the number of queries."""
    names = list(values)
    n_runs, n_queries = mask.shape
    if mask.all():  # every (run, query): codes by repeat and tile, no index arrays
        r_idx = q_idx = None
        r_codes = np.repeat(np.arange(n_runs, dtype=_code_type(n_runs)), n_queries)
        q_codes = np.tile(np.arange(n_queries, dtype=_code_type(n_queries)), n_runs)
    else:
        r_idx, q_idx = np.nonzero(mask)
        r_codes = r_idx.astype(_code_type(n_runs))
        q_codes = q_idx.astype(_code_type(n_queries))
    rows = len(r_codes)
    measure_codes = np.repeat(np.arange(len(names), dtype=_code_type(len(names))), rows)
    codes = pd.Categorical.from_codes
    queries = pd.Index(pd.array(judged.query_ids, dtype="str"))
    cols = {
        "run": codes(np.tile(r_codes, len(names)), dtype=_distinct(pd.Index(judged.run_names))),
        "query": codes(np.tile(q_codes, len(names)), dtype=_distinct(queries)),
        "measure": codes(measure_codes, dtype=_distinct(pd.Index(names))),
        "value": _gathered([values[n] for n in names], r_idx, q_idx, rows),
    }
    del r_codes, q_codes, measure_codes
    extra = ["lower", "upper"] if bounds is not None else []
    for i, col in enumerate(extra):
        cols[col] = _gathered([bounds[n][i] for n in names], r_idx, q_idx, rows)
    return pd.DataFrame(cols, copy=False)


def _distinct(categories: pd.Index) -> pd.CategoricalDtype:
    """The categorical dtype of ``categories``, known distinct (run names, query
    ids and measure labels are refused or merged when repeated), without pandas
    checking it again: its check hashes a Python string per category (0.2 s and
    50 MB for 500,000 query ids). Where pandas lacks that shortcut, its public
    constructor, which checks."""
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    if fast is None:  # pragma: no cover - depends on the pandas version
        return pd.CategoricalDtype(categories)
    return fast(categories, ordered=False)


def _code_type(n: int) -> type:
    """The integer type pandas keeps the codes of ``n`` categories in."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return t
    return np.int64


def _gathered(arrays: list[np.ndarray], r_idx: np.ndarray | None,
              q_idx: np.ndarray | None, size: int) -> np.ndarray:
    """The ``[r_idx, q_idx]`` entries (``size`` of them) of every (R, Q) array
    (None: all of them, run by run), one array after the other (float64)."""
    out = np.empty(len(arrays) * size, np.float64)
    for i, arr in enumerate(arrays):
        arr = arr() if callable(arr) else arr
        part = out[i * size : (i + 1) * size]
        if r_idx is None:
            part.reshape(np.shape(arr))[...] = arr
        else:
            part[:] = arr[r_idx, q_idx]
        del arr
    return out


def computing(labelled: Sequence[tuple[str, Measure]], judged: JudgedRankings,
              check: Callable[[str, Measure, np.ndarray], None] | None = None
              ) -> dict[str, Callable[[], np.ndarray]]:
    """``{label: function computing the measure's (R, Q) values on judged}``, for
    :func:`tidy`: a measure named by two labels is computed once and kept only
    until its last label's rows are filled; ``check(label, measure, values)`` sees
    each label's values as they are computed."""
    labels = dict(labelled)
    left = Counter(labels.values())
    kept: dict[Measure, np.ndarray] = {}

    def value_of(label: str, m: Measure) -> Callable[[], np.ndarray]:
        def compute() -> np.ndarray:
            values = kept.pop(m) if m in kept else m.compute(judged)
            left[m] -= 1
            if left[m]:
                kept[m] = values
            if check is not None:
                check(label, m, values)
            return values

        return compute

    return {label: value_of(label, m) for label, m in labels.items()}


def evaluate(
    qrels,
    runs,
    measures: str | Measure | Sequence[str | Measure],
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
    judged: JudgedRankings | None = None,
    subtopics=None,
    bounds: bool = False,
) -> pd.DataFrame:
    """Evaluate runs against qrels: one tidy row per run, query and measure.

    Every aggregate, test and report is built from this table. Measures are
    parsed (any accepted spelling) and the judging settings checked before any
    input is read.

    Parameters
    ----------
    qrels : path, DataFrame, dict, Qrels or None
        The relevance judgments: a TREC qrels file (plain or ``.gz``), a CSV, TSV,
        JSON lines or Parquet table, a DataFrame, a pytrec_eval-style dict
        ``{query: {doc: grade}}``, a `Qrels`, ``irds:DATASET-ID`` or
        preference judgments (a ``.prefs`` file: the ``Prefs*`` measures read them).
        None with ``judged`` or ``subtopics``.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them
        The runs: run files, DataFrames, ``{query: {doc: score}}`` dicts, or a
        dict ``{name: run}``. A run is named after its file, its dict key or its
        tag column (``use_tag``).
    measures : str, Measure or sequence of them
        e.g. ``["AP", "nDCG@10", "P@10", "RBP(p=0.5)"]``, or the spellings of
        trec_eval, ir_measures, ranx or PyTerrier (``map``, ``ndcg_cut.10``).
        Rows are labelled with the string passed; an ir_measures object is
        labelled by its irpref text, e.g. ``P(rel=1)@10``.
    settings : Settings, optional
        The judging settings as one value, or the keywords below by the same
        names (a keyword given beside a different ``settings`` value is refused).
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    judged : JudgedRankings, optional
        Rankings already judged (`judge_inputs`) instead of qrels and runs;
        their judging settings hold (a different ``rel``, ``depth``, ``ties``,
        ``corpus_size`` or ``use_tag`` is refused).
    subtopics : path or DataFrame, optional
        ndeval-format subtopic qrels for the diversity measures (alpha-nDCG@k,
        ERR-IA@k, MAP-IA, S-recall@k); ``qrels=None`` uses them, collapsed, as
        the qrels too.
    bounds : bool, default False
        Add columns ``lower`` and ``upper``: the smallest and largest value of
        each measure over every grade the unjudged retrieved documents could
        have (NaN where the measure's record defines no rule).

    Returns
    -------
    pandas.DataFrame
        Columns ``run, query, measure, value`` (plus ``lower, upper`` with
        ``bounds``); ``run``, ``query`` and ``measure`` are categorical.
        `summarize` turns it into one row per run and measure.

    Raises
    ------
    UsageError
        An unknown measure or an invalid parameter or setting (a ``ValueError``).
    InputError
        Input that cannot be read exactly, naming the file, the line and the
        problem, or a run that shares no query with the qrels (a ``ValueError``).

    See Also
    --------
    summarize : one value per run and measure.
    compare : preferences between every pair of runs.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}}}
    >>> results = irpref.evaluate(qrels, runs, ["AP", "nDCG@10"])
    >>> print(results.round(4).to_string(index=False))
      run query measure  value
     bm25    q1      AP 0.8333
     bm25    q2      AP 0.5000
    dense    q1      AP 1.0000
    dense    q2      AP 1.0000
     bm25    q1 nDCG@10 0.7602
     bm25    q2 nDCG@10 0.6131
    dense    q1 nDCG@10 1.0000
    dense    q2 nDCG@10 1.0000

    On the example collection shipped with irpref (TREC DL 2019 passage, grade
    >= 2 relevant), the values are trec_eval's:

    >>> from irpref import examples
    >>> table = irpref.evaluate(examples.qrels_path(), examples.run_paths(), ["AP"], rel=2)
    >>> print(irpref.summarize(table).round(4).to_string(index=False))
                run measure  value
             TUA1-1      AP 0.4149
           UNH_bm25      AP 0.2115
         bm25base_p      AP 0.2476
    bm25tuned_rm3_p      AP 0.2778
       idst_bert_p1      AP 0.4480
             p_bert      AP 0.4200
    """
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    return evaluate_with(qrels, runs, measures, settings, judged=judged, subtopics=subtopics,
                         bounds=bounds, stacklevel=4)


def evaluate_with(qrels, runs, measures, settings: Settings, *,
                  judged: JudgedRankings | None = None, subtopics=None, bounds: bool = False,
                  stacklevel: int = 3) -> pd.DataFrame:
    """:func:`evaluate` under settings already resolved (and checked against
    ``judged``'s): the library's own callers pass the value the public entry point
    resolved once."""
    # every name checked before reading (ir_measures objects through the converter
    # irpref.interop.ir_measures registers with the resolver)
    labelled = labelled_measures(measures, settings)
    check_subtopics([m for _, m in labelled], subtopics, judged)
    qrels, sub = use_subtopics(qrels, subtopics)
    qrels, prefs = use_preferences(qrels, [m for _, m in labelled])
    if judged is None:
        layout, count_docs = layout_for([m for _, m in labelled], settings=settings,
                                        subtopics=sub)
        if bounds and settings.ties == "expected":  # the unjudged items' tie groups: full
            layout, count_docs = "full", False
        judged = judge_with(qrels, runs, settings, layout=layout, count_docs=count_docs)
    if sub is not None:
        judged = with_subtopics(judged, sub)
    if prefs is not None:
        judged = judged.with_preferences(prefs)
    mask = judged.query_mask(settings.missing)
    announce_missing(judged, settings.missing, stacklevel=stacklevel)
    check = None
    lacking = ~judged.present
    if settings.missing == "zero" and lacking.any():
        def check(label: str, m: Measure, values: np.ndarray) -> None:
            announce_best_for_lacking(label, m, judged, values, lacking,
                                      stacklevel=stacklevel + 2)
    if not bounds:  # each measure computed as its rows are filled: one array held at a time
        return tidy(judged, computing(labelled, judged, check), mask)
    computed: dict[Measure, np.ndarray] = {}  # two spellings of one measure: computed once
    values = {}
    for label, m in labelled:
        if m not in computed:
            computed[m] = m.compute(judged)
        values[label] = computed[m]
        if check is not None:
            check(label, m, values[label])
    found = residual_bounds(judged, list(computed), values=computed)
    return tidy(judged, values, mask, {label: found[m] for label, m in labelled})


def labelled_measures(measures, settings: Settings) -> list[tuple[str, Measure]]:
    """``[(label, measure), ...]``: each name parsed under the settings
    (``judged_only``), labelled with the string passed, or, where the settings
    changed what it means, with the measure's text (``AP(judged_only=true)``)."""
    out = []
    for label, m in parse_labelled(measures, parse_measure, Measure):
        changed = parse_measure(m, judged_only=settings.judged_only)
        out.append((label if changed == m else str(changed), changed))
    return out


def summarize(results: pd.DataFrame, wide: bool = False, counts: bool = False) -> pd.DataFrame:
    """Aggregate per-query rows into one value per run and measure.

    Each measure uses its family's aggregate (the mean unless its record says
    otherwise, e.g. a sum for the counts); a mean is correctly rounded
    (:func:`irpref.measures.arithmetic.exact_mean`), so the same values in
    another query order give the same bits. Every row with a query id is a query
    (a query named ``all`` included); rows whose query is null (mean rows
    printed by the CLI) are left out. Groups keep the order of first
    appearance, so the result lists runs and measures in input order.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of `evaluate` (``run, query, measure, value``).
    wide : bool, default False
        Return the run x measure table instead: index ``run``, one column per
        measure.
    counts : bool, default False
        Add column ``n``: the queries behind each value (fewer than the judged
        queries for a run that lacks some under ``missing="skip"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``run, measure, value`` (and ``n``), or the wide table.

    Raises
    ------
    KeyError
        ``results`` lacks one of the columns ``run``, ``query``, ``measure``,
        ``value``.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}}}
    >>> results = irpref.evaluate(qrels, runs, ["AP", "nDCG@10"])
    >>> print(irpref.summarize(results, counts=True).round(4).to_string(index=False))
      run measure  value  n
     bm25      AP 0.6667  2
    dense      AP 1.0000  2
     bm25 nDCG@10 0.6867  2
    dense nDCG@10 1.0000  2
    >>> print(irpref.summarize(results, wide=True).round(4))  # doctest: +NORMALIZE_WHITESPACE
               AP  nDCG@10
    run
    bm25   0.6667   0.6867
    dense  1.0000   1.0000
    """
    if wide:
        tidy = summarize(results)
        table = tidy.pivot(index="run", columns="measure", values="value")
        table = table.reindex(index=pd.unique(tidy["run"]), columns=pd.unique(tidy["measure"]))
        table.columns.name = None
        table.index.name = "run"
        return table
    per_query = (results[results["query"].notna()]
                 if "query" in results and results["query"].hasnans else results)
    if all(isinstance(per_query[c].dtype, pd.CategoricalDtype) for c in ("run", "measure")):
        return _summarize_codes(per_query, counts)
    out = []
    for measure, group in per_query.groupby("measure", sort=False):
        aggregate = mean_aggregate(parse_measure(measure).family.aggregate)
        by_run = group.groupby("run", sort=False)["value"]
        means = by_run.agg(lambda v, f=aggregate: float(f(v.to_numpy())))
        frame = pd.DataFrame({"run": means.index, "measure": measure, "value": means.values})
        cols = [c for c in ("lower", "upper") if c in group]
        if cols:  # the bounds by the same aggregate, run by run in row order
            codes = pd.Index(means.index).get_indexer(group["run"])
            order = np.argsort(codes, kind="stable")
            cuts = np.searchsorted(codes[order], np.arange(1, len(means)))
            for col in cols:
                parts = np.split(group[col].to_numpy(np.float64)[order], cuts)
                frame[col] = np.array([float(aggregate(v)) for v in parts], np.float64)
        if counts:
            frame["n"] = by_run.size().reindex(means.index).to_numpy(np.int64)
        out.append(frame)
    if not out:
        return _no_means(counts)
    return pd.concat(out, ignore_index=True)


def _no_means(counts: bool) -> pd.DataFrame:
    empty = {"run": [], "measure": [], "value": []}
    return pd.DataFrame({**empty, "n": []} if counts else empty)


def _summarize_codes(per_query: pd.DataFrame, counts: bool) -> pd.DataFrame:
    """:func:`summarize` of rows whose ``run`` and ``measure`` are categorical."""
    run, measure = per_query["run"], per_query["measure"]
    n_runs = len(run.cat.categories)
    r_codes, m_codes = run.cat.codes.to_numpy(), measure.cat.codes.to_numpy()
    wide = len(measure.cat.categories) * (n_runs + 1) >= np.iinfo(np.int32).max
    key = m_codes.astype(np.int64 if wide else np.int32)
    key *= n_runs + 1
    key += r_codes
    if r_codes.min(initial=0) < 0 or m_codes.min(initial=0) < 0:  # a null run or measure
        key[(m_codes < 0) | (r_codes < 0)] = -1
    order, bounds = _grouped_rows(key)
    keys = key[order[bounds[:-1]]] if order is not None else key[bounds[:-1]]
    groups = np.flatnonzero(keys >= 0)  # rows with a null run or measure left out
    if not len(groups):
        return _no_means(counts)
    m_code, r_code = np.divmod(keys[groups].astype(np.int64), n_runs + 1)
    # measures by first appearance; runs by first appearance within each measure
    # (the order _grouped_rows gives the groups: by their first row)
    m_first: dict[int, int] = {}
    for m in m_code:
        m_first.setdefault(int(m), len(m_first))
    rank = np.array([m_first[int(m)] for m in m_code], np.int64)
    groups = groups[np.argsort(rank, kind="stable")]
    m_code, r_code = np.divmod(keys[groups].astype(np.int64), n_runs + 1)
    names = measure.cat.categories
    aggregates = {int(m): mean_aggregate(parse_measure(names[m]).family.aggregate)
                  for m in np.unique(m_code)}
    cols = ["value", *(c for c in ("lower", "upper") if c in per_query)]
    frame = {"run": pd.Categorical.from_codes(r_code, dtype=run.dtype),
             "measure": [names[m] for m in m_code]}
    for col in cols:
        values = per_query[col].to_numpy(np.float64)
        if order is not None:
            values = values[order]
        frame[col] = np.array([float(aggregates[int(m)](values[bounds[g]:bounds[g + 1]]))
                               for g, m in zip(groups, m_code)], np.float64)
    if counts:
        frame["n"] = np.diff(bounds)[groups].astype(np.int64)
    return pd.DataFrame(frame)


def _grouped_rows(key: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """The rows grouped by ``key``, groups in order of their first row, rows in
    row order within a group: ``(order, bounds)``, group ``g`` the rows
    ``order[bounds[g]:bounds[g + 1]]`` (``order`` None: the rows are grouped
    already, as :func:`tidy` lays them out, and nothing is sorted)."""
    n = len(key)
    starts = np.flatnonzero(key[1:] != key[:-1]) + 1 if n else np.zeros(0, np.int64)
    starts = np.concatenate([[0], starts]) if n else starts
    if len(np.unique(key[starts])) == len(starts):  # each key in one block
        return None, np.append(starts, n)
    order = np.argsort(key, kind="stable")  # by key, row order within
    sorted_key = key[order]
    cut = np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1
    bounds = np.concatenate([[0], cut, [n]])
    by_first = np.argsort(order[bounds[:-1]], kind="stable")  # groups by first row
    pieces = [order[bounds[g]:bounds[g + 1]] for g in by_first]
    order = np.concatenate(pieces) if pieces else order
    sizes = np.diff(bounds)[by_first]
    return order, np.concatenate([[0], np.cumsum(sizes)])
