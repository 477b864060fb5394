"""Arguments shared by subcommands, their validation, hints and the ``-o`` output file.

Every option value is checked while the command line is parsed (the rules are
in :mod:`irpref.params`), so a bad value is refused with the subcommand's own
usage and exit 2 before any input is read or any output printed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import TextIO

from irpref import params
from irpref.errors import UsageError
from irpref.evaluate import judge_inputs
from irpref.judging.judged import JudgedRankings
from irpref.params import DEFAULTS, TIES, Settings
from irpref.report.formats import BINARY_FORMATS, FORMATS

# trec_eval flags irpref's own commands spell differently: flag -> (long option, takes a value)
TREC_EVAL_FLAGS = {
    "l": ("--rel", True),
    "M": ("--depth", True),
    "N": ("--corpus-size", True),
    "q": ("--per-query", False),
    "c": ("--missing zero", False),
    "n": (None, False),
}


def warn(text: str) -> None:
    """A warning of the command itself, by the one warning path of every command:
    ``irpref: warning: TEXT`` on standard error, once however often it is raised,
    nothing under ``--quiet`` (the rules of :func:`irpref.cli.main._setup_warnings`)."""
    warnings.warn(text, UserWarning, stacklevel=2)


class CommandParser(argparse.ArgumentParser):
    """argparse with irpref's rules: an option given twice is refused (the
    ``store`` and ``store_true`` actions are registered as :class:`Single` and
    :class:`SingleFlag`, through argparse's ``register``, in every parser and
    subparser), and a usage error gets irpref's hints (a trec_eval flag gets
    "did you mean --rel 2", files swallowed by ``-m`` are named). ``argv``:
    the command line being parsed, for the hints. Abbreviated long options are
    refused: ``--hsd`` once ran the t test as argparse's abbreviation of
    ``--hsd-strict``, a different request answered silently."""

    def __init__(self, *args, argv: list[str] | None = None, **kwargs) -> None:
        self.option_names: set[str] = set()  # every option string, for the hints
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.argv = list(argv or [])
        self.register("action", None, Single)
        self.register("action", "store", Single)
        self.register("action", "store_true", SingleFlag)

    def add_argument(self, *args, **kwargs):  # type: ignore[override]
        action = super().add_argument(*args, **kwargs)
        self.option_names.update(action.option_strings)
        return action

    def add_argument_group(self, *args, **kwargs):  # type: ignore[override]
        """A group whose options are known to the hints too."""
        group = super().add_argument_group(*args, **kwargs)
        add = group.add_argument

        def add_argument(*a, **k):
            action = add(*a, **k)
            self.option_names.update(action.option_strings)
            return action

        group.add_argument = add_argument
        return group

    def add_subparsers(self, **kwargs):  # type: ignore[override]
        kwargs.setdefault("parser_class", type(self))
        return super().add_subparsers(**kwargs)

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}{usage_hint(self, message, self.argv)}\n")


def usage_hint(parser: CommandParser, message: str, argv: list[str]) -> str:
    """A precise hint for the two mistakes users make most, or ''."""
    known = parser.option_names
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if len(arg) < 2 or arg[0] != "-" or arg[1] == "-" or arg[:2] in known:
            continue
        letter = arg[1]
        if letter not in TREC_EVAL_FLAGS:
            continue
        option, takes_value = TREC_EVAL_FLAGS[letter]
        if option is None:
            return (f"; {arg} is trec_eval's 'no summary' flag, which {parser.prog} does not "
                    "have (irpref trec_eval -n does)")
        if option.split()[0] not in known:
            continue
        value = ""
        if takes_value:
            value = arg[2:] or (argv[i + 1] if i + 1 < len(argv) else "N")
            value = " " + value
        return f"; did you mean {option}{value}? ({arg} is trec_eval's flag; irpref trec_eval " \
               "takes trec_eval's flags)"
    if "required" in message:
        swallowed = _swallowed_files(argv)
        if swallowed:
            return (f"; -m took {swallowed[0]!r} as a measure name: put -m after the files "
                    f"or end its list with -- (e.g. -m AP -- QRELS RUN)")
    return ""


def _swallowed_files(argv: list[str]) -> list[str]:
    """Values of -m/--measure that are existing files (argparse gave them to -m)."""
    out, taking = [], False
    for arg in argv:
        if arg in ("-m", "--measure"):
            taking = True
            continue
        if arg.startswith("-"):
            taking = False
            continue
        if taking and os.path.isfile(arg):
            out.append(arg)
    return out


_SEEN = "_irpref_given"  # namespace attribute: the single-valued options already given


class Single(argparse.Action):
    """A single-valued option that may be given once: a repeat (``--rel 1 --rel 2``,
    ``-o a -o b``) is a usage error naming the option (exit 2) instead of argparse's
    silent "the last one wins". :class:`CommandParser` makes it the ``store``
    action; options that are lists by design (``-m``) use ``action="extend"``."""

    def __call__(self, parser, namespace, values, option_string=None):
        mark_given(self, parser, namespace, values, option_string)
        setattr(namespace, self.dest, self.convert(parser, values, option_string))

    def convert(self, parser, values, option_string):
        return values


class SingleFlag(argparse.Action):
    """A yes/no flag (``store_true``) that may be given once, as :class:`Single`."""

    def __init__(self, option_strings, dest, default=False, required=False, help=None):
        super().__init__(option_strings, dest, nargs=0, const=True, default=default,
                         required=required, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        mark_given(self, parser, namespace, values, option_string)
        setattr(namespace, self.dest, True)


class Flag(argparse.Action):
    """A yes/no flag that may be repeated (the global ``--debug`` and ``--quiet``)."""

    def __init__(self, option_strings, dest, default=False, required=False, help=None):
        super().__init__(option_strings, dest, nargs=0, const=True, default=default,
                         required=required, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)


def mark_given(action: argparse.Action, parser, namespace, values, option_string) -> None:
    """The one rule for a repeated option: a usage error naming it (exit 2)."""
    seen = getattr(namespace, _SEEN, None)
    if seen is None:
        seen = set()
        setattr(namespace, _SEEN, seen)
    if action.dest in seen:
        names = "/".join(action.option_strings)
        shown = f" {_shown(values)}" if values not in (None, []) else ""
        parser.error(f"{names} given twice ({option_string}{shown} repeats it): give it once")
    seen.add(action.dest)


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the single-valued option stored in ``dest`` was given on the command line
    (not left at its default)."""
    return dest in getattr(args, _SEEN, ())


def _shown(values) -> str:
    return " ".join(map(str, values)) if isinstance(values, list) else str(values)


def once(**kwargs) -> dict:
    """``add_argument(..., **once())``: the option is refused when repeated."""
    return {"action": Single, **kwargs}


class Checked(Single):
    """An option whose value is checked by an :mod:`irpref.params` rule at parse time
    (given once, as every :class:`Single` option)."""

    def __init__(self, option_strings, dest, check: Callable = None, **kwargs):
        self.check = check
        super().__init__(option_strings, dest, **kwargs)

    def convert(self, parser, values, option_string):
        flag = next((s for s in self.option_strings if s.startswith("--")), option_string)
        try:
            return self.check(values, flag)
        except UsageError as exc:
            parser.error(str(exc))


def checked(check: Callable) -> dict:
    """``add_argument(..., **checked(params.check_rel))``."""
    return {"action": Checked, "check": check}


def as_usage(check: Callable):
    """Run a name check; a plain ValueError (unknown or invalid measure) becomes a UsageError."""
    try:
        return check()
    except UsageError:
        raise
    except ValueError as exc:
        raise UsageError(str(exc)) from None


MATPLOTLIB_HINT = "irpref {command} needs matplotlib: pip install irpref[plot]"


def require_matplotlib(command: str) -> None:
    """The one install hint (a usage error, exit 2) of the commands that draw figures."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(MATPLOTLIB_HINT.format(command=command)) from None


def add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE", default=None, **once(),
                        help="write to FILE (via a temporary file in the same directory, "
                             "renamed when complete) instead of standard output")


@contextlib.contextmanager
def open_output(path: str | None) -> Iterator[TextIO]:
    """Standard output, or ``path`` written to a temporary name and renamed on success
    (an interrupted or failed run never leaves a half-written file). A path that
    exists and is not a regular file (``/dev/null``, a FIFO, ``/dev/stdout``) is
    written in place: renaming over it would replace the device with a file."""
    if path is None or path == "-":
        yield sys.stdout
        return
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w", encoding="utf-8", newline="") as handle:
            yield handle
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            yield handle
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "qrels", metavar="QRELS", help="TREC qrels file (qid iter docid grade; .gz ok), or a "
        "file saved by irpref judge (then no RUN)"
    )
    parser.add_argument("runs", metavar="RUN", nargs="*", default=[],  # optional: a saved file
                        help="TREC run files (.gz ok)")
    parser.add_argument(
        "--tag-names",
        action="store_true",
        help="name runs by their tag column instead of their file names",
    )
    add_columns(parser)


def add_columns(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--columns", metavar="ROLE=NAME,...", default=None, **checked(params.check_columns),
        help="the columns of table inputs (CSV/TSV/JSONL/Parquet), e.g. "
        "query=user_id,doc=item_id,score=score,grade=rating (roles: "
        f"{', '.join(params.ROLES)})",
    )


def add_judging(parser: argparse.ArgumentParser, *, ties: bool = True) -> None:
    add_rel(parser)
    add_depth(parser)
    parser.add_argument(
        "--corpus-size",
        **checked(params.check_corpus_size),
        default=None,
        metavar="N",
        help="documents in the collection (for measures that impute unretrieved "
        "relevant documents at the bottom of the corpus)",
    )
    if ties:
        parser.add_argument(
            "--ties",
            **checked(params.check_ties),
            metavar="{" + ",".join(TIES) + "}",
            default="docid",
            help="tie policy: docid (trec_eval), input (file order), expected "
            "(mean over all orderings of tied scores)",
        )


def add_rel(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rel", **checked(params.check_rel), default=1, metavar="N",
                        help="grade >= N is relevant, N >= 1 (trec_eval -l; default 1)")


def add_depth(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", **checked(params.check_depth), default=None, metavar="N",
                        help="keep the top N >= 1 of each ranking after sorting (trec_eval -M)")


def add_format(parser: argparse.ArgumentParser, default: str = "table", *,
               binary: bool = False) -> None:
    """``--format``; ``binary``: parquet too (the command writes every table
    through the one writer; Parquet needs -o FILE or a stdout that is not a tty)."""
    parser.add_argument(
        "--format",
        **once(),
        choices=(*FORMATS, *BINARY_FORMATS) if binary else FORMATS,
        default=default,
        help=f"output format (default {default}); tsv keeps full precision"
        + ("; parquet needs -o FILE (or stdout redirected)" if binary else ""),
    )


def add_measures(parser: argparse.ArgumentParser, help: str, metavar: str = "MEASURE") -> None:
    """``-m/--measure`` (repeatable, several per flag; unset -> ``args.measures is
    None``) and ``--judged-only`` (:func:`add_judged_only`)."""
    parser.add_argument("-m", "--measure", dest="measures", nargs="+", action="extend",
                        metavar=metavar, help=help)
    add_judged_only(parser)


def add_judged_only(parser: argparse.ArgumentParser) -> None:
    """``--judged-only``: every measure and preference the command evaluates, its
    defaults included, gets ``judged_only=true`` (condensed lists, Sakai 2007;
    trec_eval -J), and its label in every output says so."""
    parser.add_argument("--judged-only", action="store_true", default=False,
                        help="evaluate the condensed lists: unjudged documents removed after "
                             "--depth, as trec_eval -J (labels read NAME(judged_only=true))")


def add_missing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--missing", **checked(params.check_missing),
                        metavar="{" + ",".join(params.MISSING) + "}",
                        default=params.DEFAULT_MISSING,
                        help="queries a run lacks: skip them, or score them as empty "
                             "(trec_eval -c)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The judging settings of a command line: the one place where the CLI's
    arguments become a :class:`~irpref.params.Settings` value (each option was
    checked while parsing; a command without an option takes its default).
    ``--judged-only`` with ``--dask`` is refused (the workers judge relevant
    items only)."""
    settings = Settings(
        rel=getattr(args, "rel", DEFAULTS["rel"]),
        depth=getattr(args, "depth", DEFAULTS["depth"]),
        ties=getattr(args, "ties", DEFAULTS["ties"]),
        missing=getattr(args, "missing", DEFAULTS["missing"]),
        corpus_size=getattr(args, "corpus_size", DEFAULTS["corpus_size"]),
        judged_only=bool(getattr(args, "judged_only", False)),
        use_tag=bool(getattr(args, "tag_names", False)),
        columns=getattr(args, "columns", None),
    )
    if settings.judged_only and getattr(args, "dask", None):
        raise UsageError("--judged-only does not run on --dask: evaluate without --dask")
    return settings


def load_judged_file(args: argparse.Namespace, settings: Settings) -> JudgedRankings:
    """The saved file of ``irpref judge`` given in place of QRELS: no run files
    after it, and the same judging settings (:func:`irpref.judging.store.load`)."""
    from irpref.judging.store import load

    if getattr(args, "runs", None):
        raise UsageError(f"{args.qrels} is a saved judged file: give no run files after it "
                         "(they are in the file)")
    return load(args.qrels, settings)


def judge_args(
    args: argparse.Namespace,
    settings: Settings,
    *,
    measures=(),
    preferences=(),
    subtopics=None,
    layout: str | None = None,
) -> JudgedRankings:
    """Read, intern and judge the inputs named by the shared arguments with
    ``settings`` (:func:`settings_from_args`), or load the file saved by
    ``irpref judge``.

    The layout is the compact one when every one of ``measures`` and
    ``preferences`` reads it (:func:`irpref.evaluate.layout_for`; none given:
    the full layout) unless ``layout`` says; a saved compact file asked for
    a measure that needs the full layout is refused (exit 2)."""
    from irpref.evaluate import layout_for
    from irpref.judging.store import is_judged_file

    count_docs = False
    needs_full = layout == "full"
    if layout is None:
        layout, count_docs = layout_for(measures, preferences, settings=settings,
                                        subtopics=subtopics)
    if is_judged_file(args.qrels):
        judged = load_judged_file(args, settings)
        if judged.compact and (needs_full or (layout == "full" and (measures or preferences))):
            what = " ".join(map(str, [*measures, *preferences])) or "this command"
            raise UsageError(
                f"{args.qrels} holds compact judged rankings (only the items the qrels "
                f"mention); {what} needs every retrieved item: re-run irpref judge "
                "--layout full"
            )
        if judged.compact and count_docs and judged.distinct_docs is None:
            raise UsageError(f"{args.qrels}: {' '.join(map(str, measures))} need the number "
                             "of distinct documents: pass --corpus-size N")
        return judged
    if not args.runs:
        raise UsageError("no RUN file given (give QRELS RUN..., or a file saved by irpref judge)")
    return judge_inputs(
        args.qrels, args.runs, settings, layout=layout,
        count_docs=count_docs or (layout == "compact" and not measures and not preferences),
    )


def add_dask(parser: argparse.ArgumentParser) -> None:
    from irpref.distributed import check_address

    parser.add_argument("--dask", metavar="ADDRESS", default=None, **checked(check_address),
                        help="run on Dask: a scheduler address (tcp://host:8786) or local:N "
                             "for N local worker processes (pip install irpref[dask])")


def add_global_flags(parser: CommandParser) -> None:
    """``--debug`` and ``--quiet``, accepted after the subcommand too (repeatable)."""
    if "--debug" not in parser.option_names:
        parser.add_argument("--debug", action=Flag, default=argparse.SUPPRESS,
                            help="show the Python traceback of an internal error")
    if "--quiet" not in parser.option_names:
        parser.add_argument("--quiet", action=Flag, default=argparse.SUPPRESS,
                            help="no warnings, notes or progress bars on standard error")
