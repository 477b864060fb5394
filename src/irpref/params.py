"""The rules for the options every command shares, in one place.

Each check raises :class:`irpref.errors.UsageError` with one message form,
``--rel 0: must be >= 1``, so the Python API and every subcommand refuse the
same values with the same words. The CLI applies them while it parses the
command line, before any input is read or any output printed.

Relevance level (``--rel``, trec_eval ``-l``): grade >= rel is relevant. Grades
are ``0`` for judged non-relevant and negative for "in the pool, unjudged"
(trec_eval's ``form_res_rels.c`` counts a document as relevant only when its
grade is >= 0 and >= the level). A level <= 0 would make judged non-relevant
documents (grade 0) relevant, so irpref's own commands refuse it; only the
``irpref trec_eval`` drop-in accepts ``-l 0`` as trec_eval does.

Tie policy (``--ties``, :data:`TIES`): ``docid`` (trec_eval: score descending,
then docid descending), ``input`` (file order among equal scores),
``expected`` (mean over all orderings of tied items).

Queries a run lacks (``--missing``, :data:`MISSING`): a judged query for which
a run retrieved nothing is ``skip``-ped (default, as trec_eval without ``-c``:
the run's means are over the queries it has) or scored as an empty ranking,
``zero`` for most measures (trec_eval ``-c``: means over every judged query).
Either way the evaluation warns, naming the run and the queries it lacks.

Each ``check_*`` takes the value and the name to print: the command-line flag
(``--rel``) or the Python keyword (``rel``); the CLI applies them while it
parses (``irpref.cli.common.checked``).

The judging settings travel as one frozen value, :class:`Settings` (as
trec_eval passes its ``EPI`` struct to every measure): built once at the
edge (the CLI's arguments, or an entry point's keywords), checked once here,
carried by :class:`~irpref.judging.judged.JudgedRankings` and read from there.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from irpref.errors import UsageError

__all__ = [
    "DEFAULT_MISSING",
    "ROLES",
    "MISSING",
    "TIES",
    "Settings",
    "check_alpha",
    "check_corpus_size",
    "check_choice",
    "check_columns",
    "check_depth",
    "check_missing",
    "check_nonnegative_int",
    "check_positive_int",
    "check_probability",
    "check_rel",
    "check_seed",
    "check_teleport",
    "check_ordering_ties",
    "check_ties",
]

TIES = ("docid", "input", "expected")
"""Tie policies: ``docid`` (trec_eval: score desc, then docid desc), ``input``
(file order among equal scores), ``expected`` (mean over all orderings of
tied items)."""

ORDERING_TIES = ("docid", "input")
"""The tie policies that give each ranking one ordering (not ``expected``)."""

MISSING = ("skip", "zero")
"""What a judged query a run lacks counts: skipped (trec_eval) or an empty ranking (``-c``)."""

DEFAULT_MISSING = "skip"
"""The default of ``missing`` everywhere (CLI and Python): trec_eval's, without ``-c``."""


def _who(flag: str, value) -> str:
    """``--rel 0`` for a command-line flag, ``rel=0`` for a Python keyword."""
    return f"{flag} {value}" if flag.startswith("-") else f"{flag}={value}"


def _int(flag: str, value) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    try:
        return int(str(value).strip(), 10)
    except ValueError:
        raise UsageError(f"{_who(flag, value)}: must be an integer") from None


def _float(flag: str, value) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{_who(flag, value)}: must be a number") from None
    if math.isnan(out):
        raise UsageError(f"{_who(flag, value)}: must be a number")
    return out


def check_rel(value, flag: str = "--rel", floor: int = 1) -> int:
    """Relevance level: an integer >= 1 (grade 0 is judged non-relevant); ``floor=0``
    for trec_eval's ``-l 0`` (the drop-in only)."""
    rel = _int(flag, value)
    if rel < floor:
        raise UsageError(f"{_who(flag, value)}: must be >= {floor} (grade 0 is judged "
                         "non-relevant, negative grades are unjudged)")
    return rel


def check_positive_int(value, flag: str) -> int:
    out = _int(flag, value)
    if out < 1:
        raise UsageError(f"{_who(flag, value)}: must be >= 1")
    return out


def check_nonnegative_int(value, flag: str) -> int:
    out = _int(flag, value)
    if out < 0:
        raise UsageError(f"{_who(flag, value)}: must be >= 0")
    return out


def check_depth(value, flag: str = "--depth") -> int | None:
    return None if value is None else check_positive_int(value, flag)


def check_corpus_size(value, flag: str = "--corpus-size") -> int | None:
    return None if value is None else check_positive_int(value, flag)


def check_seed(value, flag: str = "--seed") -> int | None:
    return None if value is None else check_nonnegative_int(value, flag)


def check_probability(value, flag: str, *, low_open: bool = True, high_open: bool = True) -> float:
    """A number in (0, 1) (bounds included when ``*_open`` is False)."""
    out = _float(flag, value)
    lo_ok = out > 0 if low_open else out >= 0
    hi_ok = out < 1 if high_open else out <= 1
    if not (lo_ok and hi_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise UsageError(f"{_who(flag, value)}: must be in {interval}")
    return out


def check_alpha(value, flag: str = "--alpha") -> float:
    return check_probability(value, flag)


def check_teleport(value, flag: str = "--teleport") -> float:
    """MC4 random-jump probability in [0, 1)."""
    return check_probability(value, flag, low_open=False)


def check_choice(value, flag: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (exact text)."""
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{_who(flag, value)}: must be one of {', '.join(choices)}")
    return value


def check_ties(value, flag: str = "--ties") -> str:
    """A tie policy of :data:`TIES`."""
    return check_choice(value, flag, TIES)


def check_ordering_ties(value, flag: str = "--ties") -> str:
    """A tie policy that yields one ordering (:data:`ORDERING_TIES`): what
    preferences and the commands comparing orderings accept."""
    return check_choice(value, flag, ORDERING_TIES)


def check_missing(value, flag: str = "--missing") -> str:
    """A rule for queries a run lacks, of :data:`MISSING`."""
    return check_choice(value, flag, MISSING)


@dataclass(frozen=True)
class Settings:
    """The judging settings: one frozen value, checked once, that every entry point takes.

    Every entry point over judged inputs (`evaluate`, `compare`,
    `significance`, `agree`, `design`, `judge`,
    `judge_inputs`, `search_lengths`, the report builder) takes
    these settings by the same names, as keywords or as one value
    (``settings=``); a keyword that differs from a value given beside it is
    refused. Judged rankings carry the settings they were judged with.
    ``settings.replace(missing="zero")`` is a changed copy, checked again, and
    ``settings.keywords()`` the settings as keywords.

    Parameters
    ----------
    rel : int, default 1
        Relevance level: grade >= rel is relevant (trec_eval ``-l``); >= 1.
    depth : int, optional
        Keep the top ``depth`` of every ranking after sorting (trec_eval ``-M``);
        None: all.
    ties : {"docid", "input", "expected"}, default "docid"
        Tie policy: score then docid descending (trec_eval), file order among
        equal scores, or the exact mean over every ordering of tied documents.
    missing : {"skip", "zero"}, default "skip"
        Judged queries a run lacks: skipped, or scored as an empty ranking
        (trec_eval ``-c``).
    corpus_size : int, optional
        Documents in the collection, for measures that impute unretrieved
        relevant documents at the bottom of the corpus; None: unknown.
    judged_only : bool, default False
        Evaluate the condensed lists (unjudged documents removed after the depth
        cut, trec_eval ``-J``): every measure and preference gets the modifier
        ``judged_only=true``.
    use_tag : bool, default False
        Name runs by their tag column instead of their file names.
    columns : dict or tuple of pairs, optional
        Which column of a table (CSV, TSV, JSONL, Parquet, DataFrame) holds each
        role: ``{"query": "user_id", "doc": "item_id", "grade": "rating"}``;
        kept as sorted ``(role, column)`` pairs (``column_map`` is the dict).

    Raises
    ------
    UsageError
        A value out of range (``rel=0``), an unknown tie policy, missing-query
        rule or column role (a ``ValueError``).

    Examples
    --------
    >>> import irpref
    >>> s = irpref.Settings(rel=2, missing="zero")
    >>> s.rel, s.missing, s.ties
    (2, 'zero', 'docid')
    >>> s.replace(rel=1).rel
    1
    >>> irpref.Settings(rel=0)
    Traceback (most recent call last):
    ...
    irpref.errors.UsageError: rel=0: must be >= 1 ...

    The same value serves every entry point:

    >>> qrels = {"q1": {"d1": 2, "d2": 1}}
    >>> runs = {"bm25": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> irpref.evaluate(qrels, runs, ["RR"], settings=s)["value"].tolist()
    [0.5]
    """

    rel: int = 1
    depth: int | None = None
    ties: str = "docid"
    missing: str = DEFAULT_MISSING
    corpus_size: int | None = None
    judged_only: bool = False
    use_tag: bool = False
    columns: tuple[tuple[str, str], ...] | None = None
    REL_FLOOR: ClassVar[int] = 1  # the lowest rel; 0 only in the trec_eval drop-in's subclass

    def __post_init__(self) -> None:
        checked = {
            "rel": check_rel(self.rel, "rel", self.REL_FLOOR),
            "depth": check_depth(self.depth, "depth"),
            "ties": check_ties(self.ties, "ties"),
            "missing": check_missing(self.missing, "missing"),
            "corpus_size": check_corpus_size(self.corpus_size, "corpus_size"),
            "judged_only": check_flag(self.judged_only, "judged_only"),
            "use_tag": check_flag(self.use_tag, "use_tag"),
            "columns": _column_pairs(self.columns),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes) -> Settings:
        """A copy with ``changes`` (checked like the original)."""
        unknown = set(changes) - set(SETTING_NAMES)
        if unknown:
            raise UsageError(f"unknown setting {', '.join(sorted(unknown))}: settings are "
                             f"{', '.join(SETTING_NAMES)}")
        return dataclasses.replace(self, **changes)

    @property
    def column_map(self) -> dict[str, str] | None:
        """``columns`` as a dict ``{role: column}`` (None: no mapping)."""
        return None if self.columns is None else dict(self.columns)

    def keywords(self) -> dict[str, object]:
        """The settings as keywords (``evaluate(..., **settings.keywords())``)."""
        return {name: getattr(self, name) for name in SETTING_NAMES}

    @classmethod
    def resolve(cls, settings: Settings | None = None, judged: Settings | None = None,
                **keywords) -> Settings:
        """The settings of an entry point called with ``settings=`` and/or keywords,
        on rankings judged with ``judged`` (their settings) if any.

        - ``settings`` given: it is the value; a keyword that differs from its
          default and from ``settings`` is refused (a value is never silently
          ignored).
        - else the keywords (those left at their default take ``judged``'s
          judging fields, when rankings were judged already).
        - rankings already judged: the judging fields (:data:`JUDGING`: rel,
          depth, ties, corpus_size, use_tag) must be theirs; ``missing`` and
          ``judged_only`` are the evaluation's own (their keywords, never the
          values the rankings were judged with)."""
        unknown = set(keywords) - set(SETTING_NAMES)
        if unknown:
            raise TypeError(f"unknown setting {', '.join(sorted(unknown))}")
        given = {k: v for k, v in keywords.items() if v != DEFAULTS[k]}
        normal = cls(**given)  # checked, in their stored form (a column mapping as pairs)
        given = {k: getattr(normal, k) for k in given}
        if settings is not None:
            if not isinstance(settings, Settings):
                raise UsageError(f"settings must be an irpref Settings value, not "
                                 f"{type(settings).__name__}")
            clash = {k: v for k, v in given.items() if v != getattr(settings, k)}
            if clash:
                said = ", ".join(f"{k}={v!r} (settings.{k}={getattr(settings, k)!r})"
                                 for k, v in clash.items())
                raise UsageError(f"{said}: give the value once, in settings= or as a keyword")
            chosen = settings
        elif judged is not None:  # the rankings' judging fields, the evaluation's own others
            chosen = cls(**{k: getattr(judged, k) for k in JUDGING}).replace(**given)
        else:
            chosen = cls(**given)
        if judged is not None:
            differ = [k for k in JUDGING if getattr(chosen, k) != getattr(judged, k)]
            if differ:
                was = ", ".join(f"{k}={getattr(judged, k)!r}" for k in differ)
                asked = ", ".join(f"{k}={getattr(chosen, k)!r}" for k in differ)
                raise UsageError(f"the rankings were judged with {was}, asked {asked}: "
                                 "judge them again with these settings")
        return chosen


SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Settings))
"""The names every public entry point takes its judging settings by."""

DEFAULTS: dict[str, object] = {f.name: f.default for f in dataclasses.fields(Settings)}
"""Each setting's default (trec_eval's behaviour where it has one)."""

JUDGING: tuple[str, ...] = ("rel", "depth", "ties", "corpus_size", "use_tag", "columns")
"""The settings fixed when rankings are judged (the others, ``missing`` and
``judged_only``, are chosen by each evaluation of them)."""


ROLES = ("query", "doc", "score", "grade", "run")
"""The roles of a table's columns a mapping may name (``irpref.io.columns``)."""


def check_columns(value, flag: str = "--columns") -> dict[str, str] | None:
    """The mapping of ``value``: ``ROLE=NAME[,ROLE=NAME...]`` text or a mapping
    (None: no mapping). A :class:`~irpref.errors.UsageError` names an unknown
    role, a role given twice, an empty column name or two roles on one column."""
    if value is None:
        return None
    if isinstance(value, str):
        pairs = []
        for part in value.split(","):
            role, sep, name = part.partition("=")
            if not sep:
                raise UsageError(f"{flag} {value}: expected ROLE=COLUMN pairs separated by "
                                 f"commas (roles: {', '.join(ROLES)}), got {part!r}")
            pairs.append((role.strip(), name.strip()))
    elif isinstance(value, Mapping):
        pairs = [(str(k), v) for k, v in value.items()]
    else:
        raise UsageError(f"{flag}: expected ROLE=COLUMN pairs or a mapping, not "
                         f"{type(value).__name__}")
    out: dict[str, str] = {}
    for role, name in pairs:
        if role not in ROLES:
            raise UsageError(f"{flag}: unknown role {role!r}; the roles are {', '.join(ROLES)}")
        if role in out:
            raise UsageError(f"{flag}: role {role!r} given twice")
        if not isinstance(name, str) or not name:
            raise UsageError(f"{flag}: role {role!r} needs a column name")
        out[role] = name
    names = list(out.values())
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"{flag}: column {twice[0]!r} given to two roles")
    return out


def _column_pairs(value) -> tuple[tuple[str, str], ...] | None:
    """A column mapping (text, mapping or pairs) as sorted ``(role, column)`` pairs."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and all(
            isinstance(p, (tuple, list)) and len(p) == 2 for p in value):
        value = {str(role): column for role, column in value}
    mapping = check_columns(value, "columns")
    return tuple(sorted(mapping.items())) if mapping else None


def check_flag(value, flag: str) -> bool:
    """A yes/no setting: ``True``/``False`` (NumPy booleans too), nothing else."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise UsageError(f"{_who(flag, value)}: must be True or False")


DEFAULT_SETTINGS = Settings()
"""Every setting at its default (the default of an internal ``settings`` parameter)."""
