"""Dask: evaluation, comparison and significance on a ``dask.distributed`` cluster.

``irpref evaluate|compare|significance ... --dask ADDRESS`` (``local:N`` starts
a LocalCluster of N worker processes) or ``client=`` in :func:`irpref.compare`
and in :func:`evaluate` / :func:`significance` here.

- :func:`evaluate`: one task per run file. A worker reads the qrels and its
  run, judges and evaluates it; the tidy tables are gathered and put in the
  single-process order (measure as given, then run, then query). Every
  measure of a run x query reads only that ranking and the qrels, so the
  values are those of the single process, value for value. Measures are not
  split further by query block: on a judged run they cost a few per cent of
  reading and judging it (``benchmarks/README.md``), so a block task would
  cost more to ship than to compute.
- :func:`compare_matrices`: one task per run file reads, judges and reduces
  its run to the compact representation preferences read
  (:class:`RelevantItems`: query, rank and grade of each relevant item);
  the client joins them and builds the preference kernels' per-run state
  (:mod:`irpref.preferences.engines`, O(R Q L)). The returned
  :class:`~irpref.preferences.Comparison` runs its blocks of run pairs as
  tasks (:class:`PairMap`: the state sent to every worker once, results in
  block order, a few tasks in flight), for its means, per-query rows and
  win rates. A block's values do not depend on where or with which
  other pairs it is computed, so every value is the same double.
- :func:`significance`: one task per measure, test and block of run pairs
  (a preference's task computes its pairs' values from the comparison's
  state); the client assigns the families and corrections over all rows.
  The randomized HSD (every permutation reads all pairs) and bootstrap
  intervals (one matrix product over the tested pairs) stay one task per
  measure and test. Permutations and resamples derive from the seed alone,
  so the rows equal the single-process ones.

Dask is optional: ``pip install irpref[dask]``.
"""

from __future__ import annotations

import re
import warnings
from collections import deque
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

import irpref.stats as stats
from irpref.evaluate import evaluate as evaluate_runs
from irpref.params import Settings
from irpref.stats.table import check_correction

__all__ = [
    "PairMap",
    "RelevantItems",
    "check_address",
    "client_for",
    "close",
    "compare_matrices",
    "evaluate",
    "refuse_collection_wide",
    "significance",
]

_ADDRESS = re.compile(r"^(local:\S*|([a-z]+://)?\S+:\d+)$")
CONNECT_SECONDS = 10


def check_address(value: str, flag: str = "--dask") -> str:
    """``local:N`` (N >= 1) or a scheduler address ``[scheme://]host:port``."""
    from irpref.errors import UsageError

    text = str(value).strip()
    if text.startswith("local:"):
        n = text[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise UsageError(f"{flag} {value}: local:N needs a worker count N >= 1")
        return text
    if not _ADDRESS.match(text):
        raise UsageError(f"{flag} {value}: expected local:N or a Dask scheduler address "
                         "such as tcp://host:8786")
    return text


def _distributed():
    from irpref.errors import UsageError

    try:
        import distributed
    except ImportError:
        raise UsageError("--dask needs Dask, an optional dependency: "
                         "pip install 'irpref[dask]'") from None
    return distributed


def client_for(address: str):
    """A ``distributed.Client``: ``local:N`` (a LocalCluster of N worker
    processes, one thread each) or a scheduler address (``tcp://host:8786``).
    A bad or unreachable address is a :class:`~irpref.errors.UsageError`."""
    from irpref.errors import UsageError

    address = check_address(address)
    distributed = _distributed()
    if address.startswith("local:"):
        cluster = distributed.LocalCluster(n_workers=int(address[len("local:"):]),
                                           threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        return distributed.Client(cluster)
    try:
        from distributed.comm import parse_address
        from distributed.comm.addressing import parse_host_port

        scheme, location = parse_address(address)
        if scheme == "tcp":  # refuse an unreachable scheduler before Dask retries it
            import socket

            with socket.create_connection(parse_host_port(location), timeout=CONNECT_SECONDS):
                pass
        return distributed.Client(address, timeout=f"{CONNECT_SECONDS}s")
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"--dask {address}: cannot connect to a Dask scheduler ({exc})") \
            from None


def _absolute(item):
    """A path that exists here, made absolute (workers may run in another directory)."""
    import os

    if isinstance(item, (str, os.PathLike)) and os.path.exists(item):
        return os.path.abspath(item)
    return item


def close(client) -> None:
    """Close ``client``, and its LocalCluster when :func:`client_for` started one."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def _evaluate_one(qrels, run, measures, settings, subtopics) -> tuple[pd.DataFrame, list]:
    """One run's table and the warnings evaluating it raised (category, text),
    which the client raises again: a worker's warnings are not the user's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = evaluate_runs(qrels, [run], measures, settings=settings, subtopics=subtopics)
    return table, [(w.category, str(w.message)) for w in caught]


def refuse_collection_wide(measures, corpus_size) -> None:
    """A task sees one run file: a measure whose value depends on every run
    (the corpus size counted over all runs' documents, ASL(missing=corpus)
    without --corpus-size) would get another number on each worker."""
    from irpref.errors import UsageError
    from irpref.measures import Measure, parse_measure
    from irpref.measures.base import reads_n_docs

    if corpus_size is not None:
        return
    for m in measures:
        if isinstance(m, str | Measure) and reads_n_docs(
            m if isinstance(m, Measure) else parse_measure(m)
        ):
            raise UsageError(
                f"{m}: counts the documents of all runs as the corpus size, which one run "
                "per task cannot; give --corpus-size N with --dask"
            )


def evaluate(qrels, runs: Sequence, measures, *, client, settings: Settings | None = None,
             subtopics=None, **keywords) -> pd.DataFrame:
    """:func:`irpref.evaluate` with one Dask task per run (same table, same values);
    the judging settings as ``settings`` or their keywords (``rel``, ``depth``, ...)."""
    from irpref.errors import UsageError

    settings = Settings.resolve(settings, **keywords)

    measures = [measures] if isinstance(measures, str) else list(measures)
    runs = [_absolute(r) for r in runs]
    qrels, subtopics = _absolute(qrels), _absolute(subtopics)
    if settings.use_tag:
        raise UsageError("--dask names runs by file name: --tag-names is not supported")
    if not runs:
        return evaluate_runs(qrels, runs, measures, settings=settings, subtopics=subtopics)
    refuse_collection_wide(measures, settings.corpus_size)
    futures = client.map(_evaluate_one, [qrels] * len(runs), runs, [measures] * len(runs),
                         [settings] * len(runs), [subtopics] * len(runs), pure=False)
    parts = []
    for part, caught in client.gather(futures):  # warnings in the order of the runs
        parts.append(part)
        for category, text in caught:
            warnings.warn(category(text), stacklevel=2)
    table = _concat_categorical(parts)
    if table.empty:
        return table
    m_order = {m: i for i, m in enumerate(pd.unique(table["measure"]))}
    labels = [str(m) for m in measures]
    m_order = {m: labels.index(m) if m in labels else len(labels) + i
               for i, m in enumerate(m_order)}
    r_order = {r: i for i, r in enumerate(pd.unique(table["run"]))}
    key = pd.DataFrame({"m": table["measure"].map(m_order), "r": table["run"].map(r_order)})
    order = key.sort_values(["m", "r"], kind="stable").index
    return table.loc[order].reset_index(drop=True)


def _concat_categorical(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The runs' tables one under the other; a categorical column stays categorical,
    its categories in order of first appearance (the runs in input order, as one
    process lists them)."""
    from pandas.api.types import union_categoricals

    table = pd.concat(parts, ignore_index=True)
    for name in table.columns:
        if parts and all(isinstance(p[name].dtype, pd.CategoricalDtype) for p in parts):
            table[name] = union_categoricals([p[name] for p in parts])
    return table


TEST_VALUES = 1 << 21
"""Per-query values (float64) a significance task tests at once: pairs x queries."""

WHOLE_TESTS = ("hsd",)
"""Tests that read every pair at once (a permutation's maximum over all pairs)."""


def _test_task(measures: tuple, index: int, test: str, kwargs: dict, pairs) -> pd.DataFrame:
    """The rows of one measure (``measures[index]``) and test on the run pairs
    ``pairs`` (None: all)."""
    return stats.significance(measures[index], [test], pairs=pairs, **kwargs)


def significance(tables, test="paired", *, client, seed: int = 0, **kwargs):
    """:func:`irpref.stats.significance` on Dask, by blocks of run pairs: one task
    per measure, test and block of pairs (same rows, value for value).

    A task reads its measure's values of its pairs only (a preference computes
    them there, from the comparison's state: :class:`~irpref.preferences.Comparison`),
    tests them, and the client assigns the families and corrections over all
    rows. The randomized HSD (each permutation reads every pair) and bootstrap
    intervals (one matrix product over the tested pairs) run one task per
    measure and test: their numbers depend on which pairs are computed together.
    """
    tests = [test] if isinstance(test, str) else list(test)
    kwargs["correction"] = check_correction(tests, kwargs.get("correction"))
    if isinstance(tables, (pd.DataFrame, stats.Pairwise)) or stats.is_comparison(tables):
        tables = [tables]
    kinds = kwargs.pop("kinds", None)
    pairwise = []
    for t in tables:
        if isinstance(t, stats.Pairwise):
            pairwise.append(t)
        elif stats.is_comparison(t):
            pairwise.extend(stats.Pairwise.from_comparison(t, name) for name in t.values)
        else:
            pairwise.extend(stats.as_pairwise(t, kinds))
    kwargs["seed"] = seed
    baselines = stats.families.baseline_list(kwargs.get("baseline"))
    for pw in pairwise:
        stats.families.check_baselines(pw.runs, baselines)
    futures = []
    # one object: the measures of one comparison share its state, sent once
    shared = client.scatter([tuple(pairwise)], broadcast=True)[0]
    for index, pw in enumerate(pairwise):
        a, b = stats.baseline_pairs(pw, baselines) if baselines else pw.pairs
        step = max(1, TEST_VALUES // max(pw.n_queries, 1))
        for t in dict.fromkeys(pw.test_for_paired if t == "paired" else t for t in tests):
            if t in WHOLE_TESTS or _bootstrap_ci(kwargs):
                futures.append(client.submit(_test_task, shared, index, t, kwargs, None,
                                             pure=False))
                continue
            futures.extend(client.submit(_test_task, shared, index, t, kwargs,
                                         (a[i : i + step], b[i : i + step]), pure=False)
                           for i in range(0, len(a), step))
    parts = [part for part in client.gather(futures) if len(part)]
    frame = pd.concat(parts, ignore_index=True) if parts else stats.significance(
        pairwise, test, **kwargs)
    correction = kwargs["correction"]
    frame = stats.assign_families(frame, kwargs.get("family", "measure"), correction,
                                  by_baseline=bool(baselines))
    frame.attrs.update(correction=correction,
                       permutations=kwargs.get("permutations", 10_000), seed=seed,
                       baseline=kwargs.get("baseline"), family=kwargs.get("family", "measure"))
    return frame


def _bootstrap_ci(kwargs: dict) -> bool:
    """Whether the rows carry bootstrap intervals (``ci``; default: bootstrap when
    ``bootstrap`` resamples are asked, as :func:`irpref.stats.significance`)."""
    ci = kwargs.get("ci")
    ci = ci if ci is not None else ("bootstrap" if kwargs.get("bootstrap", 1) else "none")
    return ci in ("bootstrap", "bca")


# ------------------------------------------------------------------- compare


class RelevantItems:
    """Judged rankings reduced to what the preference engine reads: for every
    item of grade >= 1 its segment (``run * n_queries + query``), 0-based rank
    and grade, in segment then rank order, plus the qrels grades per query.

    Every preference (sgnLP, rrLP, sgnLR, RPP and its graded form) reads only
    the positions of relevant items at a level ``rel >= 1`` and the number of
    relevant items per query (:mod:`irpref.preferences.pairs`), so it computes
    the same values on this as on the full :class:`~irpref.judging.judged.JudgedRankings`.
    """

    compact = False  # the attributes below are those of the full layout

    def __init__(self, run_names, queries, segment, rank, grade, qrels_query, qrels_grade,
                 *, settings: Settings) -> None:
        self.run_names, self.queries = list(run_names), queries
        self.segment, self.rank, self.grade = segment, rank, grade
        self.qrels_query, self.qrels_grade = qrels_query, qrels_grade
        self.settings = settings
        self.rel, self.ties, self.depth = settings.rel, settings.ties, settings.depth

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def num_rel(self, rel: int | None = None) -> np.ndarray:
        """(Q,) number of judged documents with ``grade >= rel``."""
        rel = self.rel if rel is None else rel
        q = self.qrels_query[self.qrels_grade >= rel]
        return np.bincount(q, minlength=self.n_queries)

    @classmethod
    def of(cls, judged) -> RelevantItems:
        """The relevant items of judged rankings (any number of runs)."""
        keep = np.flatnonzero(judged.grade >= 1)
        return cls(judged.run_names, judged.queries, judged.segment[keep], judged.rank[keep],
                   judged.grade[keep], judged.qrels_query, judged.qrels_grade,
                   settings=judged.settings)

    @classmethod
    def concat(cls, parts: Sequence[RelevantItems]) -> RelevantItems:
        """The runs of ``parts`` side by side (each judged against the same qrels)."""
        first = parts[0]
        for p in parts[1:]:
            if not np.array_equal(p.queries, first.queries):  # pragma: no cover - same qrels
                raise ValueError("the runs were judged against different qrels")
        q = first.n_queries
        shift = np.cumsum([0] + [p.n_runs for p in parts[:-1]]) * q
        return cls(
            [n for p in parts for n in p.run_names], first.queries,
            np.concatenate([p.segment + s for p, s in zip(parts, shift)]),
            np.concatenate([p.rank for p in parts]), np.concatenate([p.grade for p in parts]),
            first.qrels_query, first.qrels_grade, settings=first.settings,
        )


def _judge_one(qrels, run, settings: Settings) -> RelevantItems:
    from irpref.evaluate import judge_inputs

    return RelevantItems.of(judge_inputs(qrels, [run], settings, warn=False))


class PairMap:
    """``map_blocks`` (:mod:`irpref.runtime.pairblocks`) on Dask: ``func(shared, block, *args)``
    for each block as a task, results yielded in block order with at most two
    tasks per worker in flight. ``shared`` (the state every block reads, e.g. a
    :class:`~irpref.preferences.Comparison`) is sent to every worker once per
    object."""

    def __init__(self, client) -> None:
        self.client = client
        self._sent: dict[int, tuple[object, object]] = {}  # id -> (object, future)

    def share(self, shared):
        """The future of ``shared`` on every worker (scattered at its first use)."""
        key = id(shared)
        if key not in self._sent or self._sent[key][0] is not shared:
            self._sent[key] = (shared, self.client.scatter(shared, broadcast=True))
        return self._sent[key][1]

    def __call__(self, func, shared, blocks, *args) -> Iterator:
        blocks = list(blocks)
        if len(blocks) <= 1:
            yield from (func(shared, block, *args) for block in blocks)
            return
        future = self.share(shared)
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        pending: deque = deque()
        for block in blocks:
            pending.append(self.client.submit(func, future, block, *args, pure=False))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def compare_matrices(qrels, runs, prefs, *, client, settings: Settings):
    """:func:`irpref.compare.compare_matrices` on Dask: one task per run file for
    reading and judging; the returned :class:`~irpref.preferences.Comparison`
    computes its blocks of run pairs as tasks (same values, block for block) while
    ``client`` is open. ``prefs``: parsed preferences."""
    from irpref.errors import UsageError
    from irpref.preferences import preference_matrices

    for p in prefs:
        if p.family.needs_subtopics:
            raise UsageError(f"{p} is not computed on Dask (it matches every judged document "
                             "id): compare it without --dask")
    runs, qrels = [_absolute(r) for r in runs], _absolute(qrels)
    if not runs:
        raise UsageError("no RUN file given")
    if settings.ties == "expected":
        raise UsageError("preferences compare one ranking per run: use ties='docid' or "
                         "'input'")
    futures = client.map(_judge_one, [qrels] * len(runs), runs, [settings] * len(runs),
                         pure=False)
    comp = preference_matrices(RelevantItems.concat(client.gather(futures)), prefs)
    comp.map_blocks = PairMap(client)
    return comp
