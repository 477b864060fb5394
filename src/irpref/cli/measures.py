"""``irpref measures [NAME...] [--format table|tsv|json]``: measures and preferences.

One row per measure or preference family, read from its record: canonical
syntax, kind, orientation (higher or lower is better), range of values,
parameters with defaults and valid ranges, cut-off, the names other tools use
for it (aliases, with the tool, and where a name means something else there),
the trec_eval names it reproduces, its ir_measures counterpart, formula,
source and aggregate. NAME may be any accepted spelling (``map`` shows AP,
with a note that ``map`` is an alias).
"""

from __future__ import annotations

import argparse
import sys
import textwrap

import numpy as np

from irpref.errors import UsageError
from irpref.measures import REGISTRY, Family
from irpref.measures.base import MODIFIERS, Param
from irpref.measures.names import (
    closest,
    parse_measure_text,
    preference_name,
)
from irpref.preferences.registry import PREFERENCES, PrefFamily
from irpref.report.formats import TEXT_FORMATS, check_format

FORMATS = TEXT_FORMATS
COLUMNS = ("measure", "syntax", "params", "kind", "orientation", "range", "cutoff", "aliases",
           "trec_eval", "ir_measures", "aggregate", "tie_aware", "bounds", "formula", "source",
           "note")
ORIENTATION_TEXT = {"higher": "higher is better", "lower": "lower is better",
                    "none": "neither (a count or coverage)"}


def _syntax(fam: Family | PrefFamily) -> str:
    text = fam.name
    if fam.params:
        text += "(...)"
    cutoff = getattr(fam, "cutoff", "none")
    if cutoff == "required":
        text += "@k"
    elif cutoff == "optional":
        text += "[@k]"
    return text


def _aggregate(fam: Family) -> str:
    agg = fam.aggregate
    if agg is None:
        return "mean"
    if agg is np.sum:
        return "sum"
    return getattr(agg, "__name__", "custom").replace("_", " ")


def _params(params: dict[str, Param]) -> str:
    return "; ".join(
        f"{k}={'' if p.default is None else p.default} ({p.valid()}"
        f"{', required' if p.required else ''}): {p.doc}"
        for k, p in params.items()
    )


def _aliases(fam: Family | PrefFamily) -> str:
    """Every other spelling in the record: aliases with their tools (and what a
    spelling means there when it differs), trec_eval / pytrec_eval names."""
    parts = [f"{a.spelling} ({a.tools}{': ' + a.note if a.note else ''})"
             for a in fam.aliases if not a.refusal]
    spelled = {a.spelling for a in fam.aliases} | {fam.name}
    for t in getattr(fam, "trec", ()):
        if t.name not in spelled:
            if "{k}" in t.text or "{x}" in t.text:
                parts.append(f"{t.name}.N (trec_eval); {t.name}_N (pytrec_eval)")
            else:
                parts.append(f"{t.name} (trec_eval, pytrec_eval)")
    return "; ".join(parts)


def _refusals(fam: Family) -> str:
    return "; ".join(f"{a.spelling} ({a.tools}): {a.refusal}" for a in fam.aliases if a.refusal)


def _resolve(name: str) -> tuple[str, str, str]:
    """(``measure`` | ``preference``, family name, note) for any accepted spelling."""
    if name in REGISTRY:
        return "measure", name, ""
    if name in PREFERENCES:
        return "preference", name, ""
    pref = preference_name(name)
    if pref is not None:
        family = pref.split("(")[0]
        return "preference", family, "" if family == name else f"{name} is an alias of {pref}"
    try:
        m = parse_measure_text(name)
    except UsageError as exc:
        if "unknown measure" not in str(exc):
            raise
        hint = ", ".join(closest(name, list(REGISTRY) + list(PREFERENCES)))
        raise UsageError(
            f"unknown measure {name!r}; did you mean {hint}? (`irpref measures` lists them all)"
        ) from None
    # a note only when the family was reached through another spelling: Judged@10
    # and AP(rel=2) are canonical names, map@100 is an alias of AP@100
    note = "" if _head(name) == m.name else f"{name} is an alias of {m}"
    return "measure", m.name, note


def _head(text: str) -> str:
    """The family part of a measure text: ``Judged@10`` -> ``Judged``."""
    return text.strip().split("(")[0].split("@")[0].strip()


def bounds_text(fam) -> str:
    """The residual bounds the record declares (``evaluate --bounds``)."""
    if fam.bounds is None:
        return f"none: {fam.bounds_note}"
    kind = "exact" if fam.bounds_exact else "outer"
    return f"{kind}: {fam.bounds_note}" if fam.bounds_note else kind


def _modifier_row(key: str) -> dict[str, str]:
    """A modifier every measure and preference takes (MODIFIERS), listed once."""
    p = MODIFIERS[key]
    return {"measure": key, "syntax": f"NAME({key}=true)",
            "params": f"{key}={str(p.default).lower()} ({p.valid()})",
            "kind": "modifier (every measure and preference; CLI: --judged-only)",
            "orientation": "", "range": "", "cutoff": "", "aliases": "", "trec_eval": "",
            "ir_measures": "", "aggregate": "", "tie_aware": "", "bounds": "", "formula": p.doc,
            "source": "", "note": ""}


def rows(names: list[str] | None = None) -> list[dict[str, str]]:
    """Measures, preferences (each sorted by name, case-insensitively), then the
    modifiers every one of them takes, as plain rows."""
    if names:
        wanted = [("modifier", n, "") if n in MODIFIERS else _resolve(n) for n in names]
    else:
        wanted = [("measure", n, "") for n in sorted(REGISTRY, key=str.lower)]
        wanted += [("preference", n, "") for n in PREFERENCES]
        wanted += [("modifier", n, "") for n in MODIFIERS]
    out = []
    for what, name, note in wanted:
        if what == "modifier":
            out.append(_modifier_row(name))
            continue
        if what == "preference":
            pfam = PREFERENCES[name]
            out.append({
                "measure": name, "syntax": _syntax(pfam), "kind": f"preference ({pfam.kind})",
                "orientation": f"{pfam.orientation}: a positive value prefers the first ranking",
                "range": pfam.range,
                "params": _params(pfam.params), "cutoff": "none", "aliases": _aliases(pfam),
                "trec_eval": "", "ir_measures": "", "aggregate": "mean", "tie_aware": "no",
                "bounds": "", "formula": pfam.formula, "source": pfam.source, "note": note,
            })
            continue
        fam = REGISTRY[name]
        notes = "; ".join(filter(None, [note, fam.notes, _refusals(fam)]))
        out.append({
            "measure": fam.name,
            "syntax": _syntax(fam),
            "kind": f"measure ({fam.kind})",
            "orientation": ORIENTATION_TEXT[fam.orientation],
            "range": fam.range or "",
            "params": _params(fam.params),
            "cutoff": fam.cutoff,
            "aliases": _aliases(fam),
            "trec_eval": fam.trec_eval or ", ".join(t.name for t in fam.trec),
            "ir_measures": fam.ir_measures,
            "aggregate": _aggregate(fam),
            "tie_aware": "yes" if fam.expected is not None else "no",
            "bounds": bounds_text(fam),
            "formula": fam.formula,
            "source": fam.source,
            "note": notes,
        })
    return out


def write(table: list[dict[str, str]], fmt: str, out=None) -> None:
    out = out or sys.stdout
    check_format(fmt, FORMATS)
    if fmt == "json":  # the one JSON writer, columns in the TSV's order
        import pandas as pd

        from irpref.report.formats import write_json

        write_json(pd.DataFrame(table, columns=list(COLUMNS)), out)
    elif fmt == "tsv":
        out.write("\t".join(COLUMNS) + "\n")
        for row in table:
            out.write("\t".join(row[c].replace("\t", " ") for c in COLUMNS) + "\n")
    elif fmt == "table":
        width = max((len(r["syntax"]) for r in table), default=7)
        for row in table:
            head = f"{row['syntax']:<{width}}  "
            extra = [row["kind"]]
            if row["orientation"]:
                extra += [row["orientation"], f"values in {row['range']}"]
            if row["trec_eval"]:
                extra.append(f"trec_eval: {row['trec_eval']}")
            if row["ir_measures"]:
                extra.append(f"ir_measures: {row['ir_measures']}")
            if row["aggregate"]:
                extra.append(f"aggregate: {row['aggregate']}")
                extra.append(f"ties=expected: {row['tie_aware']}")
            body = [row["formula"], "; ".join(extra)]
            if row["source"]:
                body.append(f"source: {row['source']}")
            if row["params"]:
                body.insert(1, f"params: {row['params']}")
            if row["aliases"]:
                body.insert(-1, f"aliases: {row['aliases']}")
            if row["bounds"]:
                body.insert(-1, f"residual bounds (--bounds): {row['bounds']}")
            if row["note"]:
                body.insert(1, f"note: {row['note']}")
            pad = " " * len(head)
            lines = []
            for i, para in enumerate(body):
                wrapped = textwrap.wrap(para, 100 - len(head)) or [""]
                for j, ln in enumerate(wrapped):
                    lines.append((head if i == 0 and j == 0 else pad) + ln)
            out.write("\n".join(lines) + "\n\n")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="measures or preferences to show, any spelling (default: all)")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="readable table (default), tsv or json")


def run(args: argparse.Namespace) -> int:
    write(rows(args.names or None), args.format)
    return 0
