"""ir_measures compatibility: its measure objects, its ``iter_calc`` / ``calc_aggregate``.

A user of ir_measures switches by changing the import::

    from ir_measures import nDCG, AP, P        # measure objects stay
    import irpref as ir_measures               # was: import ir_measures
    ir_measures.calc_aggregate([nDCG@10, AP(rel=2), P(rel=2)@10], qrels, run)

Measure objects are translated into irpref's grammar by :func:`to_irpref`,
which reads the object's ``NAME`` and ``params`` (ir_measures' public
attributes) and writes canonical irpref text that the measure parser accepts
(it relies only on irpref's canonical names ``AP``, ``P@k``, ``nDCG@k``,
``SetP``, ``NumRelRet``, ... and on the ``rel`` parameter; not on the
case-insensitive aliases). ir_measures' meaning is kept: its ``rel`` (default
1) is written into the irpref measure, so an ir_measures object means the same
thing whatever ``rel`` is given to :func:`irpref.evaluate`. ir_measures'
``judged_only=True`` (its pytrec_eval provider's ``judged_docs_only_flag``,
trec_eval ``-J``: unjudged documents removed before scoring) is irpref's
``judged_only=true`` modifier (:mod:`irpref.judging.condense`): ``AP(judged_only=True)``
-> ``AP(judged_only=true,rel=1)``. A parameter irpref does not implement
(``nDCG(dcg='exp-log2')``, custom ``gains``) is refused with a
:class:`~irpref.errors.UsageError` rather than silently computed another way.

ir_measures itself is optional: without it :func:`iter_calc` and
:func:`calc_aggregate` take irpref measure strings and yield an equivalent
``Metric(query_id, measure, value)`` namedtuple.

Evaluation follows ir_measures' (and pytrec_eval's) conventions: every query
of the qrels is scored, a query the run lacks scores as an empty ranking
(irpref ``missing="zero"``, trec_eval ``-c``), run queries the qrels lack are
ignored, ties are broken by document id as trec_eval does (pytrec_eval reads
scores as 32-bit floats, so scores equal in single precision may order
differently there; see the README).
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from irpref.errors import UsageError
from irpref.evaluate import evaluate
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.names import register_converter

__all__ = [  # and ``Metric``, resolved lazily
    "calc_aggregate",
    "define",
    "from_ir_measures",
    "is_ir_measures_measure",
    "iter_calc",
    "provider",
    "to_irpref",
]

# the result type without ir_measures; with it installed, ir_measures' own ``Metric``
_Metric = namedtuple("Metric", ["query_id", "measure", "value"])


def _metric_type() -> type:
    try:
        from ir_measures import Metric
    except ImportError:
        return _Metric
    return Metric


def __getattr__(name: str) -> Any:  # ``Metric`` resolved lazily: ir_measures is slow to import
    if name == "Metric":
        return _metric_type()
    raise AttributeError(name)


def _families() -> dict[str, str]:
    """ir_measures NAME -> irpref family, read from the records' ``ir_measures``
    field (a plain name; counterparts with parameters, ``NumRet(rel=...)``,
    ``SetP(relative=True)``, ``RBP(rel=...)``, are translated below)."""
    return {f.ir_measures: name for name, f in REGISTRY.items()
            if f.ir_measures.isidentifier()}

# ir_measures parameters that match an irpref parameter of the same name
_PASSED = {"rel", "beta"}


def is_ir_measures_measure(obj: Any) -> bool:
    """True for an ir_measures measure object (duck-typed: ``NAME`` and ``params``)."""
    return (
        not isinstance(obj, str)
        and isinstance(getattr(obj, "NAME", None), str)
        and isinstance(getattr(obj, "params", None), Mapping)
    )


def _unsupported(measure: Any, why: str) -> UsageError:
    return UsageError(f"ir_measures {measure}: {why}; irpref has no equivalent")


def to_irpref(measure: Any) -> str:
    """Canonical irpref text for an ir_measures measure object (or irpref text as is).

    ``nDCG@10`` -> ``nDCG@10``; ``AP(rel=2)`` -> ``AP(rel=2)``; ``P@10`` ->
    ``P(rel=1)@10``; ``NumRet(rel=1)`` (= ``NumRelRet``) -> ``NumRelRet(rel=1)``;
    ``SetP(relative=True)`` -> ``SetRelP(rel=1)``; ``IPrec@0.2`` ->
    ``IPrec(recall=0.2,rel=1)``; ``RBP(rel=2)`` -> ``RBP(p=0.8,rel=2)`` (binary,
    as ir_measures' cwl_eval computes it); ``AP(judged_only=True)`` ->
    ``AP(judged_only=true,rel=1)``. ``ERR`` (gdeval's) is not translated.
    A measure made by :func:`define` returns the irpref text it was made from.
    """
    if isinstance(measure, str):
        return measure
    text = getattr(measure, "_irpref_text", None)
    if text is not None:
        return text
    if not is_ir_measures_measure(measure):
        raise UsageError(f"not a measure: {measure!r}")
    name = measure.NAME
    params = {k: v for k, v in measure.params.items() if v is not None}
    cutoff = params.pop("cutoff", None)
    judged_only = bool(params.pop("judged_only", False))
    if name == "nDCG" and (
        params.pop("dcg", "log2") != "log2" or params.pop("gains", None) is not None
    ):
        raise _unsupported(measure, "only dcg='log2' with gain = grade is implemented")
    if name == "NumRet":
        family = "NumRelRet" if "rel" in params else "NumRet"
    elif name == "SetP":
        family = "SetRelP" if params.pop("relative", False) else "SetP"
    elif name == "RBP":
        if "rel" not in params:  # ir_measures computes RBP only as cwl_eval's, with rel
            raise _unsupported(measure, "RBP without rel (ir_measures needs rel too)")
        family = "RBP"
    elif name in _families():
        family = _families()[name]
    else:
        raise _unsupported(measure, f"measure {name} is not translated")
    out: dict[str, Any] = {}
    if name == "IPrec":
        cutoff, out["recall"] = None, params.pop("recall", cutoff)
    if name == "RBP":
        out["p"] = params.pop("p", 0.8)
    for key in list(params):
        if key in _PASSED:
            out[key] = params.pop(key)
    if params:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise _unsupported(measure, f"parameter {given}")
    _add_default_rel(measure, family, out)
    if judged_only:  # the condensed lists (irpref.judging.condense), as pytrec_eval's -J flag
        out["judged_only"] = "true"
    text = family
    if out:
        text += "(" + ",".join(f"{k}={out[k]}" for k in sorted(out)) + ")"
    if cutoff is not None:
        text += f"@{int(cutoff)}"
    return text


def _add_default_rel(measure: Any, family: str, out: dict[str, Any]) -> None:
    """Write ir_measures' default ``rel`` (1) where its measure has one and irpref takes one."""
    if "rel" in out or family not in REGISTRY or "rel" not in REGISTRY[family].params:
        return
    spec = getattr(measure, "SUPPORTED_PARAMS", {}).get("rel")
    default = getattr(spec, "default", None)
    if isinstance(default, int) and not isinstance(default, bool):
        out["rel"] = default


def _convert(obj: Any) -> str | None:
    """The converter registered with the measure resolver: irpref text for an
    ir_measures object (or one made by :func:`define`), None for anything else."""
    if getattr(obj, "_irpref_text", None) is not None or is_ir_measures_measure(obj):
        return to_irpref(obj)
    return None


# irpref.parse_measure (and so irpref.evaluate) now reads ir_measures objects
register_converter(_convert)


def from_ir_measures(measures: Any) -> Any:
    """``measures`` with every ir_measures object replaced by its irpref text
    (strings and irpref ``Measure`` objects pass through unchanged)."""
    if is_ir_measures_measure(measures):
        return to_irpref(measures)
    if isinstance(measures, (str, bytes)) or not isinstance(measures, Iterable):
        return measures
    return [to_irpref(m) if is_ir_measures_measure(m) else m for m in measures]


def _canonical(text: str) -> str:
    try:
        return str(parse_measure(text))
    except UsageError:
        raise
    except ValueError as error:
        raise UsageError(str(error)) from None


def _irpref_measures(measures: Iterable[Any]) -> tuple[list[Any], list[str]]:
    """(the measure objects as given, or parsed by ir_measures; their canonical irpref texts)."""
    if isinstance(measures, str) or is_ir_measures_measure(measures):
        measures = [measures]
    given = []
    for m in measures:
        if isinstance(m, str):
            m = _ir_measures_parse(m)
        given.append(m)
    return given, [_canonical(to_irpref(m)) for m in given]


def _ir_measures_parse(text: str) -> Any:
    """An ir_measures object for ``text`` when ir_measures knows it, else the text."""
    try:
        import ir_measures
    except ImportError:
        return text
    try:
        measure = ir_measures.parse_measure(text)
        to_irpref(measure)
    except Exception:  # not an ir_measures name irpref translates: irpref text, kept as is
        return text
    return measure


def _frame(data: Any, value: str) -> Any:
    """ir_measures inputs irpref's readers do not take: iterables of namedtuples."""
    if isinstance(data, (str, Mapping, pd.DataFrame)) or hasattr(data, "__fspath__"):
        return data
    if hasattr(data, "query") and hasattr(data, "doc"):  # irpref Qrels / Run
        return data
    rows = list(data)
    if rows and hasattr(rows[0], "_fields"):
        return pd.DataFrame(rows, columns=list(rows[0]._fields))
    return pd.DataFrame(rows, columns=["query_id", "doc_id", value])


def _values(
    measures: list[Any], texts: list[str], qrels: Any, run: Any, **options: Any
) -> pd.DataFrame:
    qrels = _frame(qrels, "relevance")
    run = _frame(run, "score")
    if isinstance(run, pd.DataFrame):
        run = run.drop(columns=[c for c in ("run", "name", "run_id", "system") if c in run])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries absent from the qrels: ignored
        table = evaluate(qrels, run, list(dict.fromkeys(texts)), missing="zero", **options)
    return table


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Any]:
    """Per-query values, as ir_measures' ``iter_calc``: ``Metric(query_id, measure, value)``.

    A drop-in for ``ir_measures.iter_calc`` (``import irpref as ir_measures``);
    every qrels query is scored, a query the run lacks as an empty ranking.

    Parameters
    ----------
    measures : iterable
        ir_measures measure objects or irpref measure texts.
    qrels : path, DataFrame, dict or iterable of Qrel
        The judgments, in any form `evaluate` reads, or ir_measures'
        ``Qrel`` tuples.
    run : path, DataFrame, dict or iterable of ScoredDoc
        One run, in any form `evaluate` reads, or ir_measures'
        ``ScoredDoc`` tuples.

    Yields
    ------
    Metric
        ``(query_id, measure, value)``, ``measure`` the object passed.

    Raises
    ------
    UsageError
        A measure irpref does not know, or an ir_measures parameter it lacks.

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d6": 0.5}}
    >>> for metric in irpref.iter_calc(["AP"], qrels, run):
    ...     print(metric.query_id, metric.measure, round(metric.value, 4))
    q1 AP 0.8333
    q2 AP 0.5
    """
    given, texts = _irpref_measures(measures)
    table = _values(given, texts, qrels, run)
    by_text: dict[str, list[Any]] = {}
    for m, t in zip(given, texts):
        by_text.setdefault(t, []).append(m)
    queries = table["query"].astype(str).to_numpy()
    values = table["value"].to_numpy()
    labels = table["measure"].astype(str).to_numpy()
    metric = _metric_type()
    for text, objects in by_text.items():
        rows = np.flatnonzero(labels == text)
        for obj in objects:
            for q, v in zip(queries[rows].tolist(), values[rows].tolist()):
                yield metric(q, obj, v)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
    """Aggregate values, as ir_measures' ``calc_aggregate``: ``{measure: value}``.

    A drop-in for ``ir_measures.calc_aggregate`` (``import irpref as
    ir_measures``). Each measure aggregates as in ir_measures: a sum for the
    counts (``NumQ``, ``NumRet``, ``NumRel``, ``NumRelRet``), the mean over the
    qrels' queries otherwise (a query the run lacks scores as an empty
    ranking, ir_measures' convention).

    Parameters
    ----------
    measures : iterable
        ir_measures measure objects (``nDCG@10``, ``AP(rel=2)``) or irpref
        measure texts.
    qrels : path, DataFrame, dict or iterable of Qrel
        The judgments, in any form `evaluate` reads, or ir_measures'
        ``Qrel`` tuples.
    run : path, DataFrame, dict or iterable of ScoredDoc
        One run, in any form `evaluate` reads, or ir_measures'
        ``ScoredDoc`` tuples.

    Returns
    -------
    dict
        ``{measure (the object passed): value}``.

    Raises
    ------
    UsageError
        A measure irpref does not know, or an ir_measures parameter it lacks
        (refused, never approximated).

    Examples
    --------
    >>> import irpref
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    >>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d6": 0.5}}
    >>> values = irpref.calc_aggregate(["AP", "nDCG@10"], qrels, run)
    >>> {str(m): round(v, 4) for m, v in values.items()}
    {'AP': 0.6667, 'nDCG@10': 0.6867}
    """
    given, texts = _irpref_measures(measures)
    table = _values(given, texts, qrels, run)
    out: dict[Any, float] = {}
    for m, t in zip(given, texts):
        v = table.loc[table["measure"].astype(str) == t, "value"].to_numpy()
        out[m] = float(v.sum()) if _sums(m, t) else (float(v.mean()) if len(v) else float("nan"))
    return out


def _sums(measure: Any, text: str) -> bool:
    agg = getattr(measure, "aggregator", None)
    if callable(agg):
        return type(agg()).__name__ == "SumAgg"
    return text.split("(")[0].split("@")[0] in {"NumQ", "NumRet", "NumRel", "NumRelRet"}


def define(text: str, *, corpus_size: int | None = None, ties: str = "docid") -> Any:
    """An ir_measures measure object that irpref computes, for any irpref measure.

    ``define("ASL(golds=10)")`` can be passed to ``ir_measures.calc_aggregate``
    and to ``pt.Experiment(..., eval_metrics=[...])`` (through ir_measures'
    runtime-measure extension point, :func:`ir_measures.define`); the whole run
    is evaluated in one vectorized call. ``corpus_size`` and ``ties`` are
    :func:`irpref.evaluate`'s. Needs ir_measures.
    """
    try:
        import ir_measures
    except ImportError:
        raise UsageError("irpref.interop.ir_measures.define needs ir_measures: "
                         "pip install 'irpref[interop]'") from None
    canonical = _canonical(text)

    def impl(qrels: pd.DataFrame, run: pd.DataFrame):
        table = _values([canonical], [canonical], qrels, run, corpus_size=corpus_size, ties=ties)
        return zip(table["query"].astype(str).tolist(), table["value"].tolist())

    measure = ir_measures.define(impl, name=canonical, support_cutoff=False)
    measure._irpref_text = canonical
    return measure


def provider() -> Any:
    """An ir_measures ``Provider`` backed by irpref (``provider().calc_aggregate(...)``,
    like ``ir_measures.pytrec_eval``). Needs ir_measures."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = _make_provider()
    return _PROVIDER


_PROVIDER: Any = None


def _make_provider() -> Any:
    import ir_measures
    from ir_measures import providers

    class IrprefEvaluator(providers.Evaluator):
        def __init__(self, measures, qrels):
            self._qrels = _frame(qrels, "relevance")
            q = self._qrels
            qids = (q["query_id"].astype(str).unique() if isinstance(q, pd.DataFrame)
                    else list(q))
            super().__init__(measures, qids)

        def _iter_calc(self, run):
            return iter_calc(list(self.measures), self._qrels, run)

    class IrprefProvider(providers.Provider):
        """irpref as an ir_measures provider (trec_eval 10.0-exact, vectorized)."""

        NAME = "irpref"

        def supports(self, measure) -> bool:
            try:
                parse_measure(to_irpref(measure))
            except (ValueError, UsageError):
                return False
            return True

        def _evaluator(self, measures, qrels):
            return IrprefEvaluator(measures, qrels)

    del ir_measures
    return IrprefProvider()
