"""The ``irpref`` command: one module per subcommand, loaded on demand."""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from irpref.cli.allocator import keep_freed_memory

# subcommand -> (module under irpref.cli, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("evaluate", "evaluate runs with measures (tidy table / tsv / json)"),
    "trec_eval": ("trec_eval", "drop-in replacement for trec_eval"),
    "measures": ("measures", "list the measures irpref knows, with formulas and sources"),
    "ties": ("ties", "how often runs tie, and how much tie-breaking moves each measure"),
    "compare": ("compare", "pairwise preferences between runs and system orderings"),
    "significance": ("significance", "paired tests, randomized Tukey HSD, discriminative power"),
    "report": ("report", "one self-contained HTML (or Markdown) report with tables and plots"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="irpref",
        description="Exact, fast offline evaluation of rankings.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Only the chosen subcommand's module is imported: start-up stays fast.
    chosen = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    modules = {}
    for name, (module, helptext) in SUBCOMMANDS.items():
        if chosen is None or name == chosen:
            mod = importlib.import_module(f"irpref.cli.{module}")
            if name == "trec_eval" and chosen == name:
                return mod.run_raw(argv[1:])  # trec_eval's own flag syntax
            modules[name] = mod
            kwargs = getattr(mod, "PARSER_KWARGS", {})
            mod.add_arguments(sub.add_parser(name, help=helptext, description=helptext, **kwargs))
        else:
            sub.add_parser(name, help=helptext)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    keep_freed_memory()  # large arrays are reused, not faulted in again
    warnings.simplefilter("default")
    warnings.showwarning = _show_warning
    try:
        return int(modules[args.command].run(args) or 0)
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error
        return 0
    except (ValueError, OSError) as exc:
        print(f"irpref {args.command}: error: {exc}", file=sys.stderr)
        return 1


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"irpref: warning: {message}", file=sys.stderr)


def _version() -> str:
    from irpref import __version__

    return f"irpref {__version__}"


if __name__ == "__main__":
    sys.exit(main())
