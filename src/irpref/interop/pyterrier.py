"""PyTerrier: irpref's measures in ``pt.Experiment``, its preferences on result frames.

``pt.Experiment`` evaluates through ``ir_measures.iter_calc``, whose first
provider runs measures defined at run time (:func:`ir_measures.define`), so
irpref measures enter an experiment as ir_measures objects::

    from irpref.interop.pyterrier import measures
    pt.Experiment([bm25, bm25 >> rerank], topics, qrels,
                  eval_metrics=["map", *measures("ASL", "TSE(e=ap)", "RL-AP", corpus_size=N)])

Each system's whole result frame is evaluated in one vectorized irpref call,
with ir_measures' conventions (every qrels topic scored, a missing one as an
empty ranking). pt's ``+``/``-`` columns assume higher is better: for ASL,
SL1, SL3 and RE lower is better.

Standard ir_measures objects (``nDCG@10``, ``AP(rel=2)``) are computed by
pytrec_eval in ``pt.Experiment`` unless :func:`use_irpref_provider` puts
irpref first in ir_measures' default pipeline (trec_eval 10.0-exact, double
precision scores).

Preferences (sgnLP, rrLP, RPP, ...) compare systems, so they are not
per-system measures: compute them from the result frames with
:func:`compare` (``qid, docno, score`` frames; qrels ``qid, docno, label``).
Importing this module does not import PyTerrier (nor start Java).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from irpref.interop.ir_measures import define, provider

__all__ = ["compare", "measures", "use_irpref_provider"]


def measures(*texts: str, corpus_size: int | None = None, ties: str = "docid") -> list[Any]:
    """ir_measures objects computed by irpref, for ``pt.Experiment(eval_metrics=...)``."""
    return [define(t, corpus_size=corpus_size, ties=ties) for t in texts]


def use_irpref_provider() -> Any:
    """Make irpref the first provider of ir_measures' default pipeline (idempotent).

    From then on ``ir_measures.calc_aggregate`` and ``pt.Experiment`` compute
    every measure irpref translates (:func:`irpref.interop.ir_measures.to_irpref`)
    with irpref; others still go to ir_measures' own providers. Returns the provider.
    """
    import ir_measures

    mine = provider()
    pipeline = ir_measures.DefaultPipeline.providers
    if mine not in pipeline:
        pipeline.insert(0, mine)
    ir_measures.providers.registry.setdefault(mine.NAME, mine)
    return mine


def compare(
    qrels: Any,
    results: Mapping[str, pd.DataFrame] | Sequence[pd.DataFrame],
    preferences: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """:func:`irpref.compare` on PyTerrier result frames (``{name: frame}`` or a list + names)."""
    from irpref.compare import compare as irpref_compare

    if not isinstance(results, Mapping):
        results = list(results)
        names = list(names) if names is not None else [f"system{i}" for i in range(len(results))]
        if len(names) != len(results):
            from irpref.errors import UsageError

            raise UsageError(f"{len(results)} result frames but {len(names)} names")
        results = dict(zip(names, results))
    return irpref_compare(qrels, dict(results), list(preferences), **options)
