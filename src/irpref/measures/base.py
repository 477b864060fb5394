"""Measures as values: ``Measure`` objects, their text form, and the registry.

Canonical text form (one grammar, parsed, never ``eval``-ed)::

    NAME [ "(" key=value {"," key=value} ")" ] [ "@" cutoff ]

e.g. ``AP``, ``nDCG@10``, ``RBP(p=0.8)``, ``AP(rel=2)@100``. Parameters are
printed sorted by key, defaults omitted, so equal measures print equally.

Each measure family registers a :class:`Family`: its kernel (judged rankings
-> an (R, Q) array of per-query values), formula, source and parameters.
Kernels for the ``expected`` tie policy are attached separately
(:func:`attach_kernel`), so a family states exactly which policies it
supports.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irpref.judged import JudgedRankings

__all__ = [
    "Family",
    "Measure",
    "Param",
    "REGISTRY",
    "attach_kernel",
    "parse_measure",
    "parse_measures",
    "register",
]

Kernel = Callable[[JudgedRankings, "Measure"], np.ndarray]


@dataclass(frozen=True)
class Param:
    """A typed measure parameter."""

    type: type
    default: Any = None
    doc: str = ""
    choices: tuple[Any, ...] | None = None

    def convert(self, family: str, key: str, text: Any) -> Any:
        try:
            value = self.type(text) if not isinstance(text, self.type) else text
        except (TypeError, ValueError):
            raise ValueError(
                f"{family}: parameter {key}={text!r} is not a {self.type.__name__}"
            ) from None
        if self.choices is not None and value not in self.choices:
            raise ValueError(
                f"{family}: parameter {key}={text!r} must be one of "
                f"{', '.join(map(str, self.choices))}"
            )
        return value


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
    description: str = ""

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


def register(name: str, **info: Any) -> Callable[[Kernel], Kernel]:
    """Decorator registering ``kernel`` as the measure family ``name``."""

    def wrap(kernel: Kernel) -> Kernel:
        if name in REGISTRY:
            raise ValueError(f"measure {name} registered twice")
        REGISTRY[name] = Family(name=name, kernel=kernel, **info)
        return kernel

    return wrap


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
    """One measure: a family name, parameters and an optional cut-off."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    __repr__ = __str__

    @property
    def family(self) -> Family:
        return REGISTRY[self.name]

    def get(self, key: str) -> Any:
        """The parameter ``key`` (its default when not given)."""
        for k, v in self.params:
            if k == key:
                return v
        return self.family.params[key].default

    def compute(self, judged: JudgedRankings) -> np.ndarray:
        """(R, Q) per-query values under ``judged.ties``."""
        values = self.family.kernel_for(judged.ties)(judged, self)
        return np.asarray(values, dtype=np.float64).reshape(judged.n_runs, judged.n_queries)

    def rel(self, judged: JudgedRankings) -> int:
        """The relevance level: the ``rel`` parameter if given, else the judging level."""
        for k, v in self.params:
            if k == "rel":
                return int(v)
        return judged.rel


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value) if value != int(value) else f"{value:.1f}"
    return str(value)


_GRAMMAR = re.compile(
    r"""^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*)\s*
        (?:\((?P<params>[^()]*)\))?\s*
        (?:@\s*(?P<cutoff>\d+))?\s*$""",
    re.VERBOSE,
)
_TREC_NAME = re.compile(r"^(?P<base>[A-Za-z0-9_\-]+?)(?:[._](?P<args>\d+(?:[.,]\d+)*))?$")

# trec_eval name -> canonical text; ``{k}`` is the cut-off
TREC_EVAL_NAMES: dict[str, str] = {
    "map": "AP",
    "map_cut": "AP@{k}",
    "ndcg": "nDCG",
    "ndcg_cut": "nDCG@{k}",
    "P": "P@{k}",
    "recall": "R@{k}",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "success": "Success@{k}",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "rbp": "gRBP",
    # the rest of trec_eval (irpref.measures.trec_extra)
    "gm_map": "GMAP",
    "gm_bpref": "GMBpref",
    "infAP": "infAP",
    "iprec_at_recall": "IPrec(recall={x})",
    "Rprec_mult": "RprecMult(mult={x})",
    "utility": "Utility",
    "11pt_avg": "IPrecAvg",
    "binG": "BinG",
    "G": "G",
    "dcg": "DCG",
    "ideal_dcg": "IDCG",
    "ndcg_rel": "nDCGRel",
    "Rndcg": "RnDCG",
    "relative_P": "RelP@{k}",
    "set_P": "SetP",
    "set_relative_P": "SetRelP",
    "set_recall": "SetR",
    "set_map": "SetAP",
    "set_F": "SetF",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    "num_q": "NumQ",
    "yaap": "YAAP",
    "rbp_resid": "RBPResid",
    "unj": "Unj@{k}",
}


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``text`` (canonical or trec_eval form, e.g. ``ndcg_cut.10``)."""
    if isinstance(text, Measure):
        return text
    m = _GRAMMAR.match(text)
    name = m.group("name") if m else None
    if m is None or (name not in REGISTRY and m.group("params") is None):
        translated = _from_trec_eval(text)
        if translated is not None:
            return translated
    if m is None:
        raise ValueError(f"cannot parse measure {text!r}: expected NAME(key=value,...)@cutoff")
    if name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown measure {name!r} in {text!r}; known measures: {known}")
    family = REGISTRY[name]
    params = parse_params(text, name, m.group("params"), family.params)
    cutoff = int(m.group("cutoff")) if m.group("cutoff") else None
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"{text!r}: the cut-off must be a positive integer")
    if family.cutoff == "none" and cutoff is not None:
        raise ValueError(f"{name} takes no cut-off")
    if family.cutoff == "required" and cutoff is None:
        raise ValueError(f"{name} needs a cut-off, e.g. {name}@10")
    canonical = tuple(
        sorted((k, v) for k, v in params.items() if v != family.params[k].default)
    )
    return Measure(name, canonical, cutoff)


def parse_params(
    text: str, name: str, params_text: str | None, allowed: dict[str, Param]
) -> dict[str, Any]:
    """``key=value,...`` -> typed values, checked against ``allowed``."""
    params: dict[str, Any] = {}
    if params_text and params_text.strip():
        for item in params_text.split(","):
            if "=" not in item:
                raise ValueError(f"{text!r}: parameter {item.strip()!r} is not key=value")
            key, value = (s.strip() for s in item.split("=", 1))
            if key not in allowed:
                names = ", ".join(allowed) or "none"
                raise ValueError(f"{name}: unknown parameter {key!r} (allowed: {names})")
            params[key] = allowed[key].convert(name, key, value)
    return params


def _from_trec_eval(text: str) -> Measure | None:
    m = _TREC_NAME.match(text.strip())
    if not m or m.group("base") not in TREC_EVAL_NAMES:
        return None
    pattern = TREC_EVAL_NAMES[m.group("base")]
    args = m.group("args")
    if "{x}" in pattern:  # a real-valued parameter, e.g. iprec_at_recall_0.20
        if args is None or "," in args:
            return None
        return parse_measure(pattern.format(x=float(args)))
    if "{k}" in pattern:
        if args is None or "," in args or "." in args:
            return None
        return parse_measure(pattern.format(k=args))
    if args is not None:
        return None
    return parse_measure(pattern)


def parse_all(texts, parse_one: Callable[[Any], Any], value_type: type) -> list:
    """Parse several items with ``parse_one``, dropping repeats; a string may
    hold several separated by spaces. Shared by measures and preferences."""
    if isinstance(texts, (str, value_type)):
        texts = [texts]
    out: list = []
    for t in texts:
        for piece in [t] if isinstance(t, value_type) else t.split():
            item = parse_one(piece)
            if item not in out:
                out.append(item)
    return out


def parse_measures(texts) -> list[Measure]:
    """Parse several measures; a string may hold several separated by spaces."""
    return parse_all(texts, parse_measure, Measure)
