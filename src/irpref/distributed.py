"""Dask: evaluation and significance on a ``dask.distributed`` cluster.

``irpref evaluate ... --dask ADDRESS`` (``local:N`` starts a LocalCluster of N
worker processes) or ``client=`` in :func:`evaluate` / :func:`significance`.

- :func:`evaluate`: one task per run file. A worker reads the qrels and its
  run, judges and evaluates it; the tidy tables are gathered and put in the
  single-process order (measure as given, then run, then query). Every
  measure of a run x query reads only that ranking and the qrels, so the
  values are those of the single process, value for value.
- :func:`significance`: one task per measure (per :class:`~irpref.stats.Pairwise`);
  each measure's permutations and bootstrap resamples derive from the seed
  alone, so the rows equal the single-process ones.

Dask is optional: ``pip install irpref[dask]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["client_for", "evaluate", "evaluate_args", "significance"]


def client_for(address: str):
    """A ``distributed.Client``: ``local:N`` (a LocalCluster of N worker
    processes, one thread each) or a scheduler address (``tcp://host:8786``)."""
    from irpref.errors import UsageError

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("--dask needs Dask: pip install irpref[dask]") from None
    if address.startswith("local:"):
        n = address[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise UsageError(f"--dask {address}: local:N needs a worker count N >= 1")
        cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        return Client(cluster)
    return Client(address)


def _evaluate_one(qrels, run, measures, kwargs) -> pd.DataFrame:
    import irpref

    return irpref.evaluate(qrels, [run], measures, **kwargs)


def evaluate(qrels, runs: Sequence, measures, *, client, **kwargs) -> pd.DataFrame:
    """:func:`irpref.evaluate` with one Dask task per run (same table, same values)."""
    import irpref

    measures = [measures] if isinstance(measures, str) else list(measures)
    runs = list(runs)
    if not runs:
        return irpref.evaluate(qrels, runs, measures, **kwargs)
    futures = client.map(_evaluate_one, [qrels] * len(runs), runs,
                         [measures] * len(runs), [kwargs] * len(runs), pure=False)
    parts = client.gather(futures)
    table = pd.concat(parts, ignore_index=True)
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
    from irpref import stats

    return stats.significance(pairwise, tests, **kwargs)


def significance(tables, test="paired", *, client, seed: int | None = None, **kwargs):
    """:func:`irpref.stats.significance` with one Dask task per measure (same rows)."""
    import numpy as np

    from irpref import stats

    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(tables, (pd.DataFrame, stats.Pairwise)) or stats._is_comparison(tables):
        tables = [tables]
    kinds = kwargs.pop("kinds", None)
    pairwise = []
    for t in tables:
        if isinstance(t, stats.Pairwise):
            pairwise.append(t)
        elif stats._is_comparison(t):
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


def evaluate_args(args, measures) -> pd.DataFrame:
    """The ``irpref evaluate --dask`` path: QRELS RUN... evaluated one run per task."""
    from irpref.errors import UsageError
    from irpref.store import is_judged_file

    if is_judged_file(args.qrels):
        raise UsageError("--dask reads QRELS RUN...; a saved judged file is evaluated "
                         "without --dask")
    if args.tag_names:
        raise UsageError("--dask names runs by file name: --tag-names is not supported")
    if not args.runs:
        raise UsageError("no RUN file given")
    client = client_for(args.dask)
    try:
        return evaluate(args.qrels, args.runs, measures, client=client, rel=args.rel,
                        depth=args.depth, ties=args.ties, missing=args.missing,
                        corpus_size=args.corpus_size)
    finally:
        if args.dask.startswith("local:"):
            cluster = client.cluster
            client.close()
            cluster.close()
