"""Shared helpers of the experiment scripts: the command line (``--collection``,
``--no-plot``), where a collection's data lives, the paper-vs-irpref verdicts
and the figures.

A collection NAME is the folder ``$IRPREF_DATA/NAME`` holding ``qrels.txt``
and ``runs/*.gz``; IRPREF_DATA defaults to ``../shared/data`` relative to the
repository root.
"""

from __future__ import annotations

import argparse
import math
import numbers
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import paper_rows

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
DEFAULT = "dl19-passage"
K_SE = 3.0  # Monte Carlo numbers: "within noise" when |paper - irpref| <= K_SE standard errors


def _interrupted(signum, frame) -> None:
    raise SystemExit(130)


def _input_error(kind, exc, tb) -> None:
    """Bad data (irpref's own errors: a qrels or run line, a measure name):
    one line ``SCRIPT: error: ...`` and exit 2, no traceback."""
    from irpref.errors import IrprefError

    if not isinstance(exc, IrprefError):
        sys.__excepthook__(kind, exc, tb)
        return
    sys.stdout.flush()
    print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(2)


if sys.argv and sys.argv[0] and Path(sys.argv[0]).resolve().parent == HERE:
    # run as a script of this folder: Ctrl-C and a closed pipe end quietly, bad data
    # is one line and exit 2
    signal.signal(signal.SIGINT, _interrupted)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.excepthook = _input_error


def data_dir() -> Path:
    return Path(os.environ.get("IRPREF_DATA", ROOT.parent / "shared" / "data"))


@dataclass(frozen=True)
class Collection:
    """One collection folder: its name, qrels file and run files."""

    name: str
    qrels: Path
    runs: list[Path]


class CollectionError(Exception):
    """A collection folder that is missing or not laid out as NAME/qrels.txt, NAME/runs/*.gz."""


def collection(name: str) -> Collection:
    """The collection ``name`` under :func:`data_dir`; :class:`CollectionError`
    (one line: the folder looked in and what is expected) when it is not there."""
    root = data_dir()
    folder = root / name
    expect = (f"expected {name}/qrels.txt and {name}/runs/*.gz in {root} "
              "(IRPREF_DATA names another data folder)")
    if not folder.is_dir():
        raise CollectionError(f"unknown collection {name!r}: no folder {name} in {root}; "
                              f"{expect}")
    qrels = folder / "qrels.txt"
    if not qrels.is_file():
        raise CollectionError(f"collection {name!r} has no qrels.txt; {expect}")
    runs = sorted((folder / "runs").glob("*.gz"))
    if not runs:
        raise CollectionError(f"collection {name!r} has no runs/*.gz; {expect}")
    return Collection(name, qrels, runs)


def _name(text: str) -> str:
    if not text or text in (".", "..") or "/" in text or os.sep in text:
        raise argparse.ArgumentTypeError(f"not a collection folder name: {text!r}")
    return text


def parser(script: str, doc: str | None, *, default: Sequence[str] | None = (DEFAULT,),
           plot: bool = True) -> argparse.ArgumentParser:
    """The argument parser of ``script`` (its ``__file__``): ``--collection NAME
    [NAME ...]`` (unless ``default`` is None: the script simulates and reads no
    data), ``--rel``, and ``--no-plot`` (documented when the script draws a
    figure, accepted by all so that one command line fits every script)."""
    p = argparse.ArgumentParser(prog=Path(script).name,
                                description=(doc or "").split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    if default is not None:
        p.add_argument("--collection", nargs="+", type=_name, default=list(default),
                       metavar="NAME",
                       help="collection folder(s) under $IRPREF_DATA, each with qrels.txt "
                            f"and runs/*.gz (default: {' '.join(default)})")
        p.add_argument("--rel", type=int, default=None, metavar="GRADE",
                       help="count grade >= GRADE as relevant everywhere (default: the "
                            "level each paper used for the collection, paper_rows.REL)")
    p.add_argument("--no-plot", dest="plot", action="store_false",
                   help="print the numbers only, draw no figure" if plot else argparse.SUPPRESS)
    return p


def fail(p: argparse.ArgumentParser, message: str) -> None:
    """A usage error found after parsing: one line on stderr, exit 2."""
    print(f"{p.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def parse(p: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse ``argv``; ``args.collections`` holds the resolved :class:`Collection`
    objects. A missing collection is one line on stderr and exit 2."""
    args = p.parse_args(argv)
    if hasattr(args, "collection"):
        try:
            args.collections = [collection(n) for n in dict.fromkeys(args.collection)]
        except CollectionError as exc:
            fail(p, str(exc))
        if args.rel is not None and args.rel < 0:
            p.error("--rel must be >= 0")
    return args


def rel(args: argparse.Namespace, paper: str, coll: Collection) -> int:
    """``--rel`` if given, else the level ``paper`` used for the collection."""
    return args.rel if args.rel is not None else paper_rows.rel(paper, coll.name)


def verdict(paper: float, ours: float, digits: int, *, se: float | None = None,
            reason: str | None = None, k: float = K_SE) -> str:
    """``exact`` (equal at the paper's ``digits``), ``within noise (<= k se)``
    (only for Monte Carlo numbers, ``se`` the standard error of the difference)
    or ``differs: REASON`` (``unexplained`` when no reason is known)."""
    if round(float(ours), digits) == round(float(paper), digits):
        return "exact"
    if se is not None and math.isfinite(se) and abs(ours - paper) <= k * se:
        return f"within noise (|diff| {abs(ours - paper):.3g} <= {k:g} se, se {se:.3g})"
    return f"differs: {reason or 'unexplained'}"


def compare(label: str, paper, ours, digits: int = 2, *, se: float | None = None,
            reason: str | None = None) -> str:
    """One line: label, the paper's number, irpref's, and the :func:`verdict`."""
    got = f"{ours}" if isinstance(ours, numbers.Integral) else f"{ours:.{digits + 2}f}"
    if paper is None:
        return f"{label:<40} paper {'-':>8}  irpref {got}"
    return (f"{label:<40} paper {paper:>8.{digits}f}  irpref {got}  "
            f"{verdict(paper, ours, digits, se=se, reason=reason)}")


def report(paper: str, table: str, coll: str, values: Mapping[str, float], *,
           labels: Mapping[str, str] | None = None, se: Mapping[str, float] | None = None,
           note: str = "", digits: int = 2) -> None:
    """Print the block of one paper table for one collection: a title naming
    the source, then per measure the paper's number (or '-'), irpref's and the
    verdict. A collection the paper does not report is said so; irpref's numbers
    are still printed (``digits`` decimals + 2)."""
    row = paper_rows.row(paper, table, coll)
    title = f"{paper_rows.source(paper, table)}, {coll}{note}"
    print(title if row is not None else f"{title}: paper reports no row for {coll}")
    for m, ours in values.items():
        label = f"  {(labels or {}).get(m, m)}"
        if row is None or m not in row:
            print(compare(label, None, ours, digits))
            continue
        want, d = paper_rows.printed(row[m])
        print(compare(label, want, ours, d, se=(se or {}).get(m),
                      reason=paper_rows.reason(paper, table, coll, m)))


def dataset_facts(judged) -> dict[str, float]:
    """The dataset tables' columns (RPP Table 1, lexirecall Table 5): requests,
    runs, relevant per request (at ``judged``'s level) and documents retrieved
    per (run, request)."""
    import irpref

    t = irpref.evaluate(None, None, ["num_rel", "num_ret"], judged=judged)
    rel = t[t.measure == "num_rel"].groupby("query")["value"].first()
    return {"requests": judged.n_queries, "runs": judged.n_runs,
            "rel/request": float(rel.mean()),
            "docs/request": float(t[t.measure == "num_ret"]["value"].mean())}


def hsd_percent_se(result, permutations: int) -> dict[str, float]:
    """Monte Carlo standard error of the percent of pairs with p_adjusted < 0.05
    under a randomized test with ``permutations`` draws, per measure: each
    pair's p has se sqrt(p (1 - p) / B), so it falls below 0.05 with
    probability q = Phi((0.05 - p) / se); the count's variance is sum q (1 - q)."""
    import numpy as np
    from scipy.stats import norm

    out = {}
    for measure, g in result.groupby("measure", sort=False):
        p = np.clip(g["p_adjusted"].to_numpy(np.float64), 1.0 / permutations, 1.0)
        sd = np.sqrt(p * (1.0 - p) / permutations)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd > 0, (0.05 - p) / np.where(sd > 0, sd, 1.0), np.inf * (0.05 - p))
        q = norm.cdf(z)
        out[measure] = 100.0 * float(np.sqrt(np.sum(q * (1.0 - q)))) / max(len(g), 1)
    return out


def figure_name(name: str, collections: Sequence[Collection],
                default: Sequence[str] = (DEFAULT,)) -> str:
    """``name`` for the default collection(s) (the figures in this folder);
    ``stem.COLL[+COLL].png`` for any other choice, so that they are not overwritten."""
    names = [c.name for c in collections]
    if names == list(default):
        return name
    stem, _, ext = name.rpartition(".")
    return f"{stem}.{'+'.join(names)}.{ext}"


def save(fig, name: str) -> Path:
    path = HERE / name
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path.relative_to(ROOT)}")
    return path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
