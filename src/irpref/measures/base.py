"""Measures as values: ``Measure`` objects, their text form, and the registry.

Canonical text form (one grammar, parsed, never ``eval``-ed)::

    NAME [ "(" key=value {"," key=value} ")" ] [ "@" cutoff ]

e.g. ``AP``, ``nDCG@10``, ``RBP(p=0.8)``, ``AP(rel=2)@100``. Parameters are
printed sorted by key, defaults omitted, so equal measures print equally.

Each measure family registers one :class:`Family` record, the single place
where everything true of the measure is declared (trec_eval keeps one file
per measure the same way): its kernel per tie policy (``expected`` attached
beside it, :func:`attach_kernel`), which layouts the kernels read
(``compact``, ``compact_expected``), parameters with their ranges, cut-off, orientation,
range of values, the names other tools give it (:class:`Alias`: trec_eval,
pytrec_eval, ir_measures, ranx, PyTerrier, with a note where a spelling means
something else there), its trec_eval names with their print facts
(:class:`TrecName`), its ir_measures counterpart, the tools whose definition
it follows exactly, formula and source. The name resolver
(:mod:`irpref.measures.names`), ``irpref measures``, the trec_eval table and
the interop layer read these records; none keeps a table of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from irpref.errors import UsageError
from irpref.judging.condense import condensed
from irpref.judging.judged import JudgedRankings, LayoutError

__all__ = [
    "JUDGED_ONLY",
    "MODIFIERS",
    "Alias",
    "Family",
    "Flag",
    "Measure",
    "Param",
    "REGISTRY",
    "REL",
    "attach_kernel",
    "TREC_CUTS",
    "TREC_MULTS",
    "TREC_RECALLS",
    "TrecName",
    "parse_all",
    "parse_labelled",
    "register",
    "rel_param",
    "split_names",
    "trec_number",
    "with_params",
]

Kernel = Callable[[JudgedRankings, "Measure"], np.ndarray]


@dataclass(frozen=True)
class Param:
    """A typed measure or preference parameter with its valid values.

    ``range`` is an interval in the usual notation, ``"(0, 1)"``, ``"[0, 1]"``,
    ``"[1, inf)"``, with open ``(``/``)`` or closed ``[``/``]`` bounds; a float
    parameter without a range must still be finite. ``choices`` lists the
    values of a string parameter. ``required`` parameters have no default.
    Every check happens when the measure is parsed, and every refusal reads
    ``TEXT: KEY must be ...`` (e.g. ``RBP(p=2): p must be in (0, 1)``).
    """

    type: type
    default: Any = None
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    range: str | None = None
    required: bool = False

    def __post_init__(self) -> None:
        if self.range is not None:
            range_bounds(self.range)  # a malformed spec fails at import, not at use

    def valid(self) -> str:
        """The valid values, as printed by ``irpref measures``."""
        if self.choices is not None:
            return "one of " + "|".join(map(str, self.choices))
        kind = "integer" if self.type is int else "number" if self.type is float else "text"
        if hasattr(self.type, "expected"):  # a structured value describes itself
            return self.type.expected
        if self.range is None:
            return "finite number" if self.type is float else kind
        return f"{kind} in {self.range}"

    def _refusal(self, where: str, key: str) -> str:
        if self.choices is not None:
            return f"{where}: {key} must be one of {', '.join(map(str, self.choices))}"
        if self.type is int:
            what = "an integer"
        elif self.type is float:
            what = "a number"
        else:
            return f"{where}: {key} must be {getattr(self.type, 'expected', 'text')}"
        if self.range is None:
            return f"{where}: {key} must be {'a finite number' if self.type is float else what}"
        lo, lo_open, hi, hi_open = range_bounds(self.range)
        if hi == math.inf:  # half-line: "must be an integer >= 1", "must be > 0"
            op = ">" if lo_open else ">="
            return f"{where}: {key} must be {what + ' ' if self.type is int else ''}{op} {_num(lo)}"
        prefix = "an integer in" if self.type is int else "in"
        return f"{where}: {key} must be {prefix} {self.range}"

    def convert(self, where: str, key: str, text: Any) -> Any:
        """``text`` as a value of this parameter, or a UsageError naming ``where``."""
        if isinstance(text, str):
            text = text.strip().strip("'\"")
        try:
            if self.type is int:
                if isinstance(text, (bool, float)):
                    raise ValueError
                value = int(text)
            elif self.type is float:
                if isinstance(text, bool):
                    raise ValueError
                value = float(text)
            else:
                value = self.type(text)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(self._refusal(where, key)) from None
        if self.choices is not None and value not in self.choices:
            raise UsageError(self._refusal(where, key))
        if self.type is float and not math.isfinite(value):
            raise UsageError(self._refusal(where, key))
        if self.range is not None:
            lo, lo_open, hi, hi_open = range_bounds(self.range)
            if value < lo or (lo_open and value == lo) or value > hi or (hi_open and value == hi):
                raise UsageError(self._refusal(where, key))
        return value


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


_RANGE = re.compile(r"^\s*([\[(])\s*(-?inf|[-+0-9.e]+)\s*,\s*(-?inf|[-+0-9.e]+)\s*([\])])\s*$")


def range_bounds(spec: str) -> tuple[float, bool, float, bool]:
    """``"(0, 1]"`` -> (0.0, True, 1.0, False): low, low open, high, high open."""
    m = _RANGE.match(spec)
    if m is None:
        raise ValueError(f"malformed parameter range {spec!r}")
    return float(m.group(2)), m.group(1) == "(", float(m.group(3)), m.group(4) == ")"


REL_RANGE = "[1, inf)"


def rel_param(doc: str = "relevance level: grade >= rel is relevant "
              "(default: the evaluation's --rel)") -> Param:
    """The ``rel`` parameter every binary measure and preference shares."""
    return Param(int, None, doc, range=REL_RANGE)


REL = {"rel": rel_param()}
"""The ``params`` of a record whose only parameter is ``rel`` (add others with ``**REL``)."""


class Flag:
    """The value type of a boolean parameter: the text ``true`` or ``false`` (any
    case) or a Python/NumPy bool; anything else (``1``, ``yes``) is refused as
    ``KEY must be true or false``. Printed ``true``/``false``."""

    expected = "true or false"

    def __new__(cls, value: Any) -> bool:  # type: ignore[misc]
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ValueError(f"not a boolean: {value!r}")


JUDGED_ONLY = Param(
    Flag, False,
    "evaluate the condensed lists: every unjudged document (absent from the qrels "
    "of its query, or a negative grade) removed after the depth cut, the judged "
    "ones moved up (Sakai, SIGIR 2007, Alternatives to bpref; trec_eval -J)",
)

MODIFIERS: dict[str, Param] = {"judged_only": JUDGED_ONLY}
"""Parameters every measure and every preference accepts, declared once here
(not in the records): they change what is evaluated, not the formula."""


@dataclass(frozen=True)
class Alias:
    """Another spelling of a measure or preference, declared in its record.

    ``spelling`` as the tool writes it; ``tools`` the tools that write it so;
    ``preset`` parameters the spelling implies (``ndcg_burges`` is
    ``nDCG(gain=exp)``: preset ``gain=exp``); ``note`` where the spelling means
    something else in that tool (issued as a warning when the spelling is
    used); ``refusal`` when irpref has no equivalent (the spelling is refused
    with that text). ``target`` (the canonical text) and ``kind`` (``measure``
    or ``preference``) are filled in by the registry."""

    spelling: str
    tools: str
    note: str = ""
    preset: str = ""
    refusal: str = ""
    target: str = ""
    kind: str = "measure"


# trec_eval's default parameters (measures.c): cut-offs, recall levels, R multiples
TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
TREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def trec_number(x: float) -> str:
    """A trec_eval real parameter as irpref text: ``0.2`` -> ``'0.2'``, ``1`` -> ``'1.0'``."""
    return repr(float(x))


@dataclass(frozen=True)
class TrecName:
    """A trec_eval measure this family computes, with trec_eval's print facts.

    ``name`` as trec_eval prints it (``map``, ``P``); ``text`` the irpref text
    of one value with ``{k}`` a cut-off or ``{x}`` a real parameter
    (``P@{k}``, ``IPrec(recall={x})``); ``style`` trec_eval's parameter style
    (``single``, ``cut_long``, ``cut_double``, ``p_double``, ``p_pair``),
    ``default`` its default parameters (``-m P`` prints P_5 ... P_1000),
    ``value`` how it prints (``long`` integer or ``float``), ``average`` how
    the summary aggregates (``mean``, ``sum``, ``gm``, ``count``),
    ``per_query`` and ``summary`` whether ``-q`` and the summary print it;
    ``build`` the irpref text for the parameters when ``text.format`` does not
    say it (``None`` with ``computed=True``: the trec_eval code computes it)."""

    name: str
    text: str
    style: str = "single"
    default: tuple = ()
    value: str = "float"
    average: str = "mean"
    per_query: bool = True
    summary: bool = True
    build: Callable[..., str] | None = None
    computed: bool = False


@dataclass
class Family:
    """A measure family: kernels per tie policy plus its documentation."""

    name: str
    kernel: Kernel
    formula: str
    source: str
    params: dict[str, Param] = field(default_factory=dict)
    cutoff: str = "optional"  # "optional" | "required" | "none"
    trec_eval: str | None = None
    kind: str = "real"  # "real" (t test) | "count"
    aggregate: Callable[[np.ndarray], float] | None = None  # default: arithmetic mean
    expected: Kernel | None = None  # kernel for ties="expected"
    # why there is no ``expected`` kernel (the family then refuses ties="expected"):
    # every family has the one or the other (tests/test_tie_aware.py)
    ties_note: str = ""
    description: str = ""
    # the kernels that read the compact layout of JudgedRankings (only the
    # items the qrels mention: explicit ranks, per-segment counts, tie groups
    # per item), declared in the record (tests/test_compact.py checks each)
    compact: bool = False  # the docid/input kernel
    compact_expected: bool = False  # the ties="expected" kernel
    # which direction is better: "higher" (AP, nDCG), "lower" (ASL, SL1, SL3, RE:
    # positions and lengths) or "none" (counts and coverage: NumRet, Unj, Judged)
    orientation: str = "higher"
    # other tools whose definition this family reproduces exactly (tests/
    # test_tool_definitions.py runs each of them on real data and compares)
    follows: tuple[str, ...] = ()
    # the interval of values: "[0, 1]", "[0, inf)", "(-inf, inf)"
    range: str | None = None
    aliases: tuple[Alias, ...] = ()  # other spellings (tools, notes, refusals)
    trec: tuple[TrecName, ...] = ()  # trec_eval names and their print facts
    ir_measures: str = ""  # ir_measures' counterpart, e.g. "AP", "NumRet(rel=...)"
    notes: str = ""  # where the canonical name means something else elsewhere
    # no ordering of tied items changes the value (counts, set measures): the
    # ties="expected" kernel is the kernel itself
    order_free: bool = False
    subtopics: bool = False  # reads subtopic qrels (ndeval format: --subtopics FILE)
    # reads preference judgments (trec_eval -R prefs: a .prefs file), or the qrels as such
    preferences: bool = False
    # True for the measures that may fall back on the number of distinct documents
    # for the corpus size (ASL(missing=corpus))
    uses_n_docs: Callable[[Measure], bool] | None = None
    # representative spellings (parameters, cut-offs) the tests evaluate, e.g. in
    # both layouts (tests/test_compact.py) and within the range (tests/test_names.py)
    examples: tuple[str, ...] = ()
    # ir_measures' "@x" for a real parameter: IPrec@0.2 is IPrec(recall=0.2)
    at_param: str = ""
    # other tools' parameter spellings: {key: (irpref key, {their value: irpref value})}
    param_spellings: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    # residual bounds (irpref.measures.bounds): "monotone" when the value never falls as
    # an unjudged document gains a grade (lower = the value with the unjudged
    # documents non-relevant, upper = all of the top grade: exact); a rule
    # (judged, measure) -> (lower, upper), each (R, Q), whose docstring proves
    # it; None when no bound is defined (``bounds_note`` says why).
    # ``bounds_exact`` False: an outer bound only (``bounds_note`` says where).
    bounds: str | Callable[[JudgedRankings, Measure], tuple[np.ndarray, np.ndarray]] | None = None
    bounds_exact: bool = True
    bounds_note: str = ""

    def __post_init__(self) -> None:
        if self.orientation not in ORIENTATIONS:
            raise ValueError(f"{self.name}: orientation must be one of {ORIENTATIONS}")
        if self.range is not None:
            range_bounds(self.range)
        if self.order_free and self.expected is None:
            self.expected = self.kernel
        self.aliases = tuple(
            replace(a, target=self.name + (f"({a.preset})" if a.preset else ""))
            for a in self.aliases
        )

    def kernel_for(self, ties: str) -> Kernel:
        if ties == "expected":
            if self.expected is None:
                raise ValueError(
                    f"{self.name} has no tie-aware (expected) form; "
                    "use ties='docid' or ties='input'"
                )
            return self.expected
        return self.kernel


REGISTRY: dict[str, Family] = {}
"""Every measure family's record, by canonical name: the one source of facts about a measure.

A record (``Family``) holds the kernel and tie-aware kernel, parameters with
their ranges, cut-off rule, orientation (higher or lower is better), range,
aggregate, residual-bounds rule, aliases in other tools, trec_eval and
ir_measures names, formula and source. ``irpref measures`` prints them, and
the documentation's measure catalogue is generated from them. Preferences
have records of their own (``irpref measures`` lists them too).

Examples
--------
>>> import irpref
>>> ap = irpref.REGISTRY["AP"]
>>> ap.name, ap.orientation, irpref.REGISTRY["ASL"].orientation
('AP', 'higher', 'lower')
>>> "nDCG" in irpref.REGISTRY and len(irpref.REGISTRY) > 60
True
"""
ORIENTATIONS = ("higher", "lower", "none")
ORIENTATION_SIGNS = {"higher": 1, "lower": -1, "none": 0}
"""A record's orientation word -> its sign (+1 higher, -1 lower, 0 no better direction)."""


def orientation_sign(word: str) -> int:
    """+1, -1 or 0 for a record's orientation ``higher``, ``lower`` or ``none``
    (measures and preferences alike)."""
    try:
        return ORIENTATION_SIGNS[word]
    except KeyError:
        raise ValueError(f"orientation must be one of {', '.join(ORIENTATIONS)}, "
                         f"not {word!r}") from None


def register(name: str, **info: Any) -> Callable[[Kernel], Kernel]:
    """Decorator registering ``kernel`` as the measure family ``name``."""

    def wrap(kernel: Kernel) -> Kernel:
        if name in REGISTRY:
            raise ValueError(f"measure {name} registered twice")
        REGISTRY[name] = Family(name=name, kernel=kernel, **info)
        return kernel

    return wrap


def reads_compact(measure: Measure, ties: str) -> bool:
    """True when ``measure``'s kernel for ``ties`` reads the compact layout."""
    fam = measure.family
    return fam.compact_expected if ties == "expected" else fam.compact


def reads_n_docs(measure: Measure) -> bool:
    """True when ``measure`` may fall back on the number of distinct documents
    (``JudgedRankings.n_docs``) for the corpus size (its record says when)."""
    uses = measure.family.uses_n_docs
    return bool(uses is not None and uses(measure))


def attach_kernel(name: str, ties: str = "expected") -> Callable[[Kernel], Kernel]:
    """Decorator attaching a tie-policy specific kernel to a registered family."""

    def wrap(kernel: Kernel) -> Kernel:
        if ties != "expected":
            raise ValueError("only the 'expected' policy has separate kernels")
        REGISTRY[name].expected = kernel
        return kernel

    return wrap


@dataclass(frozen=True)
class Measure:
    """One measure: a family name, parameters and an optional cut-off.

    Made by `parse_measure` from any accepted spelling; ``str(measure)``
    is the canonical text (``AP(rel=2)@100``). Its family's record
    (``REGISTRY[measure.name]``) holds the kernel, orientation, formula and
    source.

    Parameters
    ----------
    name : str
        The family name, a key of `REGISTRY`.
    params : tuple of (str, value) pairs, default ()
        Parameters, e.g. ``(("p", 0.5),)``.
    cutoff : int, optional
        The cut-off k of ``@k``.

    Examples
    --------
    >>> import irpref
    >>> m = irpref.Measure("AP", cutoff=100)
    >>> str(m), m.orientation
    ('AP@100', 'higher')
    >>> irpref.parse_measure("map_cut.100") == m
    True
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={param_text(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    __repr__ = __str__

    @property
    def family(self) -> Family:
        return REGISTRY[self.name]

    @property
    def orientation(self) -> str:
        """``"higher"``, ``"lower"`` (is better) or ``"none"`` (a count or coverage)."""
        return self.family.orientation

    @property
    def sign(self) -> int:
        """+1 when higher is better, -1 when lower is, 0 when neither: multiply a
        difference by it and a positive value always means "better"."""
        return orientation_sign(self.family.orientation)

    @property
    def best(self) -> float | None:
        """The best value the record allows: the low end of its range when lower is
        better, the high end when higher is; None when it gives no finite one."""
        fam = self.family
        if fam.range is None or not self.sign:
            return None
        low, _, high, _ = range_bounds(fam.range)
        best = low if self.sign < 0 else high
        return best if np.isfinite(best) else None

    def get(self, key: str) -> Any:
        """The parameter ``key`` (its default when not given)."""
        for k, v in self.params:
            if k == key:
                return v
        params = self.family.params
        return (params[key] if key in params else MODIFIERS[key]).default

    @property
    def judged_only(self) -> bool:
        """True when it evaluates the condensed lists (``judged_only=true``)."""
        return bool(self.get("judged_only"))

    def compute(self, judged: JudgedRankings) -> np.ndarray:
        """(R, Q) per-query values under ``judged.ties``; with ``judged_only=true``
        on the condensed lists (:func:`irpref.judging.condense.condensed`, computed once
        per judged rankings however many measures ask)."""
        if judged.layout != "full" and not reads_compact(self, judged.ties):
            raise LayoutError(
                f"{self} (ties={judged.ties}) needs every retrieved item; these judged "
                "rankings are compact (only the items the qrels mention): judge with "
                "layout='full'"
            )
        target = condensed(judged) if self.judged_only else judged
        values = self.family.kernel_for(judged.ties)(target, self)
        return np.asarray(values, dtype=np.float64).reshape(judged.n_runs, judged.n_queries)

    def rel(self, judged: JudgedRankings) -> int:
        """The relevance level: the ``rel`` parameter if given, else the judging level."""
        for k, v in self.params:
            if k == "rel":
                return int(v)
        return judged.rel


def with_params(item: Any, **params: Any) -> Any:
    """``item`` (a :class:`Measure` or a preference) with ``params`` set, e.g.
    ``with_params(AP@10, judged_only=True)`` -> ``AP(judged_only=true)@10``;
    each value is checked by its :class:`Param`, defaults are dropped so the
    text stays canonical."""
    allowed = {**item.family.params, **MODIFIERS}
    merged = dict(item.params)
    for key, value in params.items():
        if key not in allowed:
            raise UsageError(f"{item}: unknown parameter {key!r}")
        merged[key] = allowed[key].convert(str(item), key, value)
    canonical = tuple(sorted((k, v) for k, v in merged.items() if v != allowed[k].default))
    return replace(item, params=canonical)


def param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value != int(value) else f"{value:.1f}"
    return str(value)


def split_names(text: str) -> list[str]:
    """The names in ``text``, separated by white space outside parentheses:
    ``"AP TSE(e=ap, impute=optimistic)"`` -> ``["AP", "TSE(e=ap, impute=optimistic)"]``.
    An unbalanced parenthesis keeps the rest of the text as one name (the
    parser then says what is wrong with it)."""
    out: list[str] = []
    depth, start = 0, None
    for i, ch in enumerate(text):
        if ch.isspace() and depth <= 0:
            if start is not None:
                out.append(text[start:i])
                start = None
            continue
        if start is None:
            start = i
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
    if start is not None:
        out.append(text[start:])
    return out


def parse_all(texts, parse_one: Callable[[Any], Any], value_type: type) -> list:
    """Parse several items with ``parse_one``, dropping repeats; a string may
    hold several separated by spaces (not inside parentheses, see
    :func:`split_names`). Shared by measures and preferences."""
    if isinstance(texts, (str, value_type)):
        texts = [texts]
    out: list = []
    for t in texts:
        for piece in [t] if isinstance(t, value_type) else split_names(t):
            item = parse_one(piece)
            if item not in out:
                out.append(item)
    return out


def parse_labelled(texts, parse_one: Callable[[Any], Any], value_type: type) -> list:
    """``[(label, item), ...]``: each item parsed, labelled with the exact string
    the user passed (for an object: the text of what it parses to, so an
    ir_measures ``P@10`` is labelled ``P(rel=1)@10``); repeated labels dropped.
    A string may hold several names separated by spaces outside parentheses."""
    if isinstance(texts, (str, value_type)) or not isinstance(texts, (list, tuple)):
        texts = list(texts) if _plain_iterable(texts, value_type) else [texts]
    out: list = []
    seen: set[str] = set()
    for t in texts:
        for piece in [t] if not isinstance(t, str) else split_names(t):
            item = parse_one(piece)
            label = piece if isinstance(piece, str) else str(item)
            if label not in seen:
                seen.add(label)
                out.append((label, item))
    return out


def _plain_iterable(texts: Any, value_type: type) -> bool:
    """True for a collection of names (a set, a generator, a pandas Index), false
    for one name or one measure object (an ir_measures measure is one)."""
    if isinstance(texts, (str, bytes, value_type)):
        return False
    if hasattr(texts, "NAME") and hasattr(texts, "params"):  # one ir_measures measure
        return False
    try:
        iter(texts)
    except TypeError:
        return False
    return True
