"""A self-contained evaluation report: HTML (inline PNG and CSS) or Markdown.

:func:`build_report` evaluates the runs once and collects sections of tables
and figures; :func:`write_html` renders them into one HTML file that needs
no network (images are base64 PNG data URIs, the style sheet is inline, no
scripts, no external fonts; big parts fold into ``<details>``), and
:func:`write_markdown` writes Markdown with the PNG figures beside it. Both
write to a temporary name in the target directory and rename.
"""

from __future__ import annotations

import base64
import html
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Report, Section, _png
from irpref.report.formats import report_html_table as _html_table
from irpref.report.formats import report_markdown_table as _md_table
from irpref.report.orientation import better_word, direction_note, sign_of

__all__ = ["DEFAULT_MEASURES", "PREFERENCES", "Report", "Section", "baseline_summary",
           "build_report", "write_html", "write_markdown"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "RR")
PREFERENCES = ("sgnLP", "RPP")
CHUNK = 10  # runs per per-query difference figure


def baseline_summary(results: pd.DataFrame, baseline: str, alpha: float = 0.05
                     ) -> pd.DataFrame:
    """Per run and measure: mean over queries, difference to the baseline over
    the shared queries, wins/losses/ties, paired t p-value and its Holm
    correction over the runs compared with the baseline (per measure); see
    :func:`irpref.report.baseline.baseline_table`.

    Columns: measure, run, n, paired, mean, diff, wins, losses, ties, p, p_holm,
    significant, marker (▲ better / ▼ worse than the baseline, better as the
    measure's record says: a smaller ASL is better).
    """
    from irpref.report.baseline import baseline_table

    table = baseline_table(results, baseline, test="t", correction="holm", alpha=alpha)
    table = table.rename(columns={"p_adjusted": "p_holm"})
    return table[["measure", "run", "n", "paired", "mean", "diff", "wins", "losses", "ties",
                  "p", "p_holm", "significant", "marker"]]


def _summary_table(summary: pd.DataFrame, baselines: Sequence[str]) -> pd.DataFrame:
    """Run x measure table of means; a significant difference gets its marker,
    ▲ (better) or ▼ (worse), as the summary rows oriented it. With several
    baselines each mark carries the baseline's letter (▲a ▼b)."""
    tags = _tags(baselines)
    cells: dict = {}
    for rec in summary.itertuples(index=False):
        cell = cells.setdefault(rec.run, {}).setdefault(rec.measure, [f"{rec.mean:.4f}"])
        tag = tags[rec.baseline]
        if rec.run == rec.baseline:
            cell.append(f"(baseline{' ' + tag if tag else ''})")
        elif rec.marker:
            cell.append(f"{rec.marker}{tag}")
    cells = {r: {m: " ".join(parts) for m, parts in row.items()} for r, row in cells.items()}
    return pd.DataFrame.from_dict(cells, orient="index").rename_axis("run").reset_index()


def _tags(baselines: Sequence[str]) -> dict[str, str]:
    """'' for a single baseline, else a, b, c, ... (aa, ab, ... past 26)."""
    if len(baselines) == 1:
        return {baselines[0]: ""}
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {b: (letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26])
            for i, b in enumerate(baselines)}


def _direction(measures: Sequence[str]) -> str:
    """``direction_note`` as a clause joined with ``"; "`` (or nothing)."""
    note = direction_note(measures)
    return f"; {note}" if note else ""


DEGRADE_FRACTIONS = (0.3, 0.6, 0.9)
DEGRADE_SAMPLES = 3  # cheap: 9 pairwise comparisons of RR and sgnLP


def build_report(qrels, runs: Sequence, measures: Sequence[str] | None = None, *,
                 baseline: str | Sequence[str] | None = None, rel: int = 1,
                 preferences: Sequence[str] = PREFERENCES, alpha: float = 0.05,
                 title: str = "irpref report", missing: str = "skip",
                 judged=None, use_tag: bool = False, trust=None, qrels_b=None,
                 settings=None, judged_only: bool = False) -> Report:
    """Evaluate ``runs`` and assemble the report's sections (see module doc).

    ``baseline`` is a run name or several (default: the first run; a run's file
    also names it); an unknown name is a :class:`irpref.errors.UsageError`
    naming the runs. The summary marks each run against every baseline, and
    "How sure are we" (:mod:`irpref.report.trust`) tests it with ``trust``
    (:class:`irpref.report.trust.TrustOptions`: correction, family,
    confidence, bootstrap, seed, beta; default as ``irpref significance``).
    ``qrels_b``: a second set of qrels; adds "Agreement between the two
    judgments" (:func:`irpref.report.judgments.agreement_section`; needs the
    run files, not ``judged``). ``missing``: queries a
    run lacks, the rule of :func:`irpref.evaluate` and :func:`irpref.compare`
    (``skip``: runs are compared on the queries both have; ``zero``).
    ``judged``: judged rankings already read (e.g. saved by ``irpref judge``)
    instead of ``qrels`` and ``runs``; the ties section, which judges the runs
    again with tied scores averaged, then says it needs the files. ``use_tag``:
    runs named by their tag column.
    """
    import irpref.progress as progress
    from irpref.measures import parse_measures
    from irpref.params import Settings
    from irpref.preferences import parse_preferences
    from irpref.report.trust import TrustOptions

    settings = Settings.resolve(settings, rel=rel, missing=missing, use_tag=use_tag,
                                judged_only=judged_only)
    rel, missing, use_tag = settings.rel, settings.missing, settings.use_tag
    # canonical names, modifiers applied (--judged-only: AP(judged_only=true)): every
    # table is labelled and matched by them
    measures = [str(m) for m in parse_measures(measures or DEFAULT_MEASURES,
                                               judged_only=settings.judged_only)]
    preferences = [str(p) for p in parse_preferences(preferences,
                                                     judged_only=settings.judged_only)]
    if qrels_b is not None and judged is not None:
        from irpref.errors import UsageError

        raise UsageError("--qrels-b needs QRELS RUN... (the runs are judged again under it), "
                         "not a file saved by irpref judge")
    bar = progress.bar(9 + (qrels_b is not None), "report", "step")  # one step per section
    try:
        return _build(qrels, runs, measures, baseline, rel, preferences, alpha, title, bar,
                      missing, judged, use_tag, trust or TrustOptions(), qrels_b,
                      settings.judged_only)
    finally:
        bar.close()


def _resolve(baseline, names: list[str], runs) -> list[str]:
    """The baselines as run names (a run's file names it too), without repeats."""
    from irpref.errors import UsageError

    given = [str(r) for r in runs or []] if not isinstance(runs, (str, os.PathLike)) else []
    wanted = ([names[0]] if baseline is None else
              [baseline] if isinstance(baseline, (str, os.PathLike)) else list(baseline))
    out = []
    for b in map(str, wanted):
        if b not in names and b in given and len(given) == len(names):
            b = names[given.index(b)]  # the baseline named by its file
        elif b not in names:
            raise UsageError(f"--baseline {b!r} is not one of the runs: {', '.join(names)}")
        out.append(b)
    return list(dict.fromkeys(out))


def _build(qrels, runs, measures, baseline, rel, preferences, alpha, title, bar,
           missing, judged, use_tag, trust, qrels_b, judged_only) -> Report:
    from irpref.compare import compare
    from irpref.evaluate import evaluate, judge_inputs
    from irpref.report import plots
    from irpref.stats import significance

    name_b = None
    if qrels_b is not None:  # read first: a bad file stops the report before any work
        from irpref.io.frames import as_qrels
        from irpref.report.judgments import _name

        name_b, qrels_b = _name(qrels_b), as_qrels(qrels_b)
    saved = judged is not None
    if not saved:
        judged = judge_inputs(qrels, runs, rel=rel, ties="docid", use_tag=use_tag)
    results = evaluate(None, None, measures, judged=judged, missing=missing)
    names = [str(r) for r in pd.unique(results["run"])]
    baselines = _resolve(baseline, names, runs)
    baseline = baselines[0]  # per-query views and search-length changes are against it
    bar.update()
    sections: list[Section] = []
    many = len(names) > plots.MANY  # compact layouts, folded tables
    labels = plots.abbreviate(names)  # one set of short names for every figure

    def short(frame: pd.DataFrame, *cols: str) -> pd.DataFrame:
        """``frame`` with run names replaced by their labels (figures only)."""
        out = frame.copy()
        for col in cols:
            out[col] = out[col].astype(str).map(labels)
        return out

    short_results = short(results, "run")
    base = labels[baseline]

    from irpref.report.trust import CORRECTION_TEXT, FAMILY_TEXT, summary_rows, trust_rows

    sure = trust_rows(results, baselines, alpha, trust) if len(names) >= 2 else None
    summary = summary_rows(results, sure, baselines)
    means = _summary_table(summary, baselines)
    caption = "Means"
    ranked = next((m for m in measures if sign_of(m) != 0), None)
    if many and ranked is not None:  # best first by the first ranked measure
        first = summary[(summary["measure"] == ranked)
                        & (summary["baseline"] == baseline)].set_index("run")["mean"]
        key = -sign_of(ranked) * first.loc[means["run"]].to_numpy()
        means = means.iloc[np.argsort(key, kind="stable")]
        means.insert(0, "rank", np.arange(1, len(means) + 1))
        caption = f"Means, best {ranked} first ({better_word(sign_of(ranked))})"
    several = len(baselines) > 1
    stats = summary[summary["run"] != summary["baseline"]][
        ["measure", "run", *(["baseline"] if several else []), "n", "paired", "diff", "wins",
         "losses", "ties", "p", "p_adjusted", "significant"]]
    if several:
        tags = _tags(baselines)
        whom = ("the baselines " + ", ".join(f"{tags[b]} = {b}" for b in baselines)
                + " (▲a: better than baseline a)")
    else:
        whom = f"the baseline {baseline}"
    sections.append(Section(
        "summary", "Summary against the baseline" + ("s" if several else ""),
        f"Mean of each measure per run; ▲/▼ marks a run significantly better/worse than "
        f"{whom} (paired t test over the queries both have, p adjusted by "
        f"{CORRECTION_TEXT[trust.correction]} over the runs x baselines of "
        f"{FAMILY_TEXT[trust.family]}, "
        f"alpha = {alpha:g}){_direction(measures)}, reported as Sakai "
        "recommends (Statistical reform in IR?, SIGIR Forum 2014).",
        [Block("table", caption, table=means.reset_index(drop=True)),
         Block("details", "Differences, wins/losses/ties and p-values", open=not many,
               children=[Block("table", table=stats.reset_index(drop=True))])]))

    bar.update()
    if sure is not None:
        from irpref.report.trust import trust_section

        sections.append(trust_section(sure, results, short, many))
    bar.update()
    per_query = []
    for m in measures:
        figs = []
        others = [labels[r] for r in names if r != baseline]
        step = len(others) if many else CHUNK  # many runs: one heatmap of all of them
        for start in range(0, len(others), max(step, 1)):
            chosen = [base, *others[start:start + step]]
            part = short_results[short_results["run"].isin(chosen)]
            figs.append(Block("figure", f"{m}: differences to {baseline} "
                              f"(runs {start + 1}-{min(start + step, len(others))})",
                              png=_png(plots.differences(part, base, m))))
        figs.append(Block("figure", f"{m}: per-query distributions",
                          png=_png(plots.distributions(short_results, m))))
        per_query.append(Block("details", m, children=figs, open=not many))
    sections.append(Section(
        "per-query", "Per-query views",
        "Sorted per-query differences to the baseline and the distribution of per-query "
        "values of each run, which a mean hides (Sakai, SIGIR Forum 2014).", per_query))

    bar.update()
    prefs = compare(None, None, list(preferences), judged=judged, missing=missing)
    pref_blocks = []
    for p in preferences:
        fig = plots.preference_heatmap(short(prefs, "run_a", "run_b"), p)
        full = {v: k for k, v in labels.items()}
        order = [full[r] for r in fig.irpref_data.attrs["ordering"]]
        ordering = Block("table", f"{p} system ordering (mean win rate)", table=pd.DataFrame(
            {"rank": np.arange(1, len(order) + 1), "label": [labels[r] for r in order],
             "run": order}))
        pref_blocks.append(Block("details", f"{p}: preference matrix and system ordering",
                                 open=not many, children=[
            Block("figure", f"{p} mean preferences", png=_png(fig), wide=many),
            Block("details", f"{p} system ordering", open=not many, children=[ordering])
            if many else ordering]))
    sections.append(Section(
        "preferences", "Preferences and system orderings",
        "Mean per-query preferences between runs, rows over columns, and the ordering by mean "
        "win rate: sgnLP is lexicographic precision (Diaz, SIGIR 2023), RPP the recall-paired "
        "preference (Diaz & Ferraro, SIGIR 2022).", pref_blocks))

    bar.update()
    if len(names) >= 2:
        power = plots.discriminative_data([results, prefs], tests=["paired", "sign"],
                                          alpha=alpha)
        sig = significance([results, prefs], test="paired", correction="holm", bootstrap=0)
        sig_view = sig[["measure", "test", "run_a", "run_b", "mean", "p", "p_adjusted"]]
        if many:  # 4950 pairs per measure: a matrix per measure, not a table
            pairs = [Block("details", f"{m}: which pairs differ", open=False, children=[
                Block("figure", f"{m}: significant differences", wide=True,
                      png=_png(plots.significance_matrix(short(sig, "run_a", "run_b"), m,
                                                         alpha)))])
                for m in pd.unique(sig["measure"])]
            pairs.append(Block("text", f"The table of all {len(sig)} pairs (mean = a - b): "
                               "irpref significance QRELS RUN... --test paired."))
        else:
            pairs = [Block("details", "All pairs (mean = a - b)", open=False,
                           children=[Block("table", table=sig_view.reset_index(drop=True))])]
        sections.append(Section(
            "significance", "Significance and discriminative power",
            "Share of run pairs each measure separates at alpha = "
            f"{alpha:g} with paired tests and Holm correction, i.e. discriminative power "
            "(Sakai, SIGIR 2006; as in Diaz, SIGIR 2023, Table 3).",
            [Block("figure", "Discriminative power",
                   png=_png(plots.discriminative_bars(power))),
             Block("table", "Discriminative power", table=power), *pairs]))

    bar.update()
    if saved:
        sections.append(Section(
            "ties", "Ties", "Tie effects need the runs judged again with tied scores "
            "averaged (McSherry & Najork, ECIR 2008).",
            [Block("text", "Not shown for saved judged rankings: irpref report QRELS RUN... "
                   "or irpref ties QRELS RUN... shows them.")]))
    else:
        _ties_section(sections, qrels, runs, measures, rel, judged, many, short, use_tag)

    bar.update()
    from irpref.report.judgments import agreement_section, coverage_section

    sections.append(coverage_section(judged, missing, many=many))
    bar.update()
    if qrels_b is not None:
        sections.append(agreement_section(qrels, qrels_b, runs, measures, rel=rel,
                                          missing=missing, alpha=alpha, use_tag=use_tag,
                                          many=many, name_b=name_b))
        bar.update()
    from irpref.asl import search_lengths
    sl = search_lengths(judged=judged)
    sl_data = plots.search_length_data(sl)
    sl_mean = sl_data.groupby("run", sort=False)["search_length"].agg(
        ["count", "mean", "median"]).reset_index()
    changed = [r for r in names if r != baseline]
    change_title = f"Per-item change against {baseline} (Fig. 6)"
    if many:  # the two runs with the shortest and the two with the longest mean
        ranked = [r for r in sl_mean.sort_values("mean", kind="stable")["run"]
                  if r != baseline]
        changed = list(dict.fromkeys(ranked[:2] + ranked[-2:]))
        change_title += (", for the two runs with the shortest and the two with the "
                         "longest mean search length")
    sections.append(Section(
        "search-lengths", "Search lengths",
        "Distribution of the atomized search length of every retrieved relevant item per run "
        "(Alex, Hall & Metzler, Atomized Search Length, 2022, Figs. 5-6).",
        [Block("figure", "Search-length distributions",
               png=_png(plots.search_length_distributions(short(sl, "run")))),
         Block("details", "Per-item search lengths", open=not many,
               children=[Block("table", table=sl_mean)]),
         Block("details", change_title, open=not many, children=[
             Block("figure", f"{r} vs {baseline}: search-length change",
                   png=_png(plots.search_length_change(short(sl, "run"), labels[r], base)))
             for r in changed])]))
    bar.update()
    if len(names) >= 2:
        from irpref.measures.names import canonical_name
        from irpref.meta.degradation import degrade

        # by canonical names: degrade matches its tables by the names it is given
        curves = degrade(measures=[canonical_name("RR", judged_only=judged_only),
                                   canonical_name("sgnLP", "preference",
                                                  judged_only=judged_only)],
                         fractions=DEGRADE_FRACTIONS,
                         samples=DEGRADE_SAMPLES, seed=0, judged=judged)
        sections.append(Section(
            "robustness", "Robustness to missing labels",
            f"Ties, sign agreement and Kendall's tau with the full-label comparisons as a "
            f"fraction of relevance labels is removed ({DEGRADE_SAMPLES} seeded samples per "
            "point, mean ± 1 sd shaded), after Diaz, lexiprecision (2023), Fig. 8a.",
            [Block("figure", "Label degradation", png=_png(plots.meta_curves(curves))),
             Block("details", "Degradation table", open=False,
                   children=[Block("table", table=curves)])]))
    return Report(title, names, measures, baseline, sections, labels, baselines)


def _ties_section(sections, qrels, runs, measures, rel, judged, many, short,
                  use_tag: bool) -> None:
    """Means under docid tie-breaking against their expected values (the runs
    judged again with ``ties="expected"``)."""
    from irpref.evaluate import judge_inputs
    from irpref.report import plots

    expected = judge_inputs(qrels, runs, rel=rel, ties="expected", use_tag=use_tag)
    ties = plots.tie_data(None, None, measures, rel=rel,
                          judged={"docid": judged, "expected": expected})
    sections.append(Section(
        "ties", "Ties",
        "Mean of each measure with trec_eval's docid tie-break against its expected value "
        "over all orderings of tied items (McSherry & Najork, ECIR 2008).",
        [Block("figure", "Tie effects", png=_png(plots.tie_effects(short(ties, "run")))),
         Block("details", "Means by tie policy", open=not many,
               children=[Block("table", table=ties)])]))


# --- rendering -------------------------------------------------------------------------

CSS = """
body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#111;background:#fff}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #999;margin-top:1.6em}
p.what{color:#333;font-style:italic}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
th,td{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#eee}td:first-child,th:first-child,td.t,th.t{text-align:left}
img{max-width:100%;height:auto;display:block;margin:.5em 0}
tbody tr:nth-child(even){background:#f4f4f4}thead th{position:sticky;top:0}
div.wide{overflow:auto;max-height:95vh;border:1px solid #ccc}div.wide img{max-width:none}
div.rows{overflow:auto;max-height:70vh}
details{margin:.4em 0 .8em 0}summary{cursor:pointer;font-weight:bold}
nav a{margin-right:1em}
"""


def _html_block(b: Block) -> str:
    if b.kind == "table":
        cap = f"<h3>{html.escape(b.title)}</h3>" if b.title else ""
        table = _html_table(b.table)
        if len(b.table) > 30:  # a long table scrolls in place, its header stays
            table = f'<div class="rows">{table}</div>'
        return cap + table
    if b.kind == "figure":
        data = base64.b64encode(b.png).decode("ascii")
        alt = html.escape(b.title, quote=True)
        img = f'<img alt="{alt}" src="data:image/png;base64,{data}">'
        if b.wide:
            img = f'<div class="wide">{img}</div>'
        return f"<figure>{img}</figure>"
    if b.kind == "details":
        inner = "".join(_html_block(c) for c in b.children)
        return (f"<details{' open' if b.open else ''}><summary>{html.escape(b.title)}"
                f"</summary>{inner}</details>")
    return f"<p>{html.escape(b.title)}</p>"


def _key_table(report: Report) -> pd.DataFrame | None:
    """label -> run for the names the figures abbreviate (None when none is)."""
    pairs = [(s, r) for r, s in report.labels.items() if s != r]
    return pd.DataFrame(pairs, columns=["label", "run"]) if pairs else None


def _baseline_words(report: Report, bold) -> str:
    """``baseline X`` or ``baselines X, Y`` with each name through ``bold``."""
    names = report.baselines or [report.baseline]
    return f"baseline{'s' if len(names) > 1 else ''} " + ", ".join(bold(n) for n in names)


def render_html(report: Report) -> str:
    nav = "".join(f'<a href="#{s.id}">{html.escape(s.title)}</a>' for s in report.sections)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(report.title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{html.escape(report.title)}</h1>",
        f"<p>{len(report.runs)} runs, measures {html.escape(', '.join(report.measures))}, "
        f"{_baseline_words(report, lambda t: '<b>' + html.escape(t) + '</b>')}."
        + (f" Runs: {html.escape(', '.join(report.runs))}." if len(report.runs) <= 15 else "")
        + f"</p><nav>{nav}</nav>",
    ]
    key = _key_table(report)
    if key is not None:
        parts.append(_html_block(Block("details", "Run labels used in the figures",
                                       open=True, children=[Block("table", table=key)])))
    for s in report.sections:
        parts.append(f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>'
                     f'<p class="what">{html.escape(s.sentence)}</p>')
        parts.extend(_html_block(b) for b in s.blocks)
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _atomic_write(path: Path, data: bytes) -> None:
    path = Path(path)
    if path.exists() and not path.is_file():
        # a device or FIFO is written in place: a file renamed over it would replace it
        path.write_bytes(data)
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_html(report: Report, path) -> None:
    """Write the report as one self-contained HTML file (temp name, then rename)."""
    _atomic_write(Path(path), render_html(report).encode("utf-8"))


def write_markdown(report: Report, path) -> list[Path]:
    """Write Markdown to ``path`` and its figures as PNG files beside it
    (``<stem>_figNN.png``); returns the figure paths."""
    path = Path(path)
    figures: list[Path] = []
    out = [f"# {report.title}", "",
           f"{len(report.runs)} runs, measures {', '.join(report.measures)}, "
           f"{_baseline_words(report, lambda t: '**' + t + '**')}. "
           f"Runs: {', '.join(report.runs)}.", ""]
    key = _key_table(report)
    if key is not None:
        out.extend(["Run labels used in the figures:", "", _md_table(key), ""])

    def emit(b: Block, level: int) -> None:
        if b.kind == "table":
            if b.title:
                out.extend([f"{'#' * level} {b.title}", ""])
            out.extend([_md_table(b.table), ""])
        elif b.kind == "figure":
            name = f"{path.stem}_fig{len(figures) + 1:02d}.png"
            target = path.parent / name
            _atomic_write(target, b.png)
            figures.append(target)
            out.extend([f"![{b.title}]({name})", ""])
        elif b.kind == "details":
            out.extend([f"{'#' * level} {b.title}", ""])
            for c in b.children:
                emit(c, level + 1)
        else:
            out.extend([b.title, ""])

    for s in report.sections:
        out.extend([f"## {s.title}", "", f"*{s.sentence}*", ""])
        for b in s.blocks:
            emit(b, 3)
    _atomic_write(path, "\n".join(out).encode("utf-8"))
    return figures
