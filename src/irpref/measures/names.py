"""The names users type: the resolver reading every record's spellings.

Measure and preference names are case-insensitive, and the spellings of
trec_eval, ir_measures, ranx, PyTerrier and pref_eval parse to one canonical
measure, which is what irpref prints::

    MAP, map, AP            -> AP               map@100, map_cut.100, map_cut_100 -> AP@100
    MRR, mrr, recip_rank    -> RR               nDCG@10, ndcg@10, ndcg_cut.10 -> nDCG@10
    P.5, P_5, precision@5   -> P@5              R@1000, recall@1000, recall.1000 -> R@1000
    hit_rate@5, success.5   -> Success@5        iprec_at_recall_0.20, IPrec@0.2 -> IPrec(recall=0.2)

No table of names lives here: each spelling is declared in its family's
record (:class:`~irpref.measures.base.Family`: ``aliases``, ``trec``), and
the resolver reads the registry. Resolution of a name, first match wins: the
exact canonical name; an alias spelled exactly as declared (``rbp`` is
trec_eval's graded rbp); the canonical name ignoring case; an alias ignoring
case; trec_eval's ``name.N`` / pytrec_eval's ``name_N`` forms. A ranx
relevance level suffix (``map@100-l2``) becomes ``rel=2``; ir_measures'
``nDCG(dcg=exp-log2)`` is ``nDCG(gain=exp)``.

Where a spelling means something else in the tool it comes from, the alias
carries a ``note``, issued as a :class:`NameNote` warning when the spelling
is used (one line in the CLI), or a ``refusal`` when irpref has no equivalent
(ranx's ``dcg_burges``: unnormalised exponential-gain DCG). An unknown name raises
:class:`~irpref.errors.UsageError` with the three closest names; a preference
name where a measure is expected says which command to use (the preference
registry attaches itself with :func:`attach_preferences`, so this module
never imports a higher layer). Objects of other libraries (ir_measures'
measures) are parsed through converters their interop module registers
(:func:`register_converter`).
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from irpref.errors import UsageError
from irpref.measures.base import (
    MODIFIERS,
    REGISTRY,
    Alias,
    Measure,
    Param,
    parse_all,
    range_bounds,
    with_params,
)

__all__ = [
    "Alias",
    "NameNote",
    "PreferenceNames",
    "apply_modifiers",
    "attach_preferences",
    "canonical_name",
    "closest",
    "measure_aliases",
    "modifiers_for",
    "parameters_of",
    "parse_measure",
    "parse_measure_text",
    "parse_measures",
    "parse_params",
    "register_converter",
    "trec_eval_names",
]

MAX_CUTOFF = 2**31 - 1


class NameNote(UserWarning):
    """A spelling from another tool that means something different there."""


# spellings that name no measure of the ranking at all (so no record holds them)
NOT_MEASURES: tuple[Alias, ...] = (
    Alias("mrt", "PyTerrier", refusal="PyTerrier's mrt is the mean response time of a "
          "pipeline, not a measure of the ranking"),
)


def measure_aliases() -> list[Alias]:
    """Every measure alias, read from the records (and the spellings of non-measures)."""
    return [a for fam in REGISTRY.values() for a in fam.aliases] + list(NOT_MEASURES)


def trec_eval_names() -> dict[str, str]:
    """trec_eval's measure names (also pytrec_eval's and PyTerrier's, which write
    ``P_10`` for ``P.10``) -> the irpref text, ``{k}`` a cut-off, ``{x}`` a real;
    read from the records' ``trec`` declarations."""
    return {t.name: t.text for fam in REGISTRY.values() for t in fam.trec}


@dataclass(frozen=True)
class PreferenceNames:
    """What the measure resolver may ask of the preference registry (attached
    by :mod:`irpref.preferences.registry` when it is imported)."""

    names: Callable[[], list[str]]  # canonical names and alias spellings
    find: Callable[[str], str | None]  # canonical text of a preference name, or None
    parse: Callable[[str], Any]  # parse a preference text (UsageError when bad)


_PREFERENCES: list[PreferenceNames] = []
_CONVERTERS: list[Callable[[Any], str | None]] = []


def attach_preferences(names: PreferenceNames) -> None:
    """Let the resolver recognise preference names (to say: use ``compare``)."""
    _PREFERENCES[:] = [names]


def register_converter(convert: Callable[[Any], str | None]) -> None:
    """Parse objects of another library: ``convert(obj)`` returns irpref text for
    an object it knows, ``None`` otherwise (:mod:`irpref.interop.ir_measures`)."""
    if convert not in _CONVERTERS:
        _CONVERTERS.append(convert)


# ---- modifiers: what a command applies to every name it parses (--judged-only) ---


def modifiers_for(judged_only: bool = False) -> dict[str, object]:
    """The modifiers (:data:`~irpref.measures.base.MODIFIERS`) a parse applies to
    every name whose text does not set them: ``{"judged_only": True}`` under
    ``--judged-only`` (``irpref.params.Settings.judged_only``), else none."""
    return {"judged_only": True} if judged_only else {}


def parameters_of(params: dict[str, Param]) -> dict[str, Param]:
    """A record's parameters and the modifiers every measure and preference takes."""
    return {**params, **MODIFIERS}


def apply_modifiers(params: dict[str, object], modifiers: dict[str, object]) -> None:
    """Add the ``modifiers`` the text did not set (in place)."""
    for key, value in modifiers.items():
        params.setdefault(key, value)


# ---- grammar -----------------------------------------------------------------

_GRAMMAR = re.compile(
    r"""^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*?)\s*
        (?:\((?P<params>[^()]*)\))?\s*
        (?:@\s*(?P<cutoff>[^\s()@]*))?\s*$""",
    re.VERBOSE,
)
_TREC_NAME = re.compile(
    r"^(?P<base>[A-Za-z0-9_\-]+?)(?:[._](?P<args>[0-9]+(?:\.[0-9]+)?(?:,[0-9.]+)*))?$"
)
_RANX_LEVEL = re.compile(r"^(?P<head>.*?)-l(?P<rel>[0-9]+)\s*$")


def _lower_keys(table: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in table.items():
        out.setdefault(k.lower(), v)
    return out


def lower_map(names: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for n in names:
        out.setdefault(n.lower(), n)
    return out


def find_alias(name: str, aliases: list[Alias]) -> Alias | None:
    """The alias spelled ``name`` exactly, else ignoring case (first declared wins)."""
    for a in aliases:
        if a.spelling == name:
            return a
    for a in aliases:
        if a.spelling.lower() == name.lower():
            return a
    return None


def resolve_family(name: str) -> tuple[str | None, Alias | None]:
    """(canonical family name, alias used) for a bare measure name."""
    if name in REGISTRY:
        return name, None
    aliases = measure_aliases()
    exact = next((a for a in aliases if a.spelling == name), None)
    if exact is not None:
        return _alias_family(exact), exact
    lower = lower_map(REGISTRY)
    if name.lower() in lower:
        return lower[name.lower()], None
    alias = find_alias(name, aliases)
    if alias is not None:
        return _alias_family(alias), alias
    return None, None


def _alias_family(alias: Alias) -> str | None:
    if alias.refusal:
        return None
    return alias.target.split("(")[0]


def _tell(alias: Alias | None, text: str) -> None:
    if alias is not None and alias.note:
        warnings.warn(f"{text.strip()}: {alias.note}", NameNote, stacklevel=4)


# ---- suggestions and hints ---------------------------------------------------


def _measure_candidates() -> list[str]:
    names = list(REGISTRY) + [
        a.spelling for a in measure_aliases() if _alias_family(a) in REGISTRY
    ]
    return names + list(trec_eval_names())


def closest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The ``n`` candidates closest to ``name`` (case-insensitive, difflib)."""
    lower = lower_map(candidates)
    hits = difflib.get_close_matches(name.lower(), list(lower), n=n, cutoff=0.0)
    return [lower[h] for h in hits]


def preference_name(name: str) -> str | None:
    """The canonical text of a preference named ``name`` (None when it is not one
    or the preference registry is not loaded)."""
    return _PREFERENCES[0].find(name) if _PREFERENCES else None


def _unknown_measure(text: str, name: str) -> UsageError:
    pref = preference_name(name)
    if pref is not None:
        try:  # a preference with a bad parameter: that error is the precise one
            _PREFERENCES[0].parse(text)
        except UsageError as exc:
            return exc
        return UsageError(
            f"{text.strip()!r} is a preference (it compares two runs), not a measure: use "
            f"`irpref compare -m {text.strip()}` (Python: irpref.compare)"
        )
    hint = ", ".join(closest(name, _measure_candidates()))
    return UsageError(
        f"unknown measure {text.strip()!r}; did you mean {hint}? "
        "(`irpref measures` lists them all)"
    )


# ---- parsing -----------------------------------------------------------------

def parse_params(
    text: str,
    name: str,
    params_text: str | None,
    allowed: dict[str, Param],
    check_required: bool = True,
    spellings: dict[str, tuple[str, dict[str, str]]] | None = None,
) -> dict[str, Any]:
    """``key=value,...`` -> typed values, each checked against its Param.
    ``spellings``: another tool's parameter names and values (a record's
    ``param_spellings``, e.g. ir_measures' ``nDCG(dcg=exp-log2)``)."""
    where = text.strip()
    params: dict[str, Any] = {}
    if params_text and params_text.strip():
        for item in params_text.split(","):
            if "=" not in item:
                raise UsageError(f"{where}: parameter {item.strip()!r} is not key=value")
            key, value = (s.strip() for s in item.split("=", 1))
            if key not in allowed:
                lower = lower_map(allowed)
                if key.lower() in lower:
                    key = lower[key.lower()]
                else:
                    theirs = (spellings or {}).get(key)
                    if theirs is not None and value.strip("'\"") in theirs[1]:
                        key, value = theirs[0], theirs[1][value.strip("'\"")]
                        params[key] = allowed[key].convert(where, key, value)
                        continue
                    # (the modifiers every measure takes are not listed: `irpref
                    # measures` lists them once)
                    names = ", ".join(k for k in allowed if k not in MODIFIERS) or "none"
                    raise UsageError(
                        f"{where}: unknown parameter {key!r} ({name} takes: {names})"
                    )
            if key in params:
                raise UsageError(f"{where}: parameter {key!r} given twice")
            params[key] = allowed[key].convert(where, key, value)
    if check_required:
        _check_required(where, name, allowed, params)
    return params


def _check_required(where: str, name: str, allowed: dict[str, Param], params: dict) -> None:
    for key, param in allowed.items():
        if param.required and key not in params:
            value: Any = "..."
            if param.choices:
                value = param.choices[0]
            elif param.range is not None:
                lo, _, hi, _ = range_bounds(param.range)
                value = (lo + hi) / 2 if math.isfinite(hi) else "..."
            raise UsageError(
                f"{where}: {key} ({param.doc}) is required, e.g. {name}({key}={value})"
            )


def _cutoff(where: str, text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise UsageError(f"{where}: the cut-off must be an integer >= 1")
    k = int(text)
    if k < 1:
        raise UsageError(f"{where}: the cut-off must be an integer >= 1")
    if k > MAX_CUTOFF:
        raise UsageError(f"{where}: the cut-off must be at most {MAX_CUTOFF}")
    return k


def _build(text: str, family_name: str, params_text: str | None, cutoff_text: str | None,
           preset: dict[str, str] | None = None, modifiers: dict | None = None) -> Measure:
    family = REGISTRY[family_name]
    where = text.strip()
    allowed = parameters_of(family.params)
    params = parse_params(text, family_name, params_text, allowed, check_required=False,
                          spellings=family.param_spellings)
    apply_modifiers(params, modifiers or {})
    for key, value in (preset or {}).items():
        if key in params and params[key] != family.params[key].convert(where, key, value):
            raise UsageError(f"{where}: {key} is set twice")
        params.setdefault(key, family.params[key].convert(where, key, value))
    cutoff = None
    if cutoff_text is not None:
        key = family.at_param  # ir_measures: IPrec@0.2 is IPrec(recall=0.2)
        if key:
            if key in params:
                raise UsageError(f"{where}: {key} is set twice")
            params[key] = family.params[key].convert(where, key, cutoff_text)
        else:
            cutoff = _cutoff(where, cutoff_text)
    _check_required(where, family_name, family.params, params)
    if family.cutoff == "none" and cutoff is not None:
        raise UsageError(f"{where}: {family_name} takes no cut-off")
    if family.cutoff == "required" and cutoff is None:
        raise UsageError(f"{where}: {family_name} needs a cut-off, e.g. {family_name}@10")
    canonical = tuple(sorted((k, v) for k, v in params.items() if v != allowed[k].default))
    return Measure(family_name, canonical, cutoff)


def _preset(target: str) -> dict[str, str]:
    m = re.fullmatch(r"[^()]*\((?P<p>[^()]*)\)", target)
    if not m:
        return {}
    return dict(item.split("=", 1) for item in m.group("p").split(","))


def trec_family(text: str) -> str | None:
    """The canonical text of a trec_eval / pytrec_eval spelling (None if it is not one)."""
    m = _TREC_NAME.match(text.strip())
    if not m:
        return None
    base, args = m.group("base"), m.group("args")
    names = trec_eval_names()
    pattern = names.get(base) or _lower_keys(names).get(base.lower())
    if base.lower() == "rbp" and args is not None and "," not in args and "." not in args:
        return f"RBP(p=0.{args})"  # ranx: rbp.95 is RBP(p=0.95), binary
    if pattern is None:
        return None
    if args is not None and "," in args:
        first = pattern.split("@")[0].split("(")[0]
        raise UsageError(
            f"{text.strip()}: give one measure per cut-off or parameter "
            f"(e.g. {first}@5 {first}@10)"
        )
    if "{x}" in pattern:
        return pattern.format(x=args) if args is not None else None
    if "{k}" in pattern:
        if args is None:
            return pattern.replace("@{k}", "")
        return pattern.format(k=args)
    return pattern if args is None else None


def parse_measure_text(text: str, modifiers: dict | None = None) -> Measure:
    """Parse one measure name as a user typed it (any tool's spelling);
    ``modifiers`` (:func:`modifiers_for`) apply where the text sets none."""
    if not isinstance(text, str):
        raise TypeError(f"a measure is a string or a Measure, not {type(text).__name__}")
    if not text.strip():
        raise UsageError("empty measure name")
    level = _RANX_LEVEL.match(text)
    if level is not None and "(" not in text:  # ranx: map@100-l2 is AP(rel=2)@100
        inner = parse_measure_text(level.group("head"), modifiers)
        if "rel" not in inner.family.params:
            raise UsageError(f"{text.strip()}: {inner.name} takes no relevance level")
        params = dict(inner.params)
        params["rel"] = inner.family.params["rel"].convert(text.strip(), "rel", level["rel"])
        canonical = tuple(sorted((k, v) for k, v in params.items() if v is not None))
        return Measure(inner.name, canonical, inner.cutoff)
    m = _GRAMMAR.match(text)
    if m is not None:
        family, alias = resolve_family(m.group("name"))
        if alias is not None and alias.refusal:
            raise UsageError(f"{text.strip()}: {alias.refusal}")
        if family is not None:
            if family not in REGISTRY:  # an alias of a family not built in this version
                raise _unknown_measure(text, m.group("name"))
            measure = _build(text, family, m.group("params"), m.group("cutoff"),
                             _preset(alias.target) if alias else None, modifiers)
            _tell(alias, text)
            return measure
    translated = trec_family(text)
    if translated is not None:
        base = text.strip().split(".")[0].split("_")[0]
        measure = parse_measure_text(translated, modifiers)
        alias = find_alias(base, measure_aliases())  # trec_eval's rbp: its note is told
        if alias is not None and _alias_family(alias) == measure.name:
            _tell(alias, text)
        return measure
    if m is None:
        head = re.match(r"\s*([A-Za-z][A-Za-z0-9_\-]*)", text)
        if head is not None:
            family, _ = resolve_family(head.group(1))
            if family is None and preference_name(head.group(1)) is None:
                raise _unknown_measure(text, head.group(1))
            if family is None:
                raise _unknown_measure(text, head.group(1))
        raise UsageError(
            f"cannot parse measure {text.strip()!r}: expected NAME, NAME@k or "
            "NAME(key=value,...)@k"
        )
    raise _unknown_measure(text, m.group("name"))


def canonical_name(text: Any, kind: str = "measure", *, judged_only: bool = False) -> str:
    """The canonical spelling irpref prints for a measure (``map@100`` ->
    ``AP@100``) or, with ``kind="preference"``, a preference (``dcgrpp`` ->
    ``RPP(p=dcg)``); ``judged_only=True`` adds the modifier where the text sets
    none (``AP`` -> ``AP(judged_only=true)``). The CLI passes these to
    ``evaluate``/``compare``, whose rows are labelled with the strings given."""
    if kind == "preference":
        if not _PREFERENCES:
            raise RuntimeError("the preference registry is not loaded (import irpref)")
        return str(_PREFERENCES[0].parse(text, judged_only=judged_only))
    return str(parse_measure(text, judged_only=judged_only))


def parse_measure(text: Any, *, judged_only: bool = False) -> Measure:
    """Parse one measure from irpref's canonical form or another tool's spelling.

    Names are case-insensitive; ``MAP``, ``ndcg@10``, ``ndcg_cut.10``, ``P_10``,
    ``recall@1000`` and the other spellings of trec_eval, pytrec_eval,
    ir_measures, ranx and PyTerrier parse to the same measure. Parameters are
    validated here, before any file is read.

    Parameters
    ----------
    text : str, Measure or ir_measures measure
        The measure, e.g. ``"nDCG(gain=exp)@10"``, ``"RBP(p=0.5)"``, ``"map"``.
    judged_only : bool, default False
        Give the measure ``judged_only=true`` unless its text sets it (the
        judging setting ``--judged-only``).

    Returns
    -------
    Measure
        The parsed measure; ``str()`` gives its canonical text.

    Raises
    ------
    UsageError
        An unknown name (with the three closest names), a parameter out of
        range, a preference (which `compare` takes).

    Examples
    --------
    >>> import irpref
    >>> irpref.parse_measure("ndcg_cut.10")
    nDCG@10
    >>> irpref.parse_measure("map@100-l2")
    AP(rel=2)@100
    >>> irpref.parse_measure("nDGC@10")
    Traceback (most recent call last):
    ...
    irpref.errors.UsageError: unknown measure 'nDGC@10'; did you mean nDCG, RnDCG, NCG? ...
    """
    modifiers = modifiers_for(judged_only)
    if isinstance(text, Measure):
        unset = {k: v for k, v in modifiers.items() if k not in dict(text.params)}
        return with_params(text, **unset) if unset else text
    if not isinstance(text, str):
        for convert in _CONVERTERS:
            converted = convert(text)
            if converted is not None:
                return parse_measure_text(converted, modifiers)
    return parse_measure_text(text, modifiers)


def parse_measures(texts: Any, *, judged_only: bool = False) -> list[Measure]:
    """Parse several measures; a string may hold several separated by spaces.

    Parameters
    ----------
    texts : str or iterable of str or Measure
        Measures, e.g. ``"AP nDCG@10"`` or ``["AP", "RBP(p=0.5)"]``; spaces
        inside parentheses do not separate.
    judged_only : bool, default False
        Give every measure ``judged_only=true`` unless its text sets it.

    Returns
    -------
    list of Measure
        The parsed measures, in order.

    Raises
    ------
    UsageError
        An unknown name or a parameter out of range.

    Examples
    --------
    >>> import irpref
    >>> irpref.parse_measures("AP nDCG@10 RBP(p=0.5)")
    [AP, nDCG@10, RBP(p=0.5)]
    >>> irpref.parse_measures(["P@10"], judged_only=True)
    [P(judged_only=true)@10]
    """
    return parse_all(texts, lambda t: parse_measure(t, judged_only=judged_only), Measure)
