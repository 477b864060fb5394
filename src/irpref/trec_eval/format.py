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
from dataclasses import dataclass, field, replace

import numpy as np

from irpref.judging.judged import NONPOOL, JudgedRankings
from irpref.measures import REGISTRY, parse_measure
from irpref.measures.arithmetic import MIN_GEO_MEAN, lround
from irpref.measures.base import TrecName, trec_number
from irpref.measures.gains import Gains
from irpref.measures.trec import iprec_average
from irpref.measures.trec_prefs import PREFS_MEASURES
from irpref.trec_eval.params import TrecEvalError, atof, atol, ndcg_gains, param_pairs, valid_int
from irpref.trec_eval.zscores import MISSING_ZSCORE, ZScores, read_zscores, to_zscores

__all__ = [
    "MISSING_ZSCORE",
    "NICKNAMES",
    "TREC_MEASURES",
    "Requested",
    "TrecEvalError",
    "TrecMeasure",
    "NEG_NAN",
    "empty_iprec_nan",
    "evaluate_trec",
    "format_trec_eval",
    "render_trec_eval",
    "read_zscores",
    "reset_missing",
    "zero_ideal_rndcg_nan",
    "to_zscores",
    "resolve_measures",
]


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
    judgments: str = "qrels"  # the -R format it needs: qrels | prefs | qrels_jg | any


def _fmt_num(x: float) -> str:
    return trec_number(x)


# trec_eval's pseudo-measures, which are no irpref measure: the run's name and
# the relevance string of the top 10 (computed by the printing code below)
_PSEUDO: dict[str, TrecMeasure] = {
    "runid": TrecMeasure("runid", "special", None, average="none", per_query=False,
                         judgments="any"),
    "relstring": TrecMeasure("relstring", "special", None, (10.0,), average="none",
                             summary=False),
}
# the judgment-group forms (-R qrels_jg): the measure of each judge, averaged
_AVGJG = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
# the order in which trec_eval 10.0 prints its measures (measures.c, te_trec_measures)
TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", *PREFS_MEASURES, "map_avgjg",
    "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
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
        elif name not in _AVGJG:
            t = declared.pop(name)
            kind = ("any" if t.name == "num_q" else
                    "prefs" if t.name in PREFS_MEASURES else "qrels")  # -R they need
            out.append(TrecMeasure(t.name, t.style, _builder(t), t.default, t.value, t.average,
                                   t.per_query, t.summary, kind))
    by_name = {m.name: m for m in out}
    for name, base in _AVGJG.items():
        out.insert(TREC_ORDER.index(name), replace(by_name[base], name=name,
                                                   judgments="qrels_jg"))
    if declared:  # a record declares a trec_eval name trec_eval does not print
        raise ValueError(f"trec_eval names missing from TREC_ORDER: {sorted(declared)}")
    return out


TREC_MEASURES: list[TrecMeasure] = _from_records()
_BY_NAME = {m.name: m for m in TREC_MEASURES}


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


@dataclass
class Requested:
    """A marked measure with its parameters and printed names/irpref measures."""

    spec: TrecMeasure
    params: str | None = None  # the raw text after the '.', if any
    names: list[str] = field(default_factory=list)
    measures: list[str] = field(default_factory=list)  # irpref texts, one per name
    values: tuple = ()
    gains: dict[int, float] = field(default_factory=dict)  # ndcg's custom gains


def _setup(spec: TrecMeasure, params: str | None) -> Requested:
    req = Requested(spec, params)
    name = spec.name
    if spec.style == "cut_long":
        cuts = sorted(atol(p) for p in params.split(",")) if params else list(spec.default)
        if cuts[0] <= 0:
            raise TrecEvalError("trec_eval: Negative cutoff detected")
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError("trec_eval: duplicate cutoffs detected")
        req.values = tuple(cuts)
        req.names = [f"{name}_{k}" for k in cuts]
        req.measures = [spec.build(k) for k in cuts]
    elif spec.style == "cut_double":
        cuts = sorted(atof(p) for p in params.split(",")) if params else list(spec.default)
        if len(set(cuts)) != len(cuts):
            raise TrecEvalError("trec_eval: duplicate cutoffs detected")
        req.values = tuple(cuts)
        req.names = [f"{name}_{x:3.2f}" for x in cuts]
        req.measures = [spec.build(x) for x in cuts]
    elif spec.style == "p_double":
        vals = [atof(p) for p in params.split(",")] if params else list(spec.default)
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
        pairs = dict(param_pairs(params)) if params else {}
        if name in ("rbp", "rbp_resid"):  # p; rbp_resid reads no gains (m_rbp_resid.c:61-68)
            extra = set(pairs) - {"p"} if name == "rbp" else set()
            if extra:
                raise TrecEvalError(
                    f"irpref trec_eval: custom gains for rbp ({', '.join(sorted(extra))}) are "
                    "not supported")
            req.values = (pairs.get("p", 0.9),)
            req.measures = [spec.build(pairs.get("p", 0.9))]
        elif name == "ndcg" and params:
            req.gains = ndcg_gains(params)
            text = spec.build()
            if req.gains:
                text += f"(gains={Gains(req.gains)})"
            req.measures = [text]
        elif any(valid_int(k) for k in pairs):
            raise TrecEvalError(
                f"irpref trec_eval: custom gains for {name} ('{params}') are not supported "
                "(only for ndcg)")
        else:  # names that are not levels are ignored, as gain_init.c ignores them
            req.measures = [spec.build()]
        req.names = [f"{name}_{params}" if params else name]
    elif spec.style == "special":
        if name == "relstring":
            vals = [atof(p) for p in params.split(",")] if params else list(spec.default)
            req.values = (vals[0],)
            req.names = [f"{name}_{params}" if params else name]
        else:
            req.names = [name]
    else:
        req.names = [name]
        req.measures = [spec.build()] if spec.build is not None else []
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
        elif base in _BY_NAME:
            names = (base,)
        else:
            raise TrecEvalError(f"trec_eval: illegal measure '{text}'")
        marked.update(names)
    out = []
    for spec in TREC_MEASURES:
        if spec.name not in marked:
            continue
        given = params.get(spec.name)
        try:
            out.append(_setup(spec, given))
        except TrecEvalError as exc:  # name the -m text the error is about
            text = f"{spec.name}.{given}"
            if given is None or text in str(exc):
                raise
            raise TrecEvalError(f"{exc} (-m {text})", usage=exc.usage) from None
    return out


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
            measure = parse_measure(text, judged_only=judged.settings.judged_only)
            cache[text] = measure.compute(judged)[run]
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
    zscores: ZScores | None = None,
    judged_only: bool = False,
) -> str:
    """trec_eval's output for run ``run`` of ``judged`` (relevance qrels).

    Queries are the qrels' (sorted, as trec_eval sorts them); without
    ``complete`` only those the run retrieved are evaluated, with it every
    qrels query is (a missing one scores as an empty ranking; the drop-in,
    :mod:`irpref.trec_eval.run`, gives it trec_eval's bogus ranking instead).
    With ``complete``, the ``num_rel`` summary is ``complete_num_rel`` when
    given: trec_eval 10.0 then counts every qrels line with grade > 0 over all
    qrels queries, ignoring ``-l`` and ``-M`` (``m_num_rel.c``,
    ``te_calc_avg_num_rel``), while the per-query ``num_rel`` lines keep ``-l``.
    ``judged_only`` (``-J``, ``judged`` already condensed) marks the NaN of
    :func:`empty_iprec_nan`.
    """
    values = evaluate_trec(judged, requested, run=run)
    present = judged.present[run]
    if complete:
        reset_missing(values, requested, ~present)
    if judged_only:
        empty = (judged.num_ret[run] == 0) & (present | complete)
        empty_iprec_nan(values, requested, empty, judged.num_rel(max(judged.rel, 0)))
    evaluated = np.ones_like(present) if complete else present
    return render_trec_eval(values, requested, judged.queries, evaluated, runid=runid,
                            query_flag=query_flag, summary_flag=summary_flag,
                            divisor=int(evaluated.sum()),
                            complete_num_rel=complete_num_rel if complete else None,
                            zscores=zscores)


# values trec_eval resets after evaluating a query the run lacks (trec_eval.c:416-431)
_RESET_EXACT = ("num_ret", "utility", "relstring", "rbp_resid")


def reset_missing(values: dict, requested: Sequence[Requested], missing: np.ndarray) -> None:
    """trec_eval.c:416-431: after evaluating a query the run lacks (``-c``), the values
    named exactly num_ret, utility, relstring, rbp_resid, or starting unj, are reset
    (relstring to ''); a name with parameters (``utility_2,-1,0,0``, ``relstring_5``)
    keeps its value. In place."""
    if not missing.any():
        return
    for req in requested:
        for label in req.names:
            if label not in values or not (label in _RESET_EXACT or label.startswith("unj")):
                continue
            if req.spec.name == "relstring":
                values[label] = ["" if m else s for s, m in zip(values[label], missing)]
            else:
                values[label] = np.where(missing, 0.0, values[label])


NEG_NAN = -float("nan")
"""C's 0.0 / 0.0 on x86: a NaN with the sign bit set, printed ``-nan``."""


def empty_iprec_nan(values: dict, requested: Sequence[Requested], empty: np.ndarray,
                    num_rel: np.ndarray) -> None:
    """trec_eval's ``-nan`` for an empty ranking (``-J`` left no document, ``-M 0``).

    m_iprec_at_recall.c and m_11pt_avg.c start the interpolated precision at
    num_rel_ret / num_ret, 0 / 0 when nothing is retrieved, and give it to
    every recall cut-off ``lround(x R)`` of 0 (recall 0.0, or any x when R = 0),
    R the query's own number of relevant documents; ``11pt_avg`` sums it. The
    printed mean is ``-nan`` too. A drop-in prints what trec_eval prints: those
    values are set to that NaN, in place.
    """
    if not empty.any():
        return
    for req in requested:
        name = req.spec.name
        if name not in ("iprec_at_recall", "11pt_avg"):
            continue
        zero = [lround(np.float64(x) * num_rel) <= 0 for x in req.values]
        if name == "11pt_avg":
            label = req.names[0]
            hit = empty & np.any(zero, axis=0) if zero else np.zeros_like(empty)
            values[label] = np.where(hit, NEG_NAN, values[label])
            continue
        for label, z in zip(req.names, zero):
            values[label] = np.where(empty & z, NEG_NAN, values[label])


def zero_ideal_rndcg_nan(values: dict, requested: Sequence[Requested], num_rel: np.ndarray,
                         max_grade: np.ndarray) -> None:
    """trec_eval's ``-nan`` for ``Rndcg`` of a query with relevant documents whose gains
    are all 0 (``-l 0``, every judged document of grade 0): m_Rndcg.c divides the sum of
    its nDCG values by their number, 0 / 0. In place, as :func:`empty_iprec_nan`."""
    hit = (num_rel > 0) & (max_grade <= 0)
    if not hit.any():
        return
    for req in requested:
        if req.spec.name == "Rndcg":
            values[req.names[0]] = np.where(hit, NEG_NAN, values[req.names[0]])


def render_trec_eval(
    values: dict[str, np.ndarray | list[str]],
    requested: Sequence[Requested],
    queries: np.ndarray,
    evaluated: np.ndarray,
    *,
    runid: str,
    query_flag: bool = False,
    summary_flag: bool = True,
    divisor: int | None = None,
    complete_num_rel: int | None = None,
    zscores: ZScores | None = None,
) -> str:
    """trec_eval's lines for per-query ``values`` (printed name -> (Q,) array over
    ``queries``), whatever judgments they come from: ``-q`` lines for the
    ``evaluated`` queries, then the summary (``%-22s\\t%s\\t%6.4f``, counts as
    integers): sums over the evaluated queries in order, divided by ``divisor``
    (default: their number; trec_eval ``-c``: every judged query, meas_avg.c).
    ``complete_num_rel`` replaces the ``num_rel`` sum (``-c``). With ``zscores``
    (``-Z``) every value is first turned into a z-score (:func:`to_zscores`) and
    printed as trec_eval does then (``Z`` before the name, counts as ``%6.4f`` sums).
    """
    qidx = np.flatnonzero(evaluated)
    if len(qidx) == 0:
        raise TrecEvalError("trec_eval: No queries with both results and relevance info")
    values = dict(values)
    for req in requested:  # trec_eval stores log(max(v, 1e-5)) for its gm measures
        if req.spec.average == "gm":
            for label in req.names:
                values[label] = np.log(np.maximum(np.asarray(values[label], np.float64),
                                                  MIN_GEO_MEAN))
    if zscores is not None:
        values = to_zscores(values, requested, queries, zscores)
    lines = _query_lines(values, requested, queries, qidx, zscores is not None) \
        if query_flag else []
    if summary_flag:
        lines += _summary_lines(values, requested, qidx, runid, zscores is not None,
                                len(qidx) if divisor is None else divisor, complete_num_rel)
    return "".join(line + "\n" for line in lines)


def _query_lines(values: dict, requested: Sequence[Requested], queries: np.ndarray,
                 qidx: np.ndarray, zmode: bool) -> list[str]:
    z = "Z" if zmode else ""
    lines = []
    for q in qidx:
        qid = queries[q]
        for req in requested:
            if not req.spec.per_query:
                continue
            for label in req.names:
                v = values[label][q]
                if req.spec.name == "relstring":
                    lines.append(f"{label:<22}\t{qid}\t'{v}'")
                elif req.spec.value == "long" and not z:
                    lines.append(f"{label:<22}\t{qid}\t{int(v)}")
                else:
                    lines.append(f"{z}{label:<22}\t{qid}\t{_c_float(v)}")
    return lines


def _summary_lines(values: dict, requested: Sequence[Requested], qidx: np.ndarray, runid: str,
                   zmode: bool, n: int, complete_num_rel: int | None) -> list[str]:
    """The ``all`` lines: sums in query order (meas_acc.c) over ``n`` (meas_avg.c)."""
    z = "Z" if zmode else ""
    lines = []
    for req in requested:
        spec = req.spec
        if not spec.summary:
            continue
        if spec.name == "runid":
            lines.append(f"{'runid':<22}\tall\t{runid}")
            continue
        for label in req.names:
            v = np.asarray(values[label], dtype=np.float64)[qidx]
            total = float(np.add.accumulate(v)[-1])
            if spec.average == "count":
                lines.append(f"{z}{label:<22}\tall\t{_c_float(n) if z else n}")
            elif spec.average == "gm":  # the queries not evaluated count log(1e-5)
                total += (n - len(qidx)) * np.log(MIN_GEO_MEAN)
                lines.append(f"{z}{label:<22}\tall\t{_c_float(np.exp(total / n))}")
            else:
                if spec.name == "num_rel" and complete_num_rel is not None:
                    total = complete_num_rel
                if spec.value == "long" and not z:
                    lines.append(f"{label:<22}\tall\t{int(total)}")
                elif spec.value == "long":  # -Z: sums of z-scores, as doubles
                    lines.append(f"{z}{label:<22}\tall\t{_c_float(total)}")
                else:
                    lines.append(f"{z}{label:<22}\tall\t{_c_float(total / n)}")
    return lines


def _c_float(x: float) -> str:
    """C's ``%6.4f`` (NaN prints ``nan`` or ``-nan`` as glibc does)."""
    x = float(x)
    if x != x:
        return f"{'-nan' if np.signbit(x) else 'nan':>6}"
    return f"{x:6.4f}"
