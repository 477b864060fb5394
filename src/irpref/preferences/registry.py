"""Preferences as values: ``Preference`` objects, their text form, the registry.

A preference compares two rankings of one query and returns a value
``Δ(π, π')``: positive when ``π`` is preferred, negative when ``π'`` is,
0 when indifferent; always antisymmetric, ``Δ(π, π') = -Δ(π', π)``.

Text form (the grammar of :mod:`irpref.measures.base`, without cut-offs)::

    NAME [ "(" key=value {"," key=value} ")" ]

e.g. ``sgnLP``, ``rrLP``, ``sgnLR``, ``RPP``, ``RPP(p=dcg)``,
``RPP(p=inverse)``, ``ST-RPP``. Parameters print sorted by key, defaults
omitted. Names are case-insensitive; the reference implementation's names
(pref_eval: ``lexiprecision``, ``rrlexiprecision``, ``lexirecall``, ``rpp``,
``dcgrpp``, ``invrpp``) are aliases declared in each family's record. A
measure name given here says to use ``irpref evaluate``.

Each family is one :class:`PrefFamily` record: ``kind`` (``sign`` when its
values are in {-1, 0, 1}: paired sign test; ``real`` otherwise: paired t
test), orientation, range, the population it reads and the engine kernel
that computes it (:mod:`irpref.preferences.pairs` dispatches on these, never
on names), aliases, formula and source. Importing this module attaches the
registry to the measure resolver (:func:`irpref.measures.names.attach_preferences`),
so a preference name given as a measure gets a precise hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from irpref.errors import UsageError
from irpref.measures.base import (
    MODIFIERS,
    Alias,
    Param,
    orientation_sign,
    param_text,
    parse_all,
    rel_param,
    with_params,
)
from irpref.measures.names import (
    PreferenceNames,
    apply_modifiers,
    attach_preferences,
    closest,
    find_alias,
    lower_map,
    modifiers_for,
    parameters_of,
    parse_params,
    resolve_family,
    trec_family,
)

__all__ = [
    "DEFAULT_PREFERENCES",
    "PREFERENCES",
    "PrefFamily",
    "Preference",
    "parse_preference",
    "parse_preferences",
    "preference_aliases",
    "preference_kind",
    "resolve_preference_name",
]

KINDS = ("sign", "real")
WEIGHTINGS = ("uniform", "dcg", "inverse")
POPULATIONS = ("binary", "graded", "subtopic")
ENGINES = ("lexicographic", "rpp")


RANKINGS = ("mean", "borda")
"""How a leaderboard (``irpref rank``) scores a run by a preference: ``mean``, its mean
preference over the other runs (the win rate of the RPP paper, Eq. 7, over R - 1), or
``borda``, its Borda points over the per-query orders (:func:`irpref.preferences.aggregate.borda`).
For a sign preference from per-query orders the two order runs alike."""


@dataclass(frozen=True)
class PrefFamily:
    """A preference family: everything true of it, in one record.

    ``kind``: ``sign`` (values in {-1, 0, 1}: sign test) or ``real`` (t test);
    ``orientation``: ``higher`` (a positive value prefers the first ranking);
    ``range`` of values; ``population``: whose relevant positions it reads
    (``binary``: the items of grade >= rel; ``graded``: one population per
    grade, unless ``grades=binary``; ``subtopic``: one per subtopic, ndeval
    qrels); ``engine``: the all-pairs kernel (``lexicographic``: a total order
    of the runs per population, ``order`` ``precision`` (from the top) or
    ``recall`` (from the bottom), ``value`` ``sign`` or ``rr``; ``rpp``:
    recall-paired sums); ``aliases``: other tools' names (pref_eval); ``ranking``:
    how a leaderboard scores a run (:data:`RANKINGS`)."""

    name: str
    kind: str  # "sign" | "real"
    formula: str
    source: str
    params: dict[str, Param] = field(default_factory=dict)
    description: str = ""
    population: str = "binary"
    engine: str = "lexicographic"
    order: str = ""  # lexicographic: "precision" | "recall"
    value: str = ""  # lexicographic: "sign" | "rr"
    orientation: str = "higher"
    range: str = "[-1, 1]"
    aliases: tuple[Alias, ...] = ()
    ranking: str = "mean"  # how a leaderboard scores a run: "mean" | "borda"

    def __post_init__(self) -> None:
        if self.kind not in KINDS or self.population not in POPULATIONS:
            raise ValueError(f"{self.name}: bad kind or population")
        if self.engine not in ENGINES:
            raise ValueError(f"{self.name}: engine must be one of {ENGINES}")
        orientation_sign(self.orientation)  # one of higher, lower, none
        if self.ranking not in RANKINGS:
            raise ValueError(f"{self.name}: ranking must be one of {RANKINGS}")
        if self.engine == "lexicographic" and (
            self.order not in ("precision", "recall") or self.value not in ("sign", "rr")
        ):
            raise ValueError(f"{self.name}: a lexicographic preference needs order and value")
        object.__setattr__(self, "aliases", tuple(
            replace(a, kind="preference",
                    target=self.name + (f"({a.preset})" if a.preset else ""))
            for a in self.aliases
        ))

    @property
    def needs_subtopics(self) -> bool:
        """True when it reads subtopic judgments (ndeval format)."""
        return self.population == "subtopic"

    @property
    def compact(self) -> bool:
        """True when the engine computes it from the compact layout of
        :class:`~irpref.judging.judged.JudgedRankings` (ranks and grades of the judged
        items: binary and graded populations); subtopic populations join
        retrieved documents with subtopic judgments and need the full layout."""
        return not self.needs_subtopics

    def population_of(self, p: Preference) -> str:
        """The population ``p`` reads: the record's, or binary with ``grades=binary``."""
        if self.population == "graded" and p.get("grades") == "binary":
            return "binary"
        return self.population


_REL = rel_param("relevance level: grade >= rel is relevant (default: compare's rel)")
_P = Param(str, "uniform", "p(i), the distribution of recall requirements", WEIGHTINGS)

PREFERENCES: dict[str, PrefFamily] = {
    fam.name: fam
    for fam in [
        PrefFamily(
            "sgnLP",
            "sign",
            "sgn(δRR_{i*}(π, π')), i* = min{i : p_i != p'_i}; unretrieved relevant items "
            "tie with each other and lose to retrieved ones",
            "Diaz 2023, lexiprecision, §3.2 and Eq. 3",
            {"rel": _REL},
            "lexicographic precision: compare sorted relevant positions from the top",
            order="precision",
            value="sign",
            aliases=(Alias("lexiprecision", "pref_eval"), Alias("LP", "Diaz 2023")),
        ),
        PrefFamily(
            "rrLP",
            "real",
            "δRR_{i*}(π, π') = 1/p_{i*} - 1/p'_{i*}, i* = min{i : p_i != p'_i}; "
            "1/p = 0 for an unretrieved item",
            "Diaz 2023, lexiprecision, §3.5 Eq. 2",
            {"rel": _REL},
            "lexiprecision with the reciprocal-rank difference at the deciding level",
            order="precision",
            value="rr",
            aliases=(Alias("rrlexiprecision", "pref_eval"),),
        ),
        PrefFamily(
            "sgnLR",
            "sign",
            "sgn(p'_{i*} - p_{i*}), i* = max{i : p_i != p'_i}, unretrieved relevant items "
            "imputed at the bottom of the corpus (they tie with each other)",
            "Diaz & Mitra 2023, lexirecall, §5.2 Eq. 11 (leximin, Eq. 9-10)",
            {"rel": _REL},
            "lexicographic recall: compare sorted relevant positions from the bottom",
            order="recall",
            value="sign",
            aliases=(Alias("lexirecall", "pref_eval"), Alias("LR", "Diaz & Mitra 2023")),
        ),
        PrefFamily(
            "RPP",
            "real",
            "Σ_λ Σ_{i<=m_λ} p(λ) p(i|λ) sgn(f'_{i,λ} - f_{i,λ}); p(λ) ∝ m_λ = |{d : y_d >= λ}|, "
            "p(i|λ) ∝ 1 (uniform), 1/log2(i+1) (dcg) or 1/i (inverse) over i <= m_λ; "
            "one population (Eq. 4) when the relevant items share one grade",
            "Diaz & Ferraro 2022, RPP, §4 Eq. 4-5 and §5.3",
            {
                "p": _P,
                "grades": Param(
                    str,
                    "graded",
                    "graded: one population per grade >= rel (Eq. 5); binary: Eq. 4 only",
                    ("graded", "binary"),
                ),
                "rel": _REL,
            },
            "recall-paired preference",
            population="graded",
            engine="rpp",
            aliases=(
                Alias("rpp", "pref_eval"),
                Alias("dcgrpp", "pref_eval", preset="p=dcg"),
                Alias("invrpp", "pref_eval", preset="p=inverse"),
            ),
        ),
        PrefFamily(
            "ST-RPP",
            "real",
            "Σ_{t ∈ T ∪ {t*}} Σ_{i<=m_t} p(t) p(i|t) sgn(f'_{i,t} - f_{i,t}); p(t) ∝ m_t, "
            "relevant items of subtopic t; t* (background) = relevant to any subtopic",
            "Diaz & Ferraro 2022, RPP, §4 Eq. 6 and §5.3",
            {"p": _P, "rel": _REL},
            "subtopic recall-paired preference (needs ndeval-format subtopic qrels)",
            population="subtopic",
            engine="rpp",
            aliases=(Alias("strpp", "pref_eval"),),
        ),
    ]
}



def preference_aliases() -> list[Alias]:
    """Every preference alias, read from the records (pref_eval's names and others)."""
    return [a for fam in PREFERENCES.values() for a in fam.aliases]


DEFAULT_PREFERENCES = ["sgnLP", "rrLP", "sgnLR", "RPP", "RPP(p=dcg)", "RPP(p=inverse)"]


@dataclass(frozen=True)
class Preference:
    """One preference: a family name and its (non-default) parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + "(" + ",".join(f"{k}={param_text(v)}" for k, v in self.params) + ")"

    __repr__ = __str__

    @property
    def family(self) -> PrefFamily:
        return PREFERENCES[self.name]

    @property
    def kind(self) -> str:
        return self.family.kind

    def get(self, key: str) -> Any:
        """The parameter ``key`` (its default when not given)."""
        for k, v in self.params:
            if k == key:
                return v
        params = self.family.params
        return (params[key] if key in params else MODIFIERS[key]).default

    @property
    def judged_only(self) -> bool:
        """True when it compares the condensed lists (``judged_only=true``:
        unjudged documents removed, Sakai 2007; see :mod:`irpref.judging.condense`)."""
        return bool(self.get("judged_only"))

    def rel(self, default: int) -> int:
        value = self.get("rel")
        return int(default if value is None else value)


_GRAMMAR = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:\((?P<params>[^()]*)\))?\s*$"
)
_CUTOFF = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*(?:\([^()]*\))?\s*@")


def parse_preference(text: str | Preference, *, judged_only: bool = False) -> Preference:
    """Parse ``text``, e.g. ``RPP(p=dcg)``; a UsageError names what is wrong.
    ``judged_only=True`` (the judging setting ``--judged-only``) gives it
    ``judged_only=true`` unless its text sets it."""
    modifiers = modifiers_for(judged_only)
    if isinstance(text, Preference):
        unset = {k: v for k, v in modifiers.items() if k not in dict(text.params)}
        return with_params(text, **unset) if unset else text
    if not isinstance(text, str):
        raise TypeError(f"a preference is a string, not {type(text).__name__}")
    where = text.strip()
    m = _GRAMMAR.match(text)
    if m is None:
        c = _CUTOFF.match(text)
        if c is not None:
            resolve_preference_name(text, c.group("name"))  # a measure name: say so
            raise UsageError(f"{where}: a preference takes no cut-off (use --depth)")
        if trec_family(text) is not None:  # ndcg_cut.10: a measure, say so
            resolve_preference_name(text, where)
        raise UsageError(f"cannot parse preference {where!r}: expected NAME(key=value,...)")
    target = resolve_preference_name(text, m.group("name"))
    name, _, preset_text = target.partition("(")
    family = PREFERENCES[name]
    allowed = parameters_of(family.params)
    params = parse_params(text, name, m.group("params"), allowed)
    apply_modifiers(params, modifiers)
    for item in filter(None, preset_text.rstrip(")").split(",")):
        key, value = item.split("=", 1)
        if key in params and params[key] != value:
            raise UsageError(f"{where}: {key} is set twice")
        params[key] = family.params[key].convert(where, key, value)
    canonical = tuple(sorted((k, v) for k, v in params.items() if v != allowed[k].default))
    return Preference(name, canonical)


def parse_preferences(texts, *, judged_only: bool = False) -> list[Preference]:
    """Parse several preferences; a string may hold several separated by spaces."""
    out = parse_all(texts, lambda t: parse_preference(t, judged_only=judged_only), Preference)
    if not out:
        raise ValueError("no preference given")
    return out


def preference_kind(text: str | Preference) -> str:
    """``sign`` (values in {-1, 0, 1}: sign test) or ``real`` (t test)."""
    return parse_preference(text).kind


def resolve_preference_name(text: str, name: str) -> str:
    """Canonical preference text for ``name`` (an alias may preset parameters,
    e.g. ``dcgrpp`` -> ``RPP(p=dcg)``), or a UsageError with a hint."""
    found = _find_preference(name)
    if found is None:
        raise _unknown_preference(text, name)
    return found


def _find_preference(name: str) -> str | None:
    if name in PREFERENCES:
        return name
    aliases = preference_aliases()
    exact = next((a for a in aliases if a.spelling == name), None)
    if exact is not None:
        return exact.target
    lower = lower_map(PREFERENCES)
    if name.lower() in lower:
        return lower[name.lower()]
    alias = find_alias(name, aliases)
    return alias.target if alias is not None else None


def _preference_candidates() -> list[str]:
    return list(PREFERENCES) + [a.spelling for a in preference_aliases()]


def _unknown_preference(text: str, name: str) -> UsageError:
    family, _ = resolve_family(name)
    if family is not None or trec_family(text) is not None:
        return UsageError(
            f"{text.strip()!r} is a measure (one value per run), not a preference: use "
            f"`irpref evaluate -m {text.strip()}` (Python: irpref.evaluate)"
        )
    hint = ", ".join(closest(name, _preference_candidates()))
    return UsageError(
        f"unknown preference {text.strip()!r}; did you mean {hint}? "
        "(`irpref measures` lists them all)"
    )


def _find_for_measures(name: str) -> str | None:
    """A preference name as the measure resolver asks (case-insensitive name or alias)."""
    lower = lower_map(PREFERENCES)
    if name.lower() in lower:
        return lower[name.lower()]
    alias = find_alias(name, preference_aliases())
    return alias.target if alias is not None else None


# the measure resolver may now say "that is a preference: use compare"
attach_preferences(PreferenceNames(_preference_candidates, _find_for_measures, parse_preference))
