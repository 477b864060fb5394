"""The all-pairs engine: every preference for every run pair of every query.

:func:`preference_matrices` groups the preferences asked for by the
population set they read (:mod:`irpref.preferences.populations`: binary,
graded or subtopic, at a relevance level, on the judged or the condensed
lists), builds each set's per-run state once
(:mod:`irpref.preferences.engines`) and returns a
:class:`~irpref.preferences.comparison.Comparison`, which computes the
values of any block of run pairs on demand:

- sgnLP / sgnLR: one ``np.lexsort`` per block of populations gives every run's
  exact rank under the total order; a pair's preference is the sign of the
  rank difference (O(R log R · L) per query to build, O(1) per pair).
- rrLP: the deciding level of a pair is the minimum of the longest common
  prefixes between neighbours in that sorted order (a range minimum, O(1)
  per pair from a sparse table).
- RPP variants: ``sgn(f_b - f_a)`` summed over levels for each weighting.

No Python loop runs per query or per pair: blocks hold as many populations
and pairs as a memory budget allows.

Conventions (those of pref_eval, the authors' implementation, on binary
judgments): a run lacking a query retrieved nothing for it; unretrieved
relevant items tie with each other and lose to retrieved ones; queries with
no relevant item get no value (pref_eval drops them from its qrels), so means
are over the queries with at least one relevant item.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irpref.io.subtopics import SubtopicQrels
from irpref.judging.condense import condensed
from irpref.judging.judged import JudgedRankings, LayoutError
from irpref.params import check_rel
from irpref.preferences.comparison import Comparison, PairJob
from irpref.preferences.engines import LexicographicState, RPPState
from irpref.preferences.populations import (
    BUDGET,
    Populations,
    binary_populations,
    graded_populations,
    subtopic_populations,
)
from irpref.preferences.registry import Preference, parse_preferences

__all__ = [
    "BUDGET",
    "Comparison",
    "Populations",
    "binary_populations",
    "graded_populations",
    "preference_matrices",
    "subtopic_populations",
]

Job = tuple[str, int, bool]  # (population, rel, judged_only)


def preference_matrices(
    judged: JudgedRankings,
    preferences: str | Preference | Sequence[str | Preference],
    *,
    subtopics: SubtopicQrels | None = None,
) -> Comparison:
    """All preferences for all run pairs and queries of ``judged``, as a
    :class:`~irpref.preferences.comparison.Comparison` (values by blocks of pairs).

    Relevance is ``grade >= rel`` with ``rel`` the preference's parameter or
    ``judged.rel``; a preference with ``judged_only=true`` compares the
    condensed lists (:func:`irpref.judging.condense.condensed`, unjudged documents removed; Sakai
    2007). ``subtopics`` (ndeval-format judgments) is needed by
    ``ST-RPP`` only.
    """
    prefs = parse_preferences(preferences)
    _check(judged, prefs)
    jobs: dict[Job, list[Preference]] = {}
    for p in prefs:
        jobs.setdefault((p.family.population_of(p), p.rel(judged.rel), p.judged_only),
                        []).append(p)
    cache = _PopulationCache(judged, prefs, subtopics)
    built = []
    todo = list(jobs)
    for job, plist in jobs.items():
        todo.remove(job)
        pops = cache.get(*job)
        cache.keep(todo)  # a population set not needed again is freed
        built.append(pair_job(pops, plist, judged.queries, BUDGET))
        del pops
    return Comparison(judged.run_names, prefs, built)


def _check(judged: JudgedRankings, prefs: list[Preference]) -> None:
    """Refuse what the engine cannot compare (ValueError, LayoutError)."""
    if judged.ties == "expected":
        raise ValueError("preferences compare one ranking per run: use ties='docid' or 'input'")
    if judged.n_runs == 0:
        raise ValueError("compare needs at least one run")
    if judged.compact:
        for p in prefs:
            if not p.family.compact:
                raise LayoutError(f"{p} needs every retrieved item; these judged rankings "
                                  "are compact: judge with layout='full'")
    for p in prefs:
        check_rel(p.rel(judged.rel), f"{p}: rel")
    if any(p.judged_only for p in prefs) and not isinstance(judged, JudgedRankings):
        raise ValueError("judged_only=true needs judged rankings with every judged item "
                         "(not only the relevant ones): compare without Dask")


class _PopulationCache:
    """The population sets of the jobs, each built once (graded with one grade per
    query is the binary set)."""

    def __init__(self, judged, prefs: list[Preference], subtopics) -> None:
        self.judged, self.prefs, self.subtopics = judged, prefs, subtopics
        self.cache: dict[Job, Populations] = {}

    def get(self, kind: str, rel: int, judged_only: bool) -> Populations:
        key = (kind, rel, judged_only)
        source = condensed(self.judged) if judged_only else self.judged
        if key not in self.cache:
            if kind == "binary":
                self.cache[key] = binary_populations(source, rel)
            elif kind == "graded":
                pops = graded_populations(source, rel)
                if pops.n_pops == len(np.unique(pops.query)):  # one grade per query
                    pops = self.get("binary", rel, judged_only)
                self.cache[key] = pops
            else:
                if self.subtopics is None:
                    needs = ", ".join(str(p) for p in self.prefs if p.family.needs_subtopics)
                    raise ValueError(f"{needs} needs subtopic judgments (ndeval format): "
                                     "pass subtopics=... (CLI: --subtopics FILE)")
                self.cache[key] = subtopic_populations(source, self.subtopics, rel)
        return self.cache[key]

    def keep(self, todo: list[Job]) -> None:
        for key in [k for k in self.cache if k not in todo]:
            del self.cache[key]


def pair_job(pops: Populations, plist: list[Preference], queries: np.ndarray,
             budget: int) -> PairJob:
    """The per-run state of the preferences ``plist`` on ``pops``, over the
    queries with a relevant item (``queries[kept]``): the engine of each read
    from its record (``engine``, ``order``, ``value``, ``p``)."""
    kept = np.unique(pops.query)  # queries with a relevant item, sorted
    cols = np.searchsorted(kept, pops.query)
    keys: dict[str, tuple[str, object]] = {}
    lex = [p for p in plist if p.family.engine == "lexicographic"]
    state = None
    if lex:  # binary populations: one per query
        wanted = {(p.family.order, p.family.value) for p in lex}
        state = LexicographicState(pops, wanted, cols, len(kept), budget)
        keys.update({str(p): (p.family.value, p.family.order) for p in lex})
    rpps = [p for p in plist if p.family.engine == "rpp"]
    rpp = None
    if rpps:
        weightings = sorted({p.get("p") for p in rpps})
        rpp = RPPState(pops, weightings, cols, len(kept), budget)
        keys.update({str(p): ("rpp", weightings.index(p.get("p"))) for p in rpps})
    return PairJob([str(p) for p in plist], queries[kept], keys, state, rpp)
