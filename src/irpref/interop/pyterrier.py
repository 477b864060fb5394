"""PyTerrier: irpref's measures in ``pt.Experiment``, its preferences on result frames.

``pt.Experiment`` evaluates through ``ir_measures.iter_calc``, whose first
provider runs measures defined at run time (:func:`ir_measures.define`), so
irpref measures enter an experiment as ir_measures objects::

    from irpref.interop.pyterrier import measures
    pt.Experiment([bm25, bm25 >> rerank], topics, qrels,
                  eval_metrics=["map", *measures("ASL", "TSE(e=ap)", "RL-AP", corpus_size=N)])

Each system's whole result frame is evaluated in one vectorized irpref call,
with ir_measures' conventions (every qrels topic scored, a missing one as an
empty ranking). pt's ``+``/``-`` columns assume higher is better:
:func:`lower_is_better` says which of your measures their records orient the
other way (ASL, SL1, SL3, RE: lengths and positions).

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

from irpref.compare import compare as irpref_compare
from irpref.errors import UsageError
from irpref.interop.ir_measures import define, provider
from irpref.measures import parse_measure

__all__ = ["compare", "lower_is_better", "measures", "use_irpref_provider"]


def measures(*texts: str, corpus_size: int | None = None, ties: str = "docid") -> list[Any]:
    """ir_measures objects computed by irpref, for ``pt.Experiment(eval_metrics=...)``."""
    return [define(t, corpus_size=corpus_size, ties=ties) for t in texts]


def lower_is_better(*texts: str) -> list[str]:
    """The measures among ``texts`` whose record says lower is better (read pt's
    ``+``/``-`` columns the other way for them)."""
    return [t for t in texts if parse_measure(t).orientation == "lower"]


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
    if not isinstance(results, Mapping):
        results = list(results)
        names = list(names) if names is not None else [f"system{i}" for i in range(len(results))]
        if len(names) != len(results):
            raise UsageError(f"{len(results)} result frames but {len(names)} names")
        results = dict(zip(names, results))
    return irpref_compare(qrels, dict(results), list(preferences), **options)
