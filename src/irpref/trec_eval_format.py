"""trec_eval's measure table, parameter syntax and output format.

Maps every trec_eval 10.0 measure (in the order trec_eval prints them,
``measures.c``) to irpref measures, parses ``-m name.params`` the way
``meas_init.c`` does, and prints results exactly as ``meas_print_single.c``
and ``meas_print_final.c`` do (``%-22s\\t%s\\t%6.4f``; counts as integers).
Averages are sums taken in query order divided by the number of queries
(``meas_acc.c``, ``meas_avg.c``), so the printed digits are trec_eval's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from irpref.judged import NONPOOL, JudgedRankings
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.base import TrecName, trec_number
from irpref.measures.trec_extra import MIN_GEO_MEAN, iprec_average

__all__ = [
    "NICKNAMES",
    "TREC_MEASURES",
    "UNSUPPORTED",
    "Requested",
    "TrecEvalError",
    "TrecMeasure",
    "evaluate_trec",
    "format_trec_eval",
    "resolve_measures",
]


class TrecEvalError(ValueError):
    """A trec_eval usage error (bad measure, bad parameters)."""


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure (a ``TREC_MEAS`` of measures.c)."""

    name: str
    style: str  # "single" | "cut_long" | "cut_double" | "p_double" | "p_pair" | "special"
    build: Callable[..., str] | None  # irpref measure text for one value
    default: tuple = ()
    value: str = "float"  # "float" | "long"
    average: str = "mean"  # "mean" | "sum" | "gm" | "count" | "none"
    per_query: bool = True
    summary: bool = True


def _fmt_num(x: float) -> str:
    return trec_number(x)


# trec_eval's pseudo-measures, which are no irpref measure: the run's name and
# the relevance string of the top 10 (computed by the printing code below)
_PSEUDO: dict[str, TrecMeasure] = {
    "runid": TrecMeasure("runid", "special", None, average="none", per_query=False),
    "relstring": TrecMeasure("relstring", "special", None, (10.0,), average="none",
                             summary=False),
}
# the order in which trec_eval 10.0 prints its measures (measures.c, te_trec_measures)
TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid",
    "unj",
)


def _builder(t: TrecName) -> Callable[..., str] | None:
    """The irpref text of one value of ``t``, from its record."""
    if t.build is not None or t.computed:
        return t.build
    if t.style == "cut_long":
        return lambda k: t.text.format(k=k)
    if t.style == "cut_double":
        return lambda x: t.text.format(x=_fmt_num(x))
    return lambda: t.text


def _from_records() -> list[TrecMeasure]:
    """TREC_MEASURES: every record's trec_eval names, in trec_eval's order."""
    declared = {t.name: t for fam in REGISTRY.values() for t in fam.trec}
    out = []
    for name in TREC_ORDER:
        if name in _PSEUDO:
            out.append(_PSEUDO[name])
            continue
        t = declared.pop(name)
        out.append(TrecMeasure(t.name, t.style, _builder(t), t.default, t.value, t.average,
                               t.per_query, t.summary))
    if declared:  # a record declares a trec_eval name trec_eval does not print
        raise ValueError(f"trec_eval names missing from TREC_ORDER: {sorted(declared)}")
    return out


TREC_MEASURES: list[TrecMeasure] = _from_records()
_BY_NAME = {m.name: m for m in TREC_MEASURES}

# trec_eval measures that need other input formats (-R prefs / qrels_jg): not provided
UNSUPPORTED: dict[str, str] = {
    **{name: "needs preference judgements (-R prefs)" for name in (
        "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
        "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
        "prefs_avgjg_imp")},
    **{name: "needs multiple judgement sets (-R qrels_jg)" for name in (
        "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")},
}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
                  "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
                  "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
                  "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
              "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


# ---- -m parsing (meas_init.c) ---------------------------------------------------
def _atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix, 0.0 if none."""
    import re

    m = re.match(r"\s*[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)", text)
    return float(m.group(0)) if m else 0.0


def _long(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise TrecEvalError(f"trec_eval: cutoff {text!r} is not an integer") from None


@dataclass
class Requested:
    """A marked measure with its parameters and printed names/irpref measures."""

    spec: TrecMeasure
    params: str | None = None  # the raw text after the '.', if any
    names: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)  # irpref texts, one per name
    values: tuple = ()


def _setup(spec: TrecMeasure, params: str | None) -> Requested:
    req = Requested(spec, params)
    name = spec.name
    if spec.style == "cut_long":
        cuts = sorted(_long(p) for p in params.split(",")) if params else list(spec.default)
        if cuts[0] <= 0:
            raise TrecEvalError("trec_eval: Negative cutoff detected")
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError("trec_eval: duplicate cutoffs detected")
        req.values = tuple(cuts)
        req.names = [f"{name}_{k}" for k in cuts]
        req.measures = [spec.build(k) for k in cuts]
    elif spec.style == "cut_double":
        cuts = sorted(_atof(p) for p in params.split(",")) if params else list(spec.default)
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError("trec_eval: duplicate cutoffs detected")
        req.values = tuple(cuts)
        req.names = [f"{name}_{x:3.2f}" for x in cuts]
        req.measures = [spec.build(x) for x in cuts]
    elif spec.style == "p_double":
        vals = [_atof(p) for p in params.split(",")] if params else list(spec.default)
        req.values = tuple(vals)
        req.names = [f"{name}_{params}" if params else name]
        if name == "utility":
            if len(vals) != 4:
                raise TrecEvalError("trec_eval.calc_utility: improper number of coefficients")
            req.measures = [spec.build(*vals)]
        elif name == "set_F":
            req.measures = [spec.build(vals[0])]
        elif name == "relstring":
            req.measures = []
        else:  # 11pt_avg: computed from IPrec values
            req.measures = []
    elif spec.style == "p_pair":
        pairs: dict[str, float] = {}
        if params:
            for item in params.split(","):
                if "=" not in item:
                    raise TrecEvalError(f"trec_eval: malformed pair parameters in '{params}'")
                key, val = item.split("=", 1)
                pairs[key] = _atof(val)
        if name == "rbp":
            extra = set(pairs) - {"p"}
            if extra:
                raise TrecEvalError(
                    f"irpref trec_eval: custom gains for rbp ({', '.join(sorted(extra))}) are "
                    "not supported")
            req.values = (pairs.get("p", 0.9),)
            req.measures = [spec.build(pairs.get("p", 0.9))]
        elif pairs:
            raise TrecEvalError(
                f"irpref trec_eval: custom gains for {name} ('{params}') are not supported")
        else:
            req.measures = [spec.build()]
        req.names = [f"{name}_{params}" if params else name]
    elif spec.style == "special":
        if name == "relstring":
            vals = [_atof(p) for p in params.split(",")] if params else list(spec.default)
            req.values = (vals[0],)
            req.names = [f"{name}_{params}" if params else name]
        else:
            req.names = [name]
    else:
        req.names = [name]
        req.measures = [spec.build()]
    return req


def resolve_measures(marks: Sequence[str]) -> list[Requested]:
    """The measures selected by ``-m`` arguments (default: ``official``), in trec_eval's order.

    As trec_eval does, a measure's parameters come from the first ``-m name.params``
    naming it; nicknames (``official``, ``all_trec``, ``set``, ...) mark groups.
    """
    marked: set[str] = set()
    params: dict[str, str] = {}
    for text in marks or ["official"]:
        base, dot, rest = text.partition(".")
        if dot:
            if not rest:
                raise TrecEvalError(f"trec_eval: improper measure in parameter '{base}'")
            params.setdefault(base, rest)
        if base in NICKNAMES:
            names = NICKNAMES[base]
        elif base in _BY_NAME or base in UNSUPPORTED:
            names = (base,)
        else:
            raise TrecEvalError(f"trec_eval: illegal measure '{text}'")
        for name in names:
            if name in UNSUPPORTED:
                raise TrecEvalError(
                    f"irpref trec_eval: measure '{name}' is not supported ({UNSUPPORTED[name]})")
            marked.add(name)
    return [_setup(spec, params.get(spec.name)) for spec in TREC_MEASURES if spec.name in marked]


# ---- evaluation -----------------------------------------------------------------
def _relstring(judged: JudgedRankings, length: int) -> list[str]:
    """trec_eval's relstring of every segment: one character per top document."""
    chars = np.full(judged.n_items, ord("<"), np.uint8)
    g = judged.grade
    chars[g > 9] = ord(">")
    small = (g >= 0) & (g <= 9)
    chars[small] = ord("0") + g[small]
    chars[g == NONPOOL] = ord("-")
    chars[(g < 0) & (g != NONPOOL)] = ord(".")
    out = []
    for s in range(judged.n_segments):
        a, b = judged.offsets[s], judged.offsets[s + 1]
        out.append(chars[a : min(b, a + max(length, 0))].tobytes().decode("ascii"))
    return out


def evaluate_trec(
    judged: JudgedRankings, requested: Sequence[Requested], *, run: int = 0
) -> dict[str, np.ndarray | list[str]]:
    """Per-query values (Q,) of every printed name for run ``run``."""
    cache: dict[str, np.ndarray] = {}

    def value(text: str) -> np.ndarray:
        if text not in cache:
            cache[text] = parse_measure(text).compute(judged)[run]
        return cache[text]

    out: dict[str, np.ndarray | list[str]] = {}
    for req in requested:
        name = req.spec.name
        if name == "runid":
            continue
        if name == "relstring":
            strings = _relstring(judged, int(req.values[0]))
            out[req.names[0]] = strings[run * judged.n_queries : (run + 1) * judged.n_queries]
        elif name == "11pt_avg":
            out[req.names[0]] = iprec_average(judged, judged.rel, req.values)[run]
        else:
            for label, text in zip(req.names, req.measures):
                out[label] = value(text)
    return out


def format_trec_eval(
    judged: JudgedRankings,
    requested: Sequence[Requested],
    *,
    runid: str,
    query_flag: bool = False,
    summary_flag: bool = True,
    complete: bool = False,
    run: int = 0,
    complete_num_rel: int | None = None,
) -> str:
    """trec_eval's output for run ``run`` of ``judged``.

    Queries are the qrels' (sorted, as trec_eval sorts them); without
    ``complete`` only those the run retrieved are evaluated, with it every
    qrels query is (a missing one scores as an empty ranking; ``-c``). With
    ``complete``, the ``num_rel`` summary is ``complete_num_rel`` when given:
    trec_eval 10.0 then counts every qrels line with grade > 0 over all qrels
    queries, ignoring ``-l`` and ``-M`` (``m_num_rel.c``, ``te_calc_avg_num_rel``),
    while the per-query ``num_rel`` lines keep ``-l``.
    """
    present = judged.present[run]
    evaluated = np.ones_like(present) if complete else present
    qidx = np.flatnonzero(evaluated)
    if len(qidx) == 0:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info")
    values = evaluate_trec(judged, requested, run=run)
    for req in requested:  # trec_eval zeroes these for a missing query (trec_eval.c)
        if req.spec.name == "utility":
            for label in req.names:
                values[label] = np.where(present, values[label], 0.0)
    lines: list[str] = []
    if query_flag:
        for q in qidx:
            qid = judged.queries[q]
            for req in requested:
                if not req.spec.per_query:
                    continue
                for label in req.names:
                    v = values[label][q]
                    if req.spec.name == "relstring":
                        lines.append(f"{label:<22}\t{qid}\t'{v}'")
                    elif req.spec.value == "long":
                        lines.append(f"{label:<22}\t{qid}\t{int(v)}")
                    else:
                        lines.append(f"{label:<22}\t{qid}\t{v:6.4f}")
    if summary_flag:
        n = len(qidx)
        for req in requested:
            spec = req.spec
            if not spec.summary:
                continue
            if spec.name == "runid":
                lines.append(f"{'runid':<22}\tall\t{runid}")
                continue
            for label in req.names:
                v = np.asarray(values[label], dtype=np.float64)[qidx]
                if spec.average == "count":
                    lines.append(f"{label:<22}\tall\t{n}")
                elif spec.average == "gm":
                    logs = np.log(np.maximum(v, MIN_GEO_MEAN))
                    total = float(np.add.accumulate(logs)[-1])
                    lines.append(f"{label:<22}\tall\t{np.exp(total / n):6.4f}")
                else:
                    total = float(np.add.accumulate(v)[-1])
                    if spec.name == "num_rel" and complete and complete_num_rel is not None:
                        total = complete_num_rel
                    if spec.value == "long":
                        lines.append(f"{label:<22}\tall\t{int(total)}")
                    else:
                        lines.append(f"{label:<22}\tall\t{total / n:6.4f}")
    return "".join(line + "\n" for line in lines)
