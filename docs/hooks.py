"""MkDocs hooks: the pages made from the code at build time, so they cannot drift.

A page holds a marker comment where generated text goes:

- ``<!-- irpref:measure-catalogue -->``: every measure, preference and modifier,
  read from the measure records exactly as ``irpref measures --format json``
  prints them;
- ``<!-- irpref:cli-reference -->``: the ``--help`` of ``irpref`` and of every
  subcommand (and every ``irpref meta`` experiment), from the installed
  command's own parsers;
- ``<!-- irpref:api -->``: one mkdocstrings block per name of ``irpref.__all__``,
  each under its public name (``irpref.evaluate``); the module that defines it is
  looked up at build time, so the page never names an internal path;
- ``<!-- irpref:changelog -->``: CHANGELOG.md.

Everything is reached through public entry points (``irpref.__all__``, the
``irpref`` console script), so moving modules inside the package changes
nothing here. :func:`public_api` is also what tests/test_docstrings.py runs
the docstring examples of.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import json
import os
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"<!-- irpref:([a-z-]+) -->")


# ------------------------------------------------------------------ public API


@dataclass(frozen=True)
class PublicName:
    """One name of ``irpref.__all__``: the object, where it is defined, its docstring."""

    name: str
    obj: object
    path: str  # dotted path of the definition, e.g. irpref.evaluate.evaluate
    doc: str  # the docstring as written (an attribute docstring for data)

    @property
    def kind(self) -> str:
        if inspect.isclass(self.obj):
            return "exception" if issubclass(self.obj, BaseException) else "class"
        return "function" if callable(self.obj) else "data"


def _assigned_here(module, name: str) -> str | None:
    """The docstring under a top-level assignment of ``name`` in ``module``'s
    source ("" if it has none), or None when the module does not assign it."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return None
    body = tree.body
    for i, node in enumerate(body):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            after = body[i + 1] if i + 1 < len(body) else None
            if (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)):
                return inspect.cleandoc(after.value.value)
            return ""
    return None


def _data_definition(name: str, obj: object) -> tuple[str, str]:
    """(module path, docstring) of the module that assigns the data ``name``."""
    for modname in sorted(m for m in list(sys.modules) if m.split(".")[0] == "irpref"):
        module = sys.modules[modname]
        if module is None or vars(module).get(name) is not obj:
            continue
        doc = _assigned_here(module, name)
        if doc is not None:
            return f"{modname}.{name}", doc
    raise LookupError(f"irpref.{name}: no module of the package assigns it")


def public_api() -> list[PublicName]:
    """Every name of ``irpref.__all__``, in that order."""
    irpref = importlib.import_module("irpref")
    out = []
    for name in irpref.__all__:
        obj = getattr(irpref, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            path = f"{obj.__module__}.{obj.__qualname__}"
            doc = inspect.cleandoc(obj.__doc__ or "")
        else:
            path, doc = _data_definition(name, obj)
        out.append(PublicName(name, obj, path, doc))
    return out


# The API page's sections: a reading order, not a registry (a public name left
# out of them is still documented, under "Other names"; the tests check that
# every name of irpref.__all__ is on the page).
API_SECTIONS = [
    ("Evaluating", ["evaluate", "summarize", "Settings", "judge_inputs"]),
    ("Preferences", ["compare", "mean_preferences", "preference_matrix"]),
    ("Significance, leaderboards, design",
     ["significance", "leaderboard", "adjust_pvalues", "tukey_hsd", "Pairwise",
      "discriminative_power", "design"]),
    ("Agreement of judgments", ["agree"]),
    ("Measures", ["REGISTRY", "Measure", "parse_measure", "parse_measures", "search_lengths",
                  "RecallLevelMetric", "orientation", "worst_user", "worst_provider"]),
    ("Reading and judging", ["read_qrels", "read_run", "Qrels", "Run", "TrecFormatError",
                             "intern", "Collection", "judge", "JudgedRankings"]),
    ("ir_measures compatibility", ["iter_calc", "calc_aggregate"]),
]


def _api_block(item: PublicName) -> str:
    title = f"irpref.{item.name}"
    return (f'[](){{#{title}}}\n'
            f"::: {item.path}\n"
            f"    options:\n"
            f"      heading: \"{title}\"\n"
            f"      toc_label: \"{item.name}\"\n"
            f"      heading_level: 3\n"
            f"      show_root_heading: true\n"
            f"      show_root_full_path: false\n")


def api_markdown() -> str:
    """The API page's body: per section, an anchor and a mkdocstrings block per
    public name (the anchor ``#irpref.NAME`` does not depend on the module)."""
    items = {item.name: item for item in public_api()}
    placed = {name for _, names in API_SECTIONS for name in names}
    sections = [(title, [n for n in names if n in items]) for title, names in API_SECTIONS]
    sections.append(("Other names", [n for n in items if n not in placed]))
    parts = []
    for title, names in sections:
        if names:
            parts.append(f"## {title}\n")
            parts += [_api_block(items[n]) for n in names]
    return "\n".join(parts)


# ------------------------------------------------------------------ the command


def _console_main():
    """The ``irpref`` console script's function, from the installed metadata."""
    (entry,) = [e for e in metadata.entry_points(group="console_scripts") if e.name == "irpref"]
    return entry.load()


def run_irpref(*args: str) -> str:
    """Standard output of ``irpref ARGS...`` run in this process (80 columns)."""
    main = _console_main()
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(list(args))
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    if code != 0:
        raise RuntimeError(f"irpref {' '.join(args)} exited {code}")
    return out.getvalue()


def _subcommands(help_text: str) -> list[str]:
    """The subcommands argparse lists under its positional argument (a line
    indented by four spaces that starts with the name)."""
    block = help_text.split("positional arguments:", 1)[1].split("\noptions:", 1)[0]
    names = re.findall(r"^    ([a-z][a-z_-]*)(?:\s|$)", block, flags=re.MULTILINE)
    if not names:
        raise RuntimeError("no subcommands in the help text")
    return names


def _help_block(title: str, text: str, level: int) -> str:
    return f"{'#' * level} `{title}`\n\n```text\n{text.rstrip()}\n```\n"


def cli_markdown() -> str:
    """Every command's ``--help``, top level first."""
    top = run_irpref("--help")
    parts = [_help_block("irpref", top, 2)]
    for command in _subcommands(top):
        text = run_irpref(command, "--help")
        parts.append(_help_block(f"irpref {command}", text, 2))
        if command == "meta":
            for experiment in _subcommands(text):
                parts.append(_help_block(f"irpref meta {experiment}",
                                         run_irpref("meta", experiment, "--help"), 3))
    return "\n".join(parts)


# ------------------------------------------------------------------ measure catalogue

_ESCAPE = str.maketrans({"|": "\\|", "<": "&lt;", ">": "&gt;", "*": "\\*", "_": "\\_",
                         "[": "\\[", "]": "\\]", "`": "\\`", "$": "\\$", "#": "\\#"})


def _text(value: str) -> str:
    """A record's free text as Markdown that prints it literally."""
    return value.translate(_ESCAPE)


def _code(value: str) -> str:
    """A code span holding ``value`` whatever backticks it contains."""
    fence = "``" if "`" in value else "`"
    return f"{fence} {value} {fence}" if fence == "``" else f"`{value}`"


def catalogue_rows() -> list[dict[str, str]]:
    """The records as ``irpref measures --format json`` prints them."""
    return json.loads(run_irpref("measures", "--format", "json"))


def _slug(name: str) -> str:
    return "m-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def catalogue_markdown() -> str:
    """A summary table, then one entry per measure, preference and modifier."""
    rows = catalogue_rows()

    def count(kind: str) -> int:
        return sum(r["kind"].startswith(kind) for r in rows)

    lines = [f"{len(rows)} entries: {count('measure')} measure families, "
             f"{count('preference')} preferences and {count('modifier')} modifier(s) "
             "that every measure and preference takes.", "",
             "| name | syntax | kind | better | tie-aware | trec_eval |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| [{_text(r['measure'])}](#{_slug(r['measure'])}) | {_code(r['syntax'])} "
                     f"| {_text(r['kind'])} | {_text(r['orientation'].split(':')[0])} "
                     f"| {r['tie_aware']} | {_text(r['trec_eval'])} |")
    fields = [("formula", "Formula"), ("params", "Parameters"), ("cutoff", "Cut-off"),
              ("range", "Range"), ("orientation", "Orientation"), ("aggregate", "Aggregate"),
              ("aliases", "Other spellings"), ("trec_eval", "trec_eval names"),
              ("ir_measures", "ir_measures"), ("tie_aware", "Tie-aware (--ties expected)"),
              ("bounds", "Residual bounds (--bounds)"), ("source", "Source"), ("note", "Note")]
    for r in rows:
        lines += ["", f"### {_text(r['measure'])} {{#{_slug(r['measure'])}}}", "",
                  f"{_code(r['syntax'])}: {_text(r['kind'])}", ""]
        for key, label in fields:
            if r.get(key):
                value = _code(r[key]) if key == "formula" else _text(r[key])
                lines.append(f"- **{label}**: {value}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the hook

GENERATORS = {
    "measure-catalogue": catalogue_markdown,
    "cli-reference": cli_markdown,
    "api": api_markdown,
    "changelog": lambda: (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").split("\n", 1)[1],
}


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - mkdocs hook
    """Replace each marker of a page with its generated text."""

    def fill(match: re.Match) -> str:
        key = match.group(1)
        if key not in GENERATORS:
            raise KeyError(f"{page.file.src_uri}: unknown marker irpref:{key}")
        return GENERATORS[key]()

    return MARKER.sub(fill, markdown)
