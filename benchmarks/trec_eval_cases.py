"""Seeded random trec_eval cases for the differential test (``trec_eval_differential.py``).

:func:`make_case` turns a seed into one small collection and one command line:
judgments in one of trec_eval's four formats (``-R qrels``, ``prefs``,
``qrels_prefs``, ``qrels_jg``), a run, maybe a ``-Z`` file, and flags drawn
from every family (``-q -c -n -J -l -M -N -Z -D -R``) with the values trec_eval
reads through ``atol`` (``-l 0``, ``-M 0``, ``-N -5``, ``-D 0.QID``, ...) and
measures with their parameters (cut-offs, ``rbp_resid.p=``, ``utility.``,
``relstring.``, custom gains ``ndcg.1=3,...``). The collections have what
breaks evaluators: queries missing from either side, tied scores, negative
grades (a query judged only negatively, first or not), wide grades (relstring's
``>``), several comment lines, query ids whose byte order is not their numeric
order. Same seed, same case.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Case", "FAMILIES", "make_case"]

FAMILIES = ("-q", "-c", "-n", "-J", "-l", "-M", "-N", "-Z", "-D", "-R qrels", "-R prefs",
            "-R qrels_prefs", "-R qrels_jg", "params", "gains", "missing", "ties",
            "negative grades")
"""The flag families a case can belong to (a case belongs to several)."""

# trec_eval 10.0's measures (measures.c) that read -R qrels, and its nicknames
QRELS_MEASURES = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid",
    "unj", "runid")
PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "num_q", "runid")
JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "num_q", "runid")
NICKNAMES = {"qrels": ("official", "all_trec", "set"), "prefs": ("all_prefs", "prefs"),
             "qrels_prefs": ("all_prefs", "prefs"), "qrels_jg": ("qrels_jg",)}


@dataclass
class Case:
    """One differential case: its files (name -> bytes) and trec_eval's arguments."""

    seed: int
    files: dict[str, bytes]
    argv: list[str]
    families: set[str] = field(default_factory=set)
    facts: dict = field(default_factory=dict)

    def command(self) -> str:
        return "trec_eval " + " ".join(_quote(a) for a in self.argv)


def _quote(text: str) -> str:
    return text if text and all(c.isalnum() or c in "._-=,/#" for c in text) else repr(text)


def _query_ids(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct query ids of one style (numeric ids sort as bytes: 10 < 9)."""
    numbers = rng.choice(np.arange(1, 40), size=n, replace=False)
    style = rng.integers(4)
    if style == 0:
        return [str(k) for k in numbers]
    if style == 1:
        return [f"{k:03d}" for k in numbers]
    if style == 2:
        return [f"q{k}" for k in numbers]
    return [rng.choice(["T", "t", "Q-"]) + str(k) for k in numbers]


def _doc_ids(rng: np.random.Generator, n: int, style: int) -> list[str]:
    numbers = rng.choice(np.arange(1, 400), size=n, replace=False)
    if style == 0:
        return [f"d{k}" for k in numbers]
    if style == 1:
        return [f"DOC-{k:04d}" for k in numbers]
    return [str(k) for k in numbers]


def _grades(rng: np.random.Generator, n: int, scheme: str, negative: bool) -> np.ndarray:
    if scheme == "binary":
        g = rng.integers(0, 2, n)
    elif scheme == "graded":
        g = rng.choice([0, 0, 1, 1, 2, 3], n)
    else:  # wide: relstring prints '>' above 9
        g = rng.choice([0, 1, 2, 5, 9, 10, 12], n)
    if negative:
        g = np.where(rng.random(n) < 0.3, rng.choice([-1, -2], n), g)
    return g


@dataclass
class _Judged:
    """The generated judgments of one case: per query, docs and grades."""

    queries: list[str]
    docs: dict[str, list[str]]
    grades: dict[str, np.ndarray]


def _judgments(rng: np.random.Generator, facts: dict) -> _Judged:
    n = int(rng.integers(1, 7))
    queries = _query_ids(rng, n)
    scheme = str(rng.choice(["binary", "graded", "wide"], p=[0.35, 0.5, 0.15]))
    negative = rng.random() < 0.3
    style = int(rng.integers(3))
    docs, grades = {}, {}
    for q in queries:
        k = int(rng.integers(1, 13))
        docs[q] = _doc_ids(rng, k, style)
        grades[q] = _grades(rng, k, scheme, negative)
        if rng.random() < 0.05:  # a query judged only negatively (pooled, unjudged)
            grades[q] = -rng.integers(1, 3, k)
            negative = True
    facts.update(scheme=scheme, negative=negative, doc_style=style)
    first = min(queries)  # trec_eval sorts the qrels' queries by strcmp
    facts["first_all_negative"] = bool((grades[first] < 0).all())
    facts["any_all_negative"] = any(bool((g < 0).all()) for g in grades.values())
    return _Judged(queries, docs, grades)


def _qrels_text(rng: np.random.Generator, j: _Judged, facts: dict, iters=None) -> bytes:
    lines = []
    for q in j.queries:
        for i, (d, g) in enumerate(zip(j.docs[q], j.grades[q])):
            it = "0" if iters is None else iters(q, i)
            lines.append(f"{q} {it} {d} {g}")
    order = rng.permutation(len(lines)) if rng.random() < 0.3 else np.arange(len(lines))
    lines = [lines[i] for i in order]
    comments = int(rng.choice([0, 0, 0, 0, 1, 2]))
    for _ in range(comments):  # trec_eval skips one '#' line, a second one is data
        lines.insert(int(rng.integers(len(lines) + 1)),
                     str(rng.choice(["# judged by hand", "#note"])))
    facts["qrels_comments"] = comments
    sep = "\t" if rng.random() < 0.2 else " "
    return ("\n".join(ln.replace(" ", sep) for ln in lines) + "\n").encode()


def _prefs_text(rng: np.random.Generator, j: _Judged, facts: dict) -> bytes:
    """``qid jg jsg docid level``: per JG one value per document (consistent across its
    subgroups, 0 is 0 everywhere); a subgroup is a subset, its levels a monotone copy."""
    lines = []
    negative = False
    for q in j.queries:
        for g in range(int(rng.integers(1, 4))):
            docs = j.docs[q]
            value = rng.choice([0.0, 0.0, 1.0, 2.0, 2.5, 3.0, -1.0 if rng.random() < 0.15
                                else 1.0], len(docs))
            negative |= bool((value < 0).any())
            for s in range(int(rng.integers(1, 3))):
                keep = rng.random(len(docs)) < 0.7
                scale = 1.0 if s == 0 else 2.0
                for d, v in zip(np.array(docs)[keep], value[keep]):
                    lines.append(f"{q} jg{g} s{s} {d} {v * scale:g}")
    facts["prefs_negative"] = negative
    return ("\n".join(lines) + "\n").encode()


def _run_text(rng: np.random.Generator, j: _Judged, facts: dict) -> bytes:
    kept = [q for q in j.queries if rng.random() < 0.85] or [j.queries[0]]
    facts["run_lacks"] = [q for q in j.queries if q not in kept]
    extra = [f"x{k}" for k in range(int(rng.choice([0, 0, 0, 1, 2])))]
    facts["run_extra"] = extra
    ties = str(rng.choice(["int", "float", "same"], p=[0.5, 0.35, 0.15]))
    facts["ties"] = ties
    tag = str(rng.choice(["run1", "bm25", "R-x"]))
    lines = []
    for q in kept + extra:
        pool = list(j.docs.get(q, [])) + [f"u{k}" for k in range(int(rng.integers(0, 8)))]
        k = int(rng.integers(1, len(pool) + 1)) if pool else 0
        docs = list(rng.choice(pool, size=k, replace=False)) if k else [f"u{q}"]
        if ties == "int":
            scores = [f"{s}" for s in rng.integers(0, 4, len(docs))]
        elif ties == "float":
            scores = [f"{s:.4f}" for s in rng.normal(0, 2, len(docs))]
        else:
            scores = ["1.5"] * len(docs)
        for rank, (d, s) in enumerate(zip(docs, scores), 1):
            t = tag if rng.random() > 0.02 else "other"
            lines.append(f"{q} Q0 {d} {rank} {s} {t}")
    if rng.random() < 0.5:
        lines = [lines[i] for i in rng.permutation(len(lines))]
    return ("\n".join(lines) + "\n").encode()


def _zscores_text(rng: np.random.Generator, j: _Judged, names: list[str]) -> bytes:
    lines = []
    queries = [q for q in j.queries if rng.random() < 0.8]
    for q in queries:
        for name in names:
            if rng.random() < 0.8:
                sd = float(rng.choice([0.0, 0.1, 0.25, 1.0]))
                lines.append(f"{q} {name} {rng.random():.4f} {sd}")
    return ("\n".join(lines) + "\n").encode() if lines else b"1 map 0.5 0.1\n"


def _cutoffs(rng: np.random.Generator, floats: bool = False) -> str:
    if floats:
        return ",".join(str(x) for x in sorted(set(rng.choice(
            [".1", ".25", ".5", "0.75", "1.0", "1.5", "0", ".333"], int(rng.integers(1, 4))))))
    return ",".join(sorted({str(k) for k in rng.choice([1, 2, 3, 5, 10, 15, 100],
                                                       int(rng.integers(1, 4)))}))


def _measure(rng: np.random.Generator, fmt: str, families: set[str]) -> str:
    """One ``-m`` argument for format ``fmt`` (sometimes one of another format)."""
    if rng.random() < 0.03:
        fmt = str(rng.choice(["qrels", "prefs", "qrels_jg"]))
    if rng.random() < 0.2:
        return str(rng.choice(NICKNAMES[fmt]))
    if fmt == "qrels_jg":
        name = str(rng.choice(JG_MEASURES))
        if name == "P_avgjg" and rng.random() < 0.5:
            families.add("params")
            return f"P_avgjg.{_cutoffs(rng)}"
        if name == "Rprec_mult_avgjg" and rng.random() < 0.5:
            families.add("params")
            return f"Rprec_mult_avgjg.{_cutoffs(rng, True)}"
        return name
    if fmt != "qrels":
        return str(rng.choice(PREFS_MEASURES))
    if rng.random() < 0.5:
        return str(rng.choice(QRELS_MEASURES))
    families.add("params")
    kind = int(rng.integers(12))
    if kind == 0:
        return str(rng.choice(["P", "recall", "ndcg_cut", "map_cut", "success", "relative_P",
                               "unj"])) + "." + _cutoffs(rng)
    if kind == 1:
        return str(rng.choice(["iprec_at_recall", "11pt_avg", "Rprec_mult"])) + "." + \
            _cutoffs(rng, True)
    if kind == 2:
        a, b, c, d = rng.choice([-2, -1, 0, 1, 2, 3], 4)
        return f"utility.{a},{b},{c},{d}"
    if kind == 3:
        return f"relstring.{rng.choice([1, 3, 5, 20])}"
    if kind == 4:
        return f"set_F.{rng.choice(['0.5', '1.0', '2', '0.25'])}"
    if kind in (5, 6):
        return f"{rng.choice(['rbp', 'rbp_resid'])}.p={rng.choice(['0.5', '0.8', '0.95', '0.9'])}"
    if kind in (7, 8):
        families.add("gains")
        levels = rng.choice([0, 1, 2, 3], int(rng.integers(1, 4)), replace=False)
        gains = [f"{lv}={rng.choice(['0', '2', '3', '5', '9', '4.5'])}" for lv in levels]
        return f"ndcg.{','.join(gains)}"
    if kind == 9:
        families.add("gains")
        return f"{rng.choice(['G', 'dcg', 'ndcg_rel', 'Rndcg'])}.1=2,2=5"
    if kind == 10:
        return str(rng.choice(["ndcg.p=2", "rbp.p=0.7", "infAP", "yaap", "num_nonrel_judged_ret"]))
    return f"relstring.{rng.choice([2, 10])}"


def _flags(rng: np.random.Generator, j: _Judged, families: set[str]) -> list[str]:
    argv = []
    for flag in ("-q", "-c", "-n", "-J"):
        if rng.random() < (0.5 if flag in ("-q", "-c") else 0.15):
            argv.append(flag)
            families.add(flag)
    if rng.random() < 0.3:
        families.add("-l")
        argv += ["-l", str(rng.choice(["0", "1", "2", "3", "-1", "2.7", "x"],
                                      p=[0.15, 0.15, 0.3, 0.15, 0.1, 0.1, 0.05]))]
    if rng.random() < 0.3:
        families.add("-M")
        argv += ["-M", str(rng.choice(["0", "1", "2", "3", "5", "10", "-1", "100"]))]
    if rng.random() < 0.15:
        families.add("-N")
        argv += ["-N", str(rng.choice(["0", "5", "50", "-5", "1000"]))]
    if rng.random() < 0.1:
        families.add("-D")
        q = str(rng.choice(j.queries))
        argv += ["-D", str(rng.choice(["0", f"0.{q}", f"0.{q}", f".{q}", "0.nosuch", "1"]))]
    return argv


def make_case(seed: int) -> Case:
    """The case of ``seed``: files ``judgments``, ``run`` (and ``zscores``) and argv."""
    rng = np.random.default_rng(seed)
    facts: dict = {}
    families: set[str] = set()
    j = _judgments(rng, facts)
    fmt = str(rng.choice(["qrels", "prefs", "qrels_prefs", "qrels_jg"], p=[0.64, 0.12, 0.12,
                                                                          0.12]))
    families.add(f"-R {fmt}")
    facts["format"] = fmt
    if fmt == "prefs":
        judgments = _prefs_text(rng, j, facts)
    elif fmt == "qrels_prefs":
        judgments = _qrels_text(rng, j, facts, lambda q, i: f"jg{i % 2}")
    elif fmt == "qrels_jg":
        judgments = _qrels_text(rng, j, facts, lambda q, i: f"judge{i % 3}")
    else:
        judgments = _qrels_text(rng, j, facts)
    files = {"judgments": judgments, "run": _run_text(rng, j, facts)}
    argv = _flags(rng, j, families)
    if fmt != "qrels" or rng.random() < 0.05:
        argv += ["-R", fmt]
    marks = [_measure(rng, fmt, families) for _ in range(int(rng.choice([0, 1, 1, 2, 3])))]
    for m in marks:
        argv += ["-m", m]
    if rng.random() < 0.08:
        families.add("-Z")
        names = [m.replace(".", "_") for m in marks] + ["map", "num_ret", "gm_map", "P_10",
                                                        "ndcg", "P_5"]
        files["zscores"] = _zscores_text(rng, j, list(dict.fromkeys(names)))
        argv += ["-Z", "zscores"]
    if facts["run_lacks"] or facts["run_extra"]:
        families.add("missing")
    if facts["ties"] != "float":
        families.add("ties")
    if facts["negative"] or facts.get("prefs_negative"):
        families.add("negative grades")
    facts["marks"] = marks
    return Case(seed, files, [*argv, "judgments", "run"], families, facts)
