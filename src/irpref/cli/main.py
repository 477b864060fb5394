"""The ``irpref`` command: one module per subcommand, loaded on demand.

One contract for every subcommand (``irpref trec_eval`` included):

- exit 0 on success, 1 on a data or input error (:class:`~irpref.errors.InputError`,
  unreadable file, write error), 2 on a usage error (:class:`~irpref.errors.UsageError`,
  bad option; the subcommand's own usage is printed), 130 on Ctrl-C (one line
  ``interrupted``, no traceback);
- every error is one line ``irpref CMD: error: ...``; anything unexpected is
  ``irpref CMD: internal error: ...`` and ``--debug`` shows the traceback;
- ``--quiet`` silences warnings, notes and progress bars (bars are drawn on
  standard error only when it is a terminal, see :mod:`irpref.runtime.progress`).

Nothing of a command outlives it in the process: the warning filters and
the progress switch are restored when it returns, and the allocator policy
(:func:`irpref.runtime.memory.keep_freed_memory`) is applied only when ``main`` runs
as the process itself (``argv`` not given: the ``irpref`` command,
``python -m irpref``), never when a program calls ``main([...])``.

Start-up is kept short: this module imports nothing heavy, ``irpref
--version`` imports no subcommand at all, and a subcommand's module is
imported only when it is the one asked for (``irpref trec_eval`` never loads
pandas; ``tests/test_lazy_imports.py`` pins which modules each start loads).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
import traceback
import warnings

from irpref.runtime import progress

# subcommand -> (module under irpref.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("evaluate", "evaluate runs with measures (tidy table / tsv / json)"),
    "trec_eval": ("trec_eval", "drop-in replacement for trec_eval"),
    "measures": ("measures", "list the measures irpref knows, with formulas and sources"),
    "ties": ("ties", "how often runs tie, and how much tie-breaking moves each measure"),
    "compare": ("compare", "pairwise preferences between runs and system orderings"),
    "significance": ("significance", "paired tests, randomized Tukey HSD, discriminative power"),
    "rank": ("rank", "leaderboard: ranks with simultaneous intervals and letter groups"),
    "design": ("design", "topic set size design: topics needed, power, detectable difference"),
    "judge": ("judge", "read and judge qrels + runs once, save them to Parquet for later commands"),
    "meta": ("meta", "meta-evaluation: ties, agreement, degradation, tie probabilities"),
    "report": ("report", "one self-contained HTML (or Markdown) report with tables and plots"),
    "plot": ("plot", "one figure (differences, distributions, preferences, ...) as PNG/SVG/PDF"),
    "agree": ("agree", "agreement of two qrels (kappa, alpha) and of the system orderings they "
                       "induce"),
}

GLOBAL_FLAGS = ("--debug", "--quiet")
INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    """Run one command line (``argv``, default ``sys.argv[1:]``) and return its exit code."""
    whole_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    flags = {"--debug": False, "--quiet": False}
    while argv and argv[0] in GLOBAL_FLAGS:  # global flags before the subcommand
        flags[argv.pop(0)] = True
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    if command is None and argv[:1] == ["--version"]:  # the quickest answer, no parser
        print(_version())
        return 0
    if whole_process and command is not None:
        from irpref.runtime.memory import keep_freed_memory

        keep_freed_memory()  # large arrays are reused, not faulted in again
    silenced = progress.silenced()
    with warnings.catch_warnings():  # the command's warning rules end with it
        try:
            if command == "trec_eval":  # trec_eval's flags; --debug/--quiet are irpref's
                rest = [a for a in argv[1:] if a not in GLOBAL_FLAGS]
                for flag in GLOBAL_FLAGS:
                    flags[flag] = flags[flag] or flag in argv[1:]
                return guard("trec_eval", lambda: _trec_eval(rest), flags["--debug"],
                             flags["--quiet"])
            return guard(command or "", lambda: _dispatch(argv, command, flags),
                         flags["--debug"], flags["--quiet"], lambda: flags)
        finally:
            progress.silence(silenced)


def _trec_eval(argv: list[str]) -> int:
    from irpref.runtime import threads

    threads.check_env()  # a bad IRPREF_THREADS is refused before any work, as elsewhere
    _register_sources()
    return importlib.import_module("irpref.cli.trec_eval").run_raw(argv)


def _register_sources() -> None:
    """Qrels named irds:DATASET-ID are read through ir_datasets (the module registers
    its reader in irpref.io.trec.QRELS_SOURCES when imported)."""
    importlib.import_module("irpref.interop.ir_datasets")


def _dispatch(argv: list[str], command: str | None, flags: dict) -> int:
    from irpref.cli.common import CommandParser, add_global_flags

    parser = CommandParser(prog="irpref", description="Exact, fast offline evaluation of rankings.",
                           argv=argv[1:] if command else argv)
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("--debug", action="store_true", help="show the traceback of an "
                        "internal error (also after the subcommand)")
    parser.add_argument("--quiet", action="store_true", help="no warnings or notes")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules, parsers = {}, {}
    for name, (module, helptext) in SUBCOMMANDS.items():
        if name == command:  # only the subcommand asked for is imported
            _register_sources()
            mod = importlib.import_module(f"irpref.cli.{module}")
            modules[name] = mod
            kwargs = getattr(mod, "PARSER_KWARGS", {})
            parsers[name] = sub.add_parser(name, help=helptext, description=helptext,
                                           argv=parser.argv, **kwargs)
            mod.add_arguments(parsers[name])
            if name != "trec_eval":
                add_global_flags(parsers[name])
        else:
            sub.add_parser(name, help=helptext)
    args, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's own usage, not the top-level one
        (parsers.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    flags["--debug"] = flags["--debug"] or bool(getattr(args, "debug", False))
    flags["--quiet"] = flags["--quiet"] or bool(getattr(args, "quiet", False))
    args.quiet = flags["--quiet"]
    _setup_warnings(flags["--quiet"])
    progress.silence(flags["--quiet"])  # bars only on a terminal, never with --quiet
    try:
        from irpref.runtime import threads

        threads.check_env()  # a bad IRPREF_THREADS is refused before any work
        return int(modules[args.command].run(args) or 0)
    except _usage_errors() as exc:
        parsers[args.command].print_usage(sys.stderr)
        print(f"irpref {args.command}: error: {exc}", file=sys.stderr)
        return 2


def _usage_errors() -> tuple[type, ...]:
    from irpref.errors import UsageError

    return (UsageError,)


def _setup_warnings(quiet: bool) -> None:
    """The command's warning rules (inside ``main``'s ``catch_warnings``, which
    restores the filters and ``showwarning`` afterwards): each distinct warning
    is printed once, one line ``irpref: warning: ...``, however many steps of
    the command raise it (a run lacking queries is announced once, whether
    metrics, preferences or both are computed)."""
    if quiet:
        warnings.simplefilter("ignore")
        return
    warnings.simplefilter("default")
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if text not in shown:
            shown.add(text)
            print(f"irpref: warning: {text}", file=sys.stderr)

    warnings.showwarning = show


def guard(command: str, body, debug: bool, quiet: bool, flags=None) -> int:
    """Run ``body`` under the CLI contract (exit codes, one-line errors, Ctrl-C, write errors)."""
    name = f"irpref {command}" if command else "irpref"

    def is_debug() -> bool:
        return debug or bool(flags and flags()["--debug"])

    try:
        code = body()
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:
        _silence_stdout()
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (e.g. `| head`): not an error
        return 0
    except SystemExit as exc:  # argparse: 2 for usage, 0 for --help/--version
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        code, message = classify(exc)
        if is_debug():
            traceback.print_exc()
        if code == 1 and isinstance(exc, OSError) and _is_write_error(exc):
            _silence_stdout()
        print(f"{name}: {message}", file=sys.stderr)
        if code is None:
            if not is_debug():
                print(f"{name}: run with --debug for the traceback", file=sys.stderr)
            return 1
        return code


def classify(exc: BaseException) -> tuple[int | None, str]:
    """(exit code, message) of an exception; code None for a bug (internal error)."""
    from irpref.errors import InputError, UsageError

    if isinstance(exc, UsageError):
        return 2, f"error: {exc}"
    if isinstance(exc, InputError):
        return 1, f"error: {exc}"
    if isinstance(exc, OSError):
        if _is_write_error(exc):
            return 1, f"error: cannot write the output: {exc.strerror or exc}"
        where = f"{exc.filename}: " if exc.filename else ""
        return 1, f"error: {where}{exc.strerror or exc}"
    if isinstance(exc, MemoryError):
        return 1, "error: out of memory"
    if _is_read_error(exc):
        return 1, f"error: cannot read the input: {type(exc).__name__}: {exc}"
    if isinstance(exc, ValueError):  # raised on purpose by checks not yet typed
        return 1, f"error: {exc}"
    return None, f"internal error: {type(exc).__name__}: {exc}"


def _is_read_error(exc: BaseException) -> bool:
    import gzip
    import zlib

    kinds: tuple[type, ...] = (EOFError, zlib.error, gzip.BadGzipFile, UnicodeDecodeError)
    with contextlib.suppress(ImportError):
        import pyarrow as pa

        kinds = (*kinds, pa.ArrowInvalid)
    return isinstance(exc, kinds)


def _is_write_error(exc: OSError) -> bool:
    return exc.filename is None and exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT,
                                                  errno.EFBIG, errno.EBADF, errno.EROFS)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's final flush cannot fail again."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _version() -> str:
    from irpref import __version__

    return f"irpref {__version__}"


if __name__ == "__main__":
    sys.exit(main())
