"""``irpref measures [NAME...] [--format table|tsv|json]``: the measure registry.

One row per measure family: canonical syntax, parameters with defaults,
cut-off, the trec_eval name it reproduces, formula, source and aggregate.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap

import numpy as np

from irpref.measures import REGISTRY, Family

FORMATS = ("table", "tsv", "json")
COLUMNS = ("measure", "syntax", "params", "cutoff", "trec_eval", "aggregate", "kind",
           "tie_aware", "formula", "source")


def _syntax(fam: Family) -> str:
    text = fam.name
    if fam.params:
        text += "(...)"
    if fam.cutoff == "required":
        text += "@k"
    elif fam.cutoff == "optional":
        text += "[@k]"
    return text


def _aggregate(fam: Family) -> str:
    agg = fam.aggregate
    if agg is None:
        return "mean"
    if agg is np.sum:
        return "sum"
    return getattr(agg, "__name__", "custom").replace("_", " ")


def rows(names: list[str] | None = None) -> list[dict[str, str]]:
    """The registry as plain rows (sorted by name, case-insensitively)."""
    wanted = names if names else sorted(REGISTRY, key=str.lower)
    out = []
    for name in wanted:
        if name not in REGISTRY:
            known = ", ".join(sorted(REGISTRY, key=str.lower))
            raise ValueError(f"unknown measure {name!r}; known measures: {known}")
        fam = REGISTRY[name]
        params = "; ".join(
            f"{k}={'' if p.default is None else p.default} ({p.type.__name__}"
            f"{', one of ' + '|'.join(map(str, p.choices)) if p.choices else ''}): {p.doc}"
            for k, p in fam.params.items()
        )
        out.append({
            "measure": fam.name,
            "syntax": _syntax(fam),
            "params": params,
            "cutoff": fam.cutoff,
            "trec_eval": fam.trec_eval or "",
            "aggregate": _aggregate(fam),
            "kind": fam.kind,
            "tie_aware": "yes" if fam.expected is not None else "no",
            "formula": fam.formula,
            "source": fam.source,
        })
    return out


def write(table: list[dict[str, str]], fmt: str, out=None) -> None:
    out = out or sys.stdout
    if fmt == "json":
        json.dump(table, out, indent=1)
        out.write("\n")
    elif fmt == "tsv":
        out.write("\t".join(COLUMNS) + "\n")
        for row in table:
            out.write("\t".join(row[c].replace("\t", " ") for c in COLUMNS) + "\n")
    elif fmt == "table":
        width = max((len(r["syntax"]) for r in table), default=7)
        for row in table:
            head = f"{row['syntax']:<{width}}  "
            extra = []
            if row["trec_eval"]:
                extra.append(f"trec_eval: {row['trec_eval']}")
            extra.append(f"aggregate: {row['aggregate']}")
            extra.append(f"ties=expected: {row['tie_aware']}")
            body = [row["formula"], "; ".join(extra), f"source: {row['source']}"]
            if row["params"]:
                body.insert(1, f"params: {row['params']}")
            pad = " " * len(head)
            lines = []
            for i, para in enumerate(body):
                wrapped = textwrap.wrap(para, 100 - len(head)) or [""]
                for j, ln in enumerate(wrapped):
                    lines.append((head if i == 0 and j == 0 else pad) + ln)
            out.write("\n".join(lines) + "\n\n")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="measure families to show (default: all)")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="readable table (default), tsv or json")


def run(args: argparse.Namespace) -> int:
    write(rows(args.names or None), args.format)
    return 0
