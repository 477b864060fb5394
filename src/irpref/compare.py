"""``compare``: pairwise preferences between runs, one tidy table.

The result has one row per (run_a, run_b, query, measure) with the value of
the preference of ``run_a`` over ``run_b`` (positive: ``run_a`` preferred);
pairs are ``a < b`` in the order the runs were given (the other orientation
is the negation). :func:`mean_preferences` gives the means over queries
(columns run_a, run_b, measure, value: no query column, so a query may be
called ``all``); :func:`preference_matrix` the R x R matrix of one measure.

Queries a run lacks follow the one ``missing`` rule of :func:`irpref.evaluate`
(same parameter, same default): ``skip`` compares a pair only on the queries
both runs retrieved something for (the other entries of the matrices are NaN
and means, win rates and orderings leave them out); ``zero`` scores a missing
query as an empty ranking, as pref_eval does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from irpref.evaluate import announce_missing, judge_with, layout_for
from irpref.io.subtopics import SubtopicQrels, as_subtopic_qrels, collapse
from irpref.judging.judged import JudgedRankings
from irpref.measures.base import parse_labelled
from irpref.measures.subtopic_judgments import use_subtopics
from irpref.params import DEFAULT_MISSING, Settings
from irpref.preferences import (
    DEFAULT_PREFERENCES,
    Comparison,
    PairedComparison,
    Preference,
    parse_preference,
    parse_preferences,
    preference_matrices,
)

__all__ = ["PairedComparison", "compare", "compare_matrices", "mean_preferences", "paired",
           "preference_matrix", "presence_on_dask"]


def compare_matrices(
    qrels,
    runs,
    measures: str | Preference | Sequence[str | Preference] | None = None,
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
    subtopics=None,
    judged: JudgedRankings | None = None,
    client=None,
) -> Comparison:
    """Like :func:`compare`, but returns a :class:`~irpref.preferences.Comparison`:
    the values of any block of run pairs on demand, its means, tidy tables and
    (Q, R, R) matrices (with ``missing="skip"`` a
    :class:`~irpref.preferences.PairedComparison`, NaN where either run of a pair
    lacks the query)."""
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    return compare_with(qrels, runs, measures, settings, subtopics=subtopics, judged=judged,
                        client=client, stacklevel=4)


def compare_with(qrels, runs, measures, settings: Settings, *, subtopics=None,
                 judged: JudgedRankings | None = None, client=None, stacklevel: int = 3
                 ) -> Comparison:
    """:func:`compare_matrices` under settings already resolved (and checked against
    ``judged``'s): the library's own callers pass the value the public entry point
    resolved once."""
    prefs = parse_preferences(measures if measures is not None else DEFAULT_PREFERENCES,
                              judged_only=settings.judged_only)
    if client is not None:
        return _on_dask(client, qrels, runs, prefs, settings, judged, subtopics)
    sub: SubtopicQrels | None = None
    if subtopics is not None and judged is None:  # QRELS may be the subtopic file itself
        qrels, sub = use_subtopics(qrels, subtopics)
    if any(p.family.needs_subtopics for p in prefs):
        if subtopics is not None:
            sub = sub if sub is not None else as_subtopic_qrels(subtopics)
        elif judged is None:
            sub = as_subtopic_qrels(qrels)
            qrels = collapse(sub)
        else:
            raise ValueError("ST-RPP needs subtopic judgments: pass subtopics=...")
    if judged is None:
        layout, _ = layout_for(preferences=prefs, settings=settings, subtopics=sub)
        judged = judge_with(qrels, runs, settings, layout=layout)
    announce_missing(judged, settings.missing, stacklevel=stacklevel)
    mask = judged.query_mask(settings.missing)
    return paired(preference_matrices(judged, prefs, subtopics=sub), judged.queries, mask)


def _on_dask(client, qrels, runs, prefs, settings: Settings, judged, subtopics) -> Comparison:
    """:func:`compare_matrices` with runs read and judged on a Dask cluster."""
    if judged is not None or subtopics is not None:
        raise ValueError("client= reads and judges qrels and runs on Dask: "
                         "judged= and subtopics= are not taken with it")
    from irpref.distributed import compare_matrices as on_dask

    comp = on_dask(qrels, runs, prefs, client=client, settings=settings)
    if settings.missing == "zero":
        return comp
    queries, mask = presence_on_dask(client, qrels, runs, settings)
    return paired(comp, queries, mask)


def _presence(qrels, run, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """(qrels queries, (R_file, Q) query mask) of one run file (a Dask task)."""
    judged = judge_with(qrels, [run], settings, warn=False)
    return judged.queries, judged.query_mask(settings.missing)


def presence_on_dask(client, qrels, runs, settings: Settings):
    """The query mask of every run, one Dask task per run file (the runs are
    judged again there: the distributed comparison keeps only relevant items)."""
    runs = [runs] if isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__") else runs
    parts = client.gather(client.map(_presence, [qrels] * len(runs), list(runs),
                                     [settings] * len(runs), pure=False))
    return parts[0][0], np.concatenate([m for _, m in parts])


def paired(comp: Comparison, queries: np.ndarray, mask: np.ndarray) -> Comparison:
    """``comp`` with NaN where a run of a pair lacks the query (``mask`` (R, Q) over
    ``queries``: True where the run's value enters): a
    :class:`~irpref.preferences.PairedComparison`; unchanged when every run has
    every query."""
    if mask.all():
        return comp
    index = pd.Index(queries)
    jobs = [replace(job, present=mask[:, index.get_indexer(job.queries)])
            for job in comp.jobs]
    return PairedComparison(comp.runs, comp.preferences, jobs, comp.map_blocks)


def compare(
    qrels,
    runs,
    measures: str | Preference | Sequence[str | Preference] | None = None,
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
    subtopics=None,
    judged: JudgedRankings | None = None,
    client=None,
) -> pd.DataFrame:
    """Compare every pair of runs with preferences: one tidy row per pair, query and preference.

    Preferences (lexiprecision ``sgnLP``/``rrLP``, lexirecall ``sgnLR``,
    recall-paired preference ``RPP`` and its forms) compare two rankings
    directly, without a metric per run. A positive value prefers ``run_a``.

    Parameters
    ----------
    qrels : path, DataFrame, dict or Qrels
        The relevance judgments, in any form `evaluate` reads.
    runs : path, DataFrame, dict, Run, or a sequence or dict of them
        The runs, in any form `evaluate` reads.
    measures : str or sequence of str, optional
        Preferences, e.g. ``["sgnLP", "RPP(p=dcg)"]``; default ``sgnLP``,
        ``rrLP``, ``sgnLR``, ``RPP``, ``RPP(p=dcg)`` and ``RPP(p=inverse)``
        (``irpref measures`` lists them all).
    settings : Settings, optional
        The judging settings as one value, or the keywords below.
    rel, depth, ties, missing, corpus_size, judged_only, use_tag, columns : see Settings
        The judging settings as keywords, by the names, defaults (trec_eval's)
        and rules of `Settings`; a keyword beside a different ``settings`` is
        refused.
    subtopics : path or DataFrame, optional
        ndeval-format judgments for ``ST-RPP``.
    judged : JudgedRankings, optional
        Rankings already judged, instead of qrels and runs.
    client : distributed.Client, optional
        A Dask client: runs read and judged one file per task, preferences by
        blocks on the cluster; the same table, value for value.

    Returns
    -------
    pandas.DataFrame
        Columns ``run_a, run_b, query, measure, value``, pairs ``a < b`` in input
        order, for the queries with at least one relevant item (as pref_eval);
        key columns are categorical.

    Raises
    ------
    UsageError
        An unknown preference (a metric given here says to use `evaluate`)
        or an invalid setting.
    InputError
        Input that cannot be read, or a run that shares no query with the qrels.

    See Also
    --------
    mean_preferences : the means over queries.
    preference_matrix : one preference as a run x run matrix.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}}}
    >>> table = irpref.compare(qrels, runs, ["sgnLP", "RPP"])
    >>> print(table.round(4).to_string(index=False))
    run_a run_b query measure   value
     bm25 dense    q1   sgnLP -1.0000
     bm25 dense    q2   sgnLP -1.0000
     bm25 dense    q1     RPP -0.6667
     bm25 dense    q2     RPP -0.5000
    """
    settings = Settings.resolve(settings, judged.settings if judged is not None else None,
                                rel=rel, depth=depth, ties=ties, missing=missing,
                                corpus_size=corpus_size, judged_only=judged_only,
                                use_tag=use_tag, columns=columns)
    return compare_table_with(qrels, runs, measures, settings, subtopics=subtopics,
                              judged=judged, client=client, stacklevel=5)


def compare_table_with(qrels, runs, measures, settings: Settings, *, subtopics=None,
                       judged: JudgedRankings | None = None, client=None,
                       stacklevel: int = 4) -> pd.DataFrame:
    """:func:`compare` on ``settings`` resolved already: the tidy table, labelled by the
    names as given (the library's own callers pass the value the public entry point
    resolved)."""
    labelled = []
    for label, p in parse_labelled(measures if measures is not None else DEFAULT_PREFERENCES,
                                   parse_preference, Preference):
        changed = parse_preference(p, judged_only=settings.judged_only)
        labelled.append((label if changed == p else str(changed), changed))
    unique = list(dict.fromkeys(p for _, p in labelled))  # two spellings: computed once
    table = compare_with(qrels, runs, unique, settings, subtopics=subtopics, judged=judged,
                         client=client, stacklevel=stacklevel).tidy()
    return _relabel(table, labelled)


def _relabel(table: pd.DataFrame, labelled: list) -> pd.DataFrame:
    """Label the ``measure`` column with the strings the user passed."""
    labels: dict[str, list[str]] = {}
    for label, p in labelled:
        labels.setdefault(str(p), []).append(label)
    if all(len(v) == 1 for v in labels.values()):
        table["measure"] = table["measure"].cat.rename_categories(
            {k: v[0] for k, v in labels.items()}
        )
        return table
    parts = []
    for label, p in labelled:
        part = table[table["measure"] == str(p)].copy()
        part["measure"] = label
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    out["measure"] = pd.Categorical(out["measure"], categories=[lb for lb, _ in labelled])
    return out


def mean_preferences(results: pd.DataFrame) -> pd.DataFrame:
    """Average a preference table over queries: one row per run pair and preference.

    Each mean is ``np.mean`` of the pair's per-query values in table order, the
    computation the CLI does, so both print the same digits. Every row with a
    query id is a query (``all`` included); null-query rows (means printed by
    the CLI) are left out.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of `compare` (``run_a, run_b, query, measure, value``).

    Returns
    -------
    pandas.DataFrame
        Columns ``run_a, run_b, measure, value``.

    Raises
    ------
    KeyError
        ``results`` lacks one of the columns of a `compare` table.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}}}
    >>> table = irpref.compare(qrels, runs, ["sgnLP", "RPP"])
    >>> print(irpref.mean_preferences(table).round(4).to_string(index=False))
    run_a run_b measure   value
     bm25 dense   sgnLP -1.0000
     bm25 dense     RPP -0.5833
    """
    per_query = results[results["query"].notna()] if "query" in results else results
    if per_query.empty:
        return pd.DataFrame({"run_a": [], "run_b": [], "measure": [], "value": []})
    keys = ["measure", "run_a", "run_b"]
    codes = [pd.factorize(per_query[k].astype(str), sort=False) for k in keys]
    group = codes[0][0].astype(np.int64)
    for c, _ in codes[1:]:
        group = group * (int(c.max(initial=0)) + 1) + c
    group_codes, first = np.unique(group, return_index=True)
    inverse = np.searchsorted(group_codes, group)
    order = np.argsort(inverse, kind="stable")
    sizes = np.bincount(inverse)
    values = per_query["value"].to_numpy(np.float64)[order]
    if len(sizes) and (sizes == sizes[0]).all():
        means = group_means(values.reshape(len(sizes), sizes[0]))
    else:
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        means = np.array([values[s : s + n].mean() for s, n in zip(starts, sizes)])
    rows = np.sort(first)  # groups in order of first appearance
    back = np.searchsorted(group_codes, group[rows])
    out = pd.DataFrame(
        {
            "run_a": per_query["run_a"].astype(str).to_numpy(object)[rows],
            "run_b": per_query["run_b"].astype(str).to_numpy(object)[rows],
            "measure": per_query["measure"].astype(str).to_numpy(object)[rows],
            "value": means[back],
        }
    )
    return out


def group_means(values: np.ndarray) -> np.ndarray:
    """Row means of a (groups, queries) array (one shared summation for API and CLI)."""
    return np.ascontiguousarray(values, dtype=np.float64).mean(axis=1)


def preference_matrix(
    results: pd.DataFrame, measure: str | None = None, query: str | None = None
) -> pd.DataFrame:
    """One preference as an antisymmetric run x run matrix.

    Entry (a, b) is the preference of row run ``a`` over column run ``b`` (a
    positive value prefers the row), for one query or the mean over queries.

    Parameters
    ----------
    results : pandas.DataFrame
        A table of `compare`, or of `mean_preferences` (no query
        column).
    measure : str, optional
        The preference to show; may be left out when the table holds one.
    query : str, optional
        One query's values; None (default) for the mean over queries.

    Returns
    -------
    pandas.DataFrame
        R x R, rows and columns the runs in input order, zero on the diagonal.

    Raises
    ------
    ValueError
        ``measure`` is not in the table, or is left out when it holds several.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    ...                  "q2": {"d4": 1.0, "d6": 0.5}},
    ...         "dense": {"q1": {"d3": 0.9, "d1": 0.8, "d2": 0.1},
    ...                   "q2": {"d5": 0.7, "d4": 0.6}}}
    >>> table = irpref.compare(qrels, runs, ["sgnLP", "RPP"])
    >>> print(irpref.preference_matrix(table, "sgnLP"))
           bm25  dense
    bm25    0.0   -1.0
    dense   1.0    0.0
    """
    table = results
    if measure is not None:
        table = table[table["measure"] == str(measure)]
    elif table["measure"].nunique() > 1:
        raise ValueError("the table holds several measures: pick one")
    if query is None:
        if "query" in table:
            table = mean_preferences(table)
    else:
        table = table[table["query"].astype(object) == query]
    if table.empty:
        raise ValueError(f"no rows for measure={measure!r}, query={query!r}")
    runs = pd.unique(np.concatenate([table["run_a"].to_numpy(object),
                                     table["run_b"].to_numpy(object)]))
    index = pd.Index(runs)
    a = index.get_indexer(table["run_a"].to_numpy(object))
    b = index.get_indexer(table["run_b"].to_numpy(object))
    mat = np.zeros((len(runs), len(runs)))
    v = table["value"].to_numpy(np.float64)
    mat[a, b] = v
    mat[b, a] = -v
    return pd.DataFrame(mat, index=runs, columns=runs)
