"""The classes of differences between trec_eval 10.0 and ``irpref trec_eval``.

Each :class:`Klass` names one reason the two outputs differ, which side is
right, the trec_eval source line that decides it, and a test that recognises
it. A class that blames trec_eval proves it: it *repairs* the case so that the
bug cannot fire without changing what the case means (comment lines removed,
a sentinel z-score line added, ...), runs trec_eval again (``rerun``) and asks
that the repaired trec_eval prints what irpref printed on the original. A
class that names an irpref refusal checks that irpref refused (exit 2) and why.
:func:`classify` returns the first class whose test holds, else ``unexplained``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from trec_eval_cases import JG_MEASURES, PREFS_MEASURES, QRELS_MEASURES

__all__ = ["CLASSES", "Klass", "Outcome", "classify"]


@dataclass
class Outcome:
    """One side's result: exit code (negative: killed by that signal), stdout, stderr."""

    code: int
    stdout: bytes
    stderr: bytes

    @property
    def status(self) -> str:
        return "ok" if self.code == 0 else ("crash" if self.code < 0 else "error")

    def same_as(self, other: Outcome) -> bool:
        """Same bytes on stdout, same status, stderr empty on both or on neither."""
        return (self.stdout == other.stdout and self.status == other.status
                and bool(self.stderr) == bool(other.stderr))


@dataclass(frozen=True)
class Klass:
    """A class of differences: name, which side is right, why, and its test."""

    name: str
    right: str
    why: str
    test: Callable


def _atol(text: str) -> int:
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


def _refused(pattern: str, trigger: Callable[[list[str]], bool]) -> Callable:
    """irpref refused (exit 2, ``pattern`` in its message) a case with ``trigger``."""
    def test(case, te, ir, rerun) -> bool:
        return (ir.code == 2 and re.search(pattern, ir.stderr.decode(errors="replace"))
                is not None and trigger(case.argv))
    return test


def _repaired(repair: Callable) -> Callable:
    """trec_eval on the repaired case prints what irpref printed on the original."""
    def test(case, te, ir, rerun) -> bool:
        fixed = repair(case, case.argv, case.files)
        return fixed is not None and rerun(*fixed).same_as(ir)
    return test


def _all_repairs(case, te, ir, rerun) -> bool:
    """Several trec_eval bugs at once: every repair that applies, one after the other
    (with -l 0 the queries judged only negatively removed from both sides), then the
    repaired outputs agree, or differ only as a class that reruns trec_eval explains."""
    argv, files, used = case.argv, case.files, 0
    for repair in REPAIRS:
        fixed = repair(case, argv, files)
        if fixed is not None:
            argv, files, used = *fixed, used + 1
    ref = ir
    if case.facts.get("any_all_negative") and case.facts["format"] in ("qrels", "qrels_jg") \
            and _padded_negative_queries(case, argv, files) is None:
        files, used = _without_queries(files, _negative_queries(case, files)), used + 1
        ref = rerun(argv, files, irpref=True)
    if not used:
        return False
    fixed = rerun(argv, files)
    if fixed.same_as(ref):
        return used > 1 or ref is not ir
    again = dataclasses.replace(case, argv=argv, files=files)
    return any(check(again, fixed, ref, rerun) for check in CHECKS)


def _without_comments(case, argv, files):
    if not case.facts.get("qrels_comments"):
        return None
    lines = files["judgments"].split(b"\n")
    return argv, {**files, "judgments": b"\n".join(
        ln for ln in lines if not ln.startswith(b"#"))}


def _padded_negative_queries(case, argv, files):
    """Each (query[, judge]) judged only negatively gets a grade-0 document no run has:
    with no relevant document (-l >= 1) no trec_eval measure reads it."""
    if case.facts["format"] not in ("qrels", "qrels_jg") or min(
            [_atol(v) for v in _values(argv, "-l")] or [1]) < 1 or any(
            re.search(r"[.,]0=", m) for m in _values(argv, "-m")):
        return None  # a grade-0 document would then be relevant, or have a gain
    keys: dict[tuple, bool] = {}
    for ln in files["judgments"].decode().splitlines():
        f = ln.split()
        if len(f) == 4 and not ln.startswith("#"):
            key = (f[0], f[1] if case.facts["format"] == "qrels_jg" else "0")
            keys[key] = keys.get(key, True) and int(f[3]) < 0
    pads = "".join(f"{q} {j} zzzz_padding 0\n" for (q, j), neg in keys.items() if neg)
    if not pads:
        return None
    return argv, {**files, "judgments": files["judgments"] + pads.encode()}


def _negative_queries(case, files) -> set[str]:
    """The queries judged only negatively (-R qrels, qrels_jg)."""
    keys: dict[str, bool] = {}
    for ln in files["judgments"].decode().splitlines():
        f = ln.split()
        if len(f) == 4 and not ln.startswith("#"):
            keys[f[0]] = keys.get(f[0], True) and int(f[3]) < 0
    return {q for q, neg in keys.items() if neg}


def _negative_queries_removed(case, te: Outcome, ir: Outcome, rerun, files=None) -> bool:
    """-l 0, where no padding keeps a query free of relevant documents: the queries judged
    only negatively are removed from the judgments, the run and the z-scores, and then
    both sides agree."""
    files = case.files if files is None else files
    if case.facts["format"] not in ("qrels", "qrels_jg") or not case.facts["any_all_negative"]:
        return False
    files = _without_queries(files, _negative_queries(case, files))
    return rerun(case.argv, files).same_as(rerun(case.argv, files, irpref=True))


def _without_queries(files: dict[str, bytes], gone: set[str]) -> dict[str, bytes]:
    return {name: b"".join(ln for ln in data.splitlines(keepends=True)
                           if not ln.split() or ln.split()[0].decode() not in gone)
            for name, data in files.items()}


def _zscore_sentinels(case, argv, files):
    """A query and, per query, a measure that sort after every other, so that the binary
    searches of convert_zscores.c never read past the end of their arrays."""
    if "zscores" not in files:
        return None
    queries = {ln.split()[0] for ln in files["zscores"].decode().splitlines() if ln}
    extra = "".join(f"{q} ~~~~ 0 1\n" for q in sorted(queries | {"~~~~"}))
    return argv, {**files, "zscores": files["zscores"] + extra.encode()}


def _jg_stats(case) -> dict[str, list[tuple[int, int, int, bool]]]:
    """Per query, each JG's (R, N, size of its lowest class, negative levels and one
    subgroup) as form_prefs_counts.c counts them in a JG with one subgroup."""
    fmt = case.facts["format"]
    groups: dict[tuple, list] = {}
    for ln in case.files["judgments"].decode().splitlines():
        f = ln.split()
        if f and not f[0].startswith("#"):
            q, g, s, lv = (f[0], f[1], f[2], f[4]) if fmt == "prefs" else (f[0], f[1], "", f[3])
            groups.setdefault((q, g), []).append((s, float(lv)))
    out: dict[str, list] = {}
    for (q, _), rows in groups.items():
        levels = [lv for _, lv in rows]
        one = len({s for s, _ in rows}) == 1
        r = sum(lv > 0 for lv in levels)
        out.setdefault(q, []).append((r, len(levels) - r, levels.count(min(levels)),
                                      one and min(levels) < 0))
    return out


def _prefs_overrun(case, te: Outcome, ir: Outcome, rerun) -> bool:
    """Only prefs_avgjg_Rnonrel lines differ, each of a query with a one-subgroup JG whose
    negative levels make N > R while its lowest class holds fewer than R documents."""
    if case.facts["format"] not in ("prefs", "qrels_prefs") or te.status != ir.status:
        return False
    stats = _jg_stats(case)
    a = te.stdout.decode(errors="replace").splitlines()
    b = ir.stdout.decode(errors="replace").splitlines()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        name, q = x.split("\t")[0].strip(), x.split("\t")[1]
        if not name.lstrip("Z").startswith("prefs_avgjg_Rnonrel"):
            return False
        jgs = [j for key, js in stats.items() if q in (key, "all") for j in js]
        if not any(neg and n > r > size for r, n, size, neg in jgs):
            return False
    return True


_NAMES = sorted({*QRELS_MEASURES, *PREFS_MEASURES, *JG_MEASURES}, key=len, reverse=True)


def _measure_of(line: str) -> str | None:
    """The trec_eval measure a printed line belongs to (``rbp_p=0.8`` -> rbp)."""
    printed = line.split("\t")[0].strip()
    for candidate in (printed, printed[1:] if printed.startswith("Z") else None):
        for name in _NAMES if candidate else ():
            if candidate == name or candidate.startswith(name + "_"):
                return name
    return None


def _isolated(names: tuple[str, ...], crash_ok: bool) -> Callable:
    """The lines of measures ``names`` differ (or trec_eval fails, ``crash_ok``): trec_eval
    asked for those measures alone prints irpref's lines of them, and without them
    irpref's other lines."""
    def split(out: bytes):
        lines = out.decode(errors="replace").splitlines()
        mine = [ln for ln in lines if _measure_of(ln) in names]
        return mine, [ln for ln in lines if ln not in mine]

    def test(case, te: Outcome, ir: Outcome, rerun) -> bool:
        marks = _values(case.argv, "-m")
        iso = [m for m in marks if m.split(".")[0] in names]
        if names == ("rbp",) and not iso:
            iso = ["rbp"]  # from a nickname (all_trec)
        if not iso or (te.status != ir.status and not crash_ok):
            return False
        flags = [a for i, a in enumerate(case.argv[:-2])
                 if a != "-m" and (i == 0 or case.argv[i - 1] != "-m")]
        alone = rerun([*flags, *[x for m in iso for x in ("-m", m)], *case.argv[-2:]],
                      case.files)
        rest = [m for m in marks if m not in iso]
        if rest:
            others = rerun([*flags, *[x for m in rest for x in ("-m", m)], *case.argv[-2:]],
                           case.files)
        else:
            others = Outcome(ir.code, b"", ir.stderr)
        ir_mine, ir_rest = split(ir.stdout)
        return (alone.status == others.status == ir.status
                and split(alone.stdout)[0] == ir_mine and split(others.stdout)[1] == ir_rest)
    return test


def _unsorted_11pt(case, te: Outcome, ir: Outcome, rerun) -> bool:
    """11pt_avg with recall points out of order: trec_eval given them sorted prints
    irpref's values (under the name as given)."""
    marks = [m for m in _values(case.argv, "-m") if m.startswith("11pt_avg.")]
    if not marks:
        return False
    text = marks[0].partition(".")[2]
    points = sorted(text.split(","), key=lambda x: float(re.match(r"[\d.]*", x).group(0)
                                                          .rstrip(".") or 0))
    if points == text.split(","):
        return False
    argv = [f"11pt_avg.{','.join(points)}" if a == marks[0] else a for a in case.argv]
    fixed = rerun(argv, case.files)
    name = f"11pt_avg_{','.join(points)}".encode()
    return Outcome(fixed.code, fixed.stdout.replace(name, f"11pt_avg_{text}".encode()),
                   fixed.stderr).same_as(ir)


CLASSES: list[Klass] = [
    Klass("irpref refuses -l below 0", "irpref (refusal, README)",
          "m_P.c:72 counts trec_eval's codes of unjudged documents (-1, -2) as relevant, "
          "form_res_rels.c:228 does not: P can exceed num_rel_ret",
          _refused(r"-l -?\d+: must be >= 0",
                   lambda a: any(_atol(v) < 0 for v in _values(a, "-l")))),
    Klass("irpref refuses -M below 0", "irpref (refusal, README)",
          "form_res_rels.c:116-117 sets num_ret to -M: negative counts, then a crash",
          _refused(r"-M -?\d+: must be >= 0",
                   lambda a: any(_atol(v) < 0 for v in _values(a, "-M")))),
    Klass("irpref refuses -N below 0", "irpref (refusal, README)",
          "a collection of fewer than no documents; only utility reads it (m_utility.c:73)",
          _refused(r"-N -?\d+: must be >= 0",
                   lambda a: any(_atol(v) < 0 for v in _values(a, "-N")))),
    Klass("irpref refuses -D above 0", "irpref (refusal, README)",
          "trec_eval.c:622 sets the debug level; levels > 0 print trec_eval's internal "
          "traces on stdout (m_ndcg.c:105, m_rbp.c:90, ...)",
          _refused(r"-D \d+: only level 0",
                   lambda a: any(_atol(v.partition(".")[0]) > 0 for v in _values(a, "-D")))),
    Klass("irpref refuses custom gains of measures other than ndcg", "irpref (refusal, README)",
          "not implemented for G, dcg, ndcg_rel, Rndcg, rbp (gain_init.c setup_gains)",
          _refused(r"custom gains for", lambda a: True)),
    Klass("irpref refuses ndcg gains less than 1 apart", "irpref (refusal, README)",
          "gain_init.c:89-93 compares gains truncated to integers: the ideal ranking "
          "(m_ndcg.c:85-100) is then undefined",
          _refused(r"differ by less than 1", lambda a: True)),
    Klass("irpref refuses a parameter outside the measure's range", "irpref (refusal, README)",
          "e.g. Rprec_mult.0 (m_Rprec_mult.c:66: a cut-off of 0 documents)",
          _refused(r"must be > 0|must be in", lambda a: True)),
    Klass("trec_eval reads a second # line as data", "irpref",
          "get_qrels.c:137-139 (and get_qrels_jg.c, get_qrels_prefs.c, get_prefs.c) skip "
          "one '#' line and parse the next: a '#' line after another becomes query '#' "
          "or a malformed line, one at the end of the file a crash",
          _repaired(_without_comments)),
    Klass("trec_eval mishandles a query judged only negatively", "irpref",
          "form_res_rels.c:150-155 allocates max_rel + 1 <= 0 levels: the first such "
          "query fails (\"Can't calculate measure\", exit 4), a later one reads the "
          "previous query's levels, all grades <= -2 make memset's size negative (crash)",
          lambda *a: _repaired(_padded_negative_queries)(*a) or _negative_queries_removed(*a)),
    Klass("trec_eval's rbp reads uninitialised min and max", "irpref",
          "m_rbp.c:44,71-76: min and max are never set before the loop, so the gains' "
          "scaling depends on what earlier measures left on the stack",
          _isolated(("rbp",), crash_ok=False)),
    Klass("trec_eval gives ndcg's custom gains to dcg and ideal_dcg", "irpref",
          "m_ndcg.c: dcg, ideal_dcg and ndcg share one static PARAMS (default_ndcg_gains); "
          "meas_init.c:223 writes ndcg's gains into it, so dcg and ideal_dcg use them, and "
          "meas_print_final.c:96-99 then frees their static names (crash)",
          _isolated(("dcg", "ideal_dcg"), crash_ok=True)),
    Klass("trec_eval's 11pt_avg assumes its recall points in order", "irpref",
          "m_11pt_avg.c:77-79 walks the cut-offs from the last parameter down (a p_double "
          "measure: its parameters are not sorted, meas_init.c)", _unsorted_11pt),
    Klass("trec_eval -Z reads past the end of its z-score arrays", "irpref",
          "convert_zscores.c:74-76 and 96-98 start the binary search at end = n: a query "
          "(or measure) sorting after every one of the file reads past the array (crash)",
          _repaired(_zscore_sentinels)),
    Klass("trec_eval's prefs_avgjg_Rnonrel reads past the lowest class", "irpref",
          "form_prefs_counts.c:485-491 counts a level < 0 as non-relevant (a JG with one "
          "subgroup); when that makes N > R while the lowest class holds fewer than R "
          "documents, m_prefs_avgjg_Rnonrel.c:119-121 takes R documents from it, reading "
          "past its end; irpref takes the class's own documents",
          _prefs_overrun),
    Klass("several trec_eval bugs at once", "irpref",
          "the repairs of the classes above that apply, together", _all_repairs),
]

REPAIRS = (_without_comments, _padded_negative_queries, _zscore_sentinels)
CHECKS = (_prefs_overrun, _isolated(("rbp",), crash_ok=False),
          _isolated(("dcg", "ideal_dcg"), crash_ok=True), _unsorted_11pt)


def classify(case, te: Outcome, ir: Outcome, rerun) -> str:
    """The name of the first class that explains the difference, or ``unexplained``."""
    for k in CLASSES:
        if k.test(case, te, ir, rerun):
            return k.name
    return "unexplained"
