"""trec_eval's two other judgment formats: preferences and judgment groups.

- ``prefs`` (``trec_eval -R prefs``): ``qid jg jsg docid rel_level``. Within
  one judgment subgroup (JSG) of a judgment group (JG) every document is
  preferred to every document of a lower ``rel_level`` (get_prefs.c); the
  JSGs of a JG add up to one consistent partial order (closed
  transitively), and different JGs (users) may disagree.
- ``qrels_prefs`` (``-R qrels_prefs``): ordinary qrels ``qid iter docid
  grade`` read as preferences, the ``iter`` field naming the JG, one JSG per
  JG (get_qrels_prefs.c).
- ``qrels_jg`` (``-R qrels_jg``): qrels whose second field names the judge
  (the judgment group) of each line: one set of relevance judgments per judge
  and query (get_qrels_jg.c).

Lines whose first non-blank character is ``#`` are comments and blank lines
are skipped (trec_eval 10.0 skips only ``#`` in the first column of a prefs
file; a ``#`` inside a field is data, as in ``prefs.comment.test``). What
trec_eval would count twice, reject only later or abort on is refused here,
naming the file and line: a document twice in one JSG (prefs) or in one JG
(qrels_prefs, qrels_jg), a level that is not a finite number (trec_eval's
``atof`` reads ``x`` as 0), a grade that is not an integer (qrels_jg).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from irpref.errors import InputError
from irpref.io.lines import read_bytes
from irpref.io.records import GRADE_MAX, PathLike, Qrels

__all__ = ["JUDGE_PREFIX", "JudgmentGroups", "Preferences", "read_judge", "read_prefs",
           "read_qrels_jg", "read_qrels_prefs"]


@dataclass(frozen=True)
class Preferences:
    """Preference judgments: one row per (query, JG, JSG, document) line.

    ``line`` is each row's line number in ``source`` (for errors found later,
    such as a JG whose JSGs contradict each other)."""

    query: np.ndarray  # str
    group: np.ndarray  # str: judgment group (user)
    subgroup: np.ndarray  # str: judgment subgroup within the group
    doc: np.ndarray  # str
    level: np.ndarray  # float64
    line: np.ndarray  # int64
    source: str = "<prefs>"

    def __len__(self) -> int:
        return len(self.level)


@dataclass(frozen=True)
class JudgmentGroups:
    """Relevance judgments of several judges: one row per (query, judge, document)."""

    query: np.ndarray  # str
    judge: np.ndarray  # str
    doc: np.ndarray  # str
    grade: np.ndarray  # int64
    line: np.ndarray  # int64
    source: str = "<qrels_jg>"

    def __len__(self) -> int:
        return len(self.grade)

    @property
    def judges(self) -> list[str]:
        """The judges, in trec_eval's (byte) order."""
        return sorted(set(self.judge.tolist()))

    def of_judge(self, judge: str) -> Qrels:
        """The qrels of one judge (the queries it judged)."""
        import pyarrow as pa

        keep = self.judge == judge
        return Qrels(pa.array(self.query[keep].tolist(), pa.string()),
                     pa.array(self.doc[keep].tolist(), pa.string()),
                     self.grade[keep].astype(np.int64), source=f"{self.source}[{judge}]")


def _rows(path: PathLike, fields: int, layout: str) -> tuple[list[list[str]], list[int]]:
    """The non-blank, non-comment lines of ``path`` split into exactly
    ``fields`` whitespace-separated fields, with their line numbers."""
    data = read_bytes(path)
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        tokens = raw.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        try:
            text = [t.decode("utf-8") for t in tokens]
        except UnicodeDecodeError:
            raise InputError(str(path), number, "not UTF-8 text",
                             raw.decode("utf-8", "replace")) from None
        if len(text) != fields:
            raise InputError(str(path), number,
                             f"expected {fields} fields '{layout}', got {len(text)}",
                             " ".join(text))
        rows.append(text)
        numbers.append(number)
    if not rows:
        raise InputError(str(path), None, "empty judgment file: no judgments")
    return rows, numbers


def _level(path: PathLike, number: int, text: str, row: list[str]) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(str(path), number, f"level {text!r} is not a finite number",
                         " ".join(row))
    return value


def _grade(path: PathLike, number: int, text: str, row: list[str]) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(str(path), number, f"grade {text!r} is not an integer",
                         " ".join(row)) from None
    if abs(value) > GRADE_MAX:
        raise InputError(str(path), number, f"grade {text} is out of range", " ".join(row))
    return value


def _refuse_repeats(path: PathLike, keys: list[tuple], numbers: list[int],
                    rows: list[list[str]], what: str) -> None:
    seen: dict[tuple, int] = {}
    for key, number, row in zip(keys, numbers, rows):
        first = seen.setdefault(key, number)
        if first != number:
            raise InputError(str(path), number, f"{what} (first at line {first})",
                             " ".join(row))


def _strings(values) -> np.ndarray:
    return np.array(values, dtype=object)


def read_prefs(path: PathLike) -> Preferences:
    """A trec_eval prefs file ``qid jg jsg docid rel_level`` (get_prefs.c)."""
    rows, numbers = _rows(path, 5, "qid jg jsg docid rel_level")
    levels = [_level(path, n, r[4], r) for r, n in zip(rows, numbers)]
    _refuse_repeats(path, [(r[0], r[1], r[2], r[3]) for r in rows], numbers, rows,
                    "document listed twice in one judgment subgroup")
    cols = list(zip(*rows))
    return Preferences(_strings(cols[0]), _strings(cols[1]), _strings(cols[2]),
                       _strings(cols[3]), np.array(levels, np.float64),
                       np.array(numbers, np.int64), source=str(path))


def read_qrels_prefs(path: PathLike) -> Preferences:
    """Qrels ``qid iter docid grade`` read as preferences (get_qrels_prefs.c):
    the ``iter`` field names the JG, every JG has one JSG."""
    rows, numbers = _rows(path, 4, "qid iter docid grade")
    levels = [_level(path, n, r[3], r) for r, n in zip(rows, numbers)]
    _refuse_repeats(path, [(r[0], r[1], r[2]) for r in rows], numbers, rows,
                    "document judged twice by one judgment group")
    cols = list(zip(*rows))
    return Preferences(_strings(cols[0]), _strings(cols[1]), _strings(["0"] * len(rows)),
                       _strings(cols[2]), np.array(levels, np.float64),
                       np.array(numbers, np.int64), source=str(path))


def read_qrels_jg(path: PathLike) -> JudgmentGroups:
    """Qrels with judgment groups ``qid judge docid grade`` (get_qrels_jg.c)."""
    rows, numbers = _rows(path, 4, "qid judge docid grade")
    grades = [_grade(path, n, r[3], r) for r, n in zip(rows, numbers)]
    _refuse_repeats(path, [(r[0], r[1], r[2]) for r in rows], numbers, rows,
                    "document judged twice by one judge")
    cols = list(zip(*rows))
    return JudgmentGroups(_strings(cols[0]), _strings(cols[1]), _strings(cols[2]),
                          np.array(grades, np.int64), np.array(numbers, np.int64),
                          source=str(path))


JUDGE_PREFIX = "judge:"
"""``judge:NAME:FILE`` names the qrels of one judge of a qrels_jg file wherever
qrels are read (:data:`irpref.io.trec.QRELS_SOURCES`): ``irpref agree
judge:nist:j.txt judge:noisy:j.txt`` compares two judges of one file."""


def read_judge(spec: str) -> Qrels:
    """The qrels of judge NAME in the qrels_jg file FILE of ``judge:NAME:FILE``."""
    name, sep, path = spec[len(JUDGE_PREFIX):].partition(":")
    if not sep or not name or not path:
        raise InputError(spec, None, "expected judge:NAME:FILE (a judge of a qrels_jg file)")
    groups = read_qrels_jg(path)
    if name not in set(groups.judge.tolist()):
        raise InputError(path, None, f"no judge {name!r} (judges: "
                                     f"{', '.join(groups.judges[:5])})")
    return groups.of_judge(name)
