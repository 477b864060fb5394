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
  the client joins them, and the preference engine's population blocks
  (:mod:`irpref.preferences.pairs`, queries grouped by depth) run as tasks.
  The blocks and the order in which RPP sums populations are those of the
  single process, so every value is the same double.
- :func:`significance`: one task per measure (per :class:`~irpref.stats.Pairwise`);
  each measure's permutations and bootstrap resamples derive from the seed
  alone, so the rows equal the single-process ones. A test is not split by
  query block: every permutation and resample reads all queries of a
  measure, and splitting the permutations would change their stream.

Dask is optional: ``pip install irpref[dask]``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

import irpref.stats as stats
from irpref.evaluate import evaluate as evaluate_runs
from irpref.params import Settings

__all__ = [
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


def evaluate(qrels, runs: Sequence, measures, *, client, settings: Settings,
             subtopics=None) -> pd.DataFrame:
    """:func:`irpref.evaluate` with one Dask task per run (same table, same values)."""
    from irpref.errors import UsageError

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
    runs_column = union_categoricals([p["run"] for p in parts])  # the runs' order, as local
    table = pd.concat(parts, ignore_index=True)
    table["run"] = pd.Categorical.from_codes(runs_column.codes, runs_column.categories)
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


def _test_one(pairwise, tests, kwargs) -> pd.DataFrame:
    return stats.significance(pairwise, tests, **kwargs)


def significance(tables, test="paired", *, client, seed: int | None = None, **kwargs):
    """:func:`irpref.stats.significance` with one Dask task per measure (same rows)."""
    import numpy as np

    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
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
    futures = client.map(_test_one, pairwise, [test] * len(pairwise),
                         [kwargs] * len(pairwise), pure=False)
    frame = pd.concat(client.gather(futures), ignore_index=True)
    frame.attrs.update(correction=kwargs.get("correction", "holm"),
                       permutations=kwargs.get("permutations", 10_000), seed=seed)
    return frame


# ------------------------------------------------------------------- compare


class RelevantItems:
    """Judged rankings reduced to what the preference engine reads: for every
    item of grade >= 1 its segment (``run * n_queries + query``), 0-based rank
    and grade, in segment then rank order, plus the qrels grades per query.

    Every preference (sgnLP, rrLP, sgnLR, RPP and its graded form) reads only
    the positions of relevant items at a level ``rel >= 1`` and the number of
    relevant items per query (:mod:`irpref.preferences.pairs`), so it computes
    the same values on this as on the full :class:`~irpref.judged.JudgedRankings`.
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


def _blocks_task(pops, func, blocks, args) -> list:
    return [func(pops, g0, g1, *args) for g0, g1 in blocks]


class _BlockMap:
    """Runs the preference engine's population blocks as Dask tasks, in order."""

    def __init__(self, client) -> None:
        self.client = client

    def __call__(self, func, pops, blocks, *args) -> list:
        blocks = list(blocks)
        if len(blocks) <= 1:
            return [func(pops, g0, g1, *args) for g0, g1 in blocks]
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        groups = np.array_split(np.arange(len(blocks)), min(len(blocks), 2 * workers))
        shared = self.client.scatter(pops, broadcast=True)
        futures = [self.client.submit(_blocks_task, shared, func,
                                      [blocks[i] for i in g], args, pure=False)
                   for g in groups if len(g)]
        return [res for part in self.client.gather(futures) for res in part]


def compare_matrices(qrels, runs, prefs, *, client, settings: Settings):
    """:func:`irpref.compare.compare_matrices` on Dask: one task per run file for
    reading and judging, the preference blocks as tasks (same
    :class:`~irpref.preferences.Comparison`, value for value); ``prefs`` parsed
    preferences."""
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
    items = RelevantItems.concat(client.gather(futures))
    return preference_matrices(items, prefs, map_blocks=_BlockMap(client))
