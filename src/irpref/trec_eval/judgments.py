"""trec_eval's values for its two other judgment kinds: preferences and judgment groups.

- ``-R prefs`` / ``-R qrels_prefs``: the ``prefs_*`` measures
  (:mod:`irpref.measures.trec_prefs`) of one run.
- ``-R qrels_jg``: ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``: the
  measure (AP, P@k, RprecMult) under each judge's qrels, summed over the
  query's judges in judge order and divided by their number (m_map_avgjg.c,
  m_P_avgjg.c, m_Rprec_mult_avgjg.c). :func:`per_judge` gives the per-judge
  values themselves, for any irpref measure.

Each function returns per-query values keyed by trec_eval's printed names,
the queries (sorted) and which of them the run retrieved, for
:func:`irpref.trec_eval.format.render_trec_eval`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from irpref.io.prefs import JudgmentGroups, Preferences
from irpref.io.records import Run
from irpref.judging.condense import condense
from irpref.judging.interning import intern
from irpref.judging.ranking import judge
from irpref.measures import parse_measure
from irpref.measures.pref_judgments import judge_preferences
from irpref.measures.pref_pairs import preference_pairs
from irpref.measures.trec_prefs import PREFS_MEASURES, prefs_values
from irpref.params import Settings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["jg_trec_values", "per_judge", "prefs_trec_values"]

Values = dict[str, np.ndarray]


def prefs_trec_values(prefs: Preferences, run: Run, requested: Sequence, *,
                      depth: int | None = None) -> tuple[Values, np.ndarray, np.ndarray]:
    """Per-query values of the requested prefs_* measures (and num_q)."""
    pairs = preference_pairs(prefs)
    judged = judge_preferences(pairs, [run], depth)
    values: Values = {}
    for req in requested:
        name = req.spec.name
        if name in PREFS_MEASURES:
            values[name] = prefs_values(judged, name)[0]
        elif name == "num_q":
            values[name] = np.ones(judged.n_queries)
    return values, pairs.queries, judged.present[0]


def per_judge(groups: JudgmentGroups, run: Run, measures: Sequence[str],
              settings: Settings | None = None, *, judged_only: bool = False,
              **keywords) -> pd.DataFrame:
    """The value of each measure under each judge's qrels, for every query
    the judge judged: a tidy table ``judge, query, measure, value`` (judges
    in byte order, queries sorted). ``settings`` (or the keywords of
    :class:`~irpref.params.Settings`: ``rel``, ``depth``, ...) judge the run;
    ``judged_only``: the judged documents only (trec_eval ``-J``)."""
    import pandas as pd

    settings = Settings.resolve(settings, **keywords)
    frames = []
    parsed = [parse_measure(m) for m in measures]
    for name in groups.judges:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            judged = judge(intern(groups.of_judge(name), [run]), settings)
        if judged_only:
            judged = condense(judged)
        for text, m in zip(measures, parsed):
            frames.append(pd.DataFrame({"judge": name, "query": judged.queries,
                                        "measure": text, "value": m.compute(judged)[0],
                                        "present": judged.present[0]}))
    return pd.concat(frames, ignore_index=True)


def jg_trec_values(groups: JudgmentGroups, run: Run, requested: Sequence,
                   settings: Settings | None = None, *, judged_only: bool = False,
                   **keywords) -> tuple[Values, np.ndarray, np.ndarray]:
    """Per-query values of the requested ``*_avgjg`` measures (and num_q); ``settings``
    or keywords as :func:`per_judge`."""
    texts = [t for req in requested if req.spec.judgments == "qrels_jg" for t in req.measures]
    queries = np.array(sorted(set(groups.query.tolist())), dtype=object)
    present = np.isin(queries, np.asarray(run.query.to_pylist(), dtype=object))
    values: Values = {"num_q": np.ones(len(queries))} if any(
        req.spec.name == "num_q" for req in requested) else {}
    if not texts:  # num_q, runid: nothing to judge
        return values, queries, present
    table = per_judge(groups, run, list(dict.fromkeys(texts)), settings,
                      judged_only=judged_only, **keywords)
    index = {q: i for i, q in enumerate(queries)}
    judges = np.bincount(_judges_per_query(groups, index), minlength=len(queries))
    for req in requested:
        if req.spec.judgments != "qrels_jg":
            continue
        for label, text in zip(req.names, req.measures):
            part = table[table["measure"] == text]
            total = np.zeros(len(queries))
            # judges in order: each query's sum is added judge by judge, as trec_eval does
            for _, block in part.groupby("judge", sort=True):
                np.add.at(total, block["query"].map(index).to_numpy(),
                          block["value"].to_numpy())
            values[label] = np.where(judges > 1, total / np.maximum(judges, 1), total)
    return values, queries, present


def _judges_per_query(groups: JudgmentGroups, index: dict[str, int]) -> np.ndarray:
    """The query index of each (query, judge) pair of ``groups``."""
    import pandas as pd

    pairs = pd.DataFrame({"q": groups.query, "j": groups.judge}).drop_duplicates()
    return pairs["q"].map(index).to_numpy()
