"""The report's section on machine and human labels: per run and measure, the
prediction-powered (PPI++) estimate with its interval next to the human-only
mean with its t interval and the machine-only mean, as a table and a figure.

It takes the plain table of :func:`irpref.llm_judged.prediction_powered.ppi_evaluate`
(columns :data:`~irpref.llm_judged.prediction_powered.EVALUATE_COLUMNS`) and draws nothing
the table does not hold: the figure's ``irpref_data`` is those rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irpref.report.blocks import Block, Section, png_of
from irpref.report.figure_kit import MANY, plain_text, pyplot

__all__ = ["interval_data", "ppi_intervals", "ppi_report_section", "ppi_section", "ppi_table"]

DRAWN = ["run", "value", "low", "high", "human", "human_low", "human_high", "machine"]


def ppi_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The section's table: the PPI and human-only intervals side by side and
    ``width_ratio`` = PPI width / human-only width (below 1: the machine labels helped)."""
    out = frame[["measure", "run", "value", "low", "high", "human", "human_low", "human_high",
                 "machine", "lambda", "n_labeled", "n_unlabeled"]].copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["width_ratio"] = ((frame["high"] - frame["low"])
                              / (frame["human_high"] - frame["human_low"])).to_numpy()
    if "note" in frame:
        out["note"] = frame["note"].to_numpy()
    return out.reset_index(drop=True)


def interval_data(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The rows of ``measure`` :func:`ppi_intervals` draws (columns :data:`DRAWN`)."""
    rows = frame[frame["measure"].astype(str) == str(measure)]
    if rows.empty:
        raise ValueError(f"no rows for measure {measure!r}")
    return rows[DRAWN].reset_index(drop=True)


@plain_text
def ppi_intervals(frame: pd.DataFrame, measure: str):
    """One row per run: the PPI interval (black, filled square at the estimate) above the
    human-only t interval (grey, dashed, open circle), the machine-only mean as a cross."""
    plt = pyplot()
    data = interval_data(frame, measure)
    lam = frame.attrs.get("lam", "auto")
    name = "PPI++" if lam == "auto" else f"PPI (lambda {lam:g})"
    n = len(data)
    fig, ax = plt.subplots(figsize=(6.4, (0.13 if n > MANY else 0.34) * n + 1.6))
    y = np.arange(n, dtype=np.float64)
    ax.hlines(y - 0.17, data["low"], data["high"], color="black", linewidth=1.6)
    ax.scatter(data["value"], y - 0.17, marker="s", s=28, color="black", zorder=3,
               label=f"{name} estimate and interval")
    ax.hlines(y + 0.17, data["human_low"], data["human_high"], color="0.45", linewidth=1.2,
              linestyles="dashed")
    ax.scatter(data["human"], y + 0.17, marker="o", s=26, facecolor="white", edgecolor="0.3",
               zorder=3, label="human labels only (t interval)")
    ax.scatter(data["machine"], y, marker="x", s=26, color="0.2", zorder=3,
               label="machine labels only")
    ax.set_yticks(y, [str(r) for r in data["run"]], fontsize=7)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlabel(str(measure), fontsize=8)
    ax.grid(axis="x", color="#dddddd", linewidth=0.5)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.4 / n),
              ncol=3, frameon=False)
    ax.set_title(f"{measure}: prediction-powered and human-only intervals", fontsize=9)
    fig.tight_layout()
    fig.irpref_data = data
    return fig


def ppi_section(frame: pd.DataFrame, *, human_source: str, machine_source: str,
                many: bool | None = None) -> Section:
    """"Machine labels with a human sample": the table and one figure per measure."""
    many = frame["run"].nunique() > MANY if many is None else many
    a = frame.attrs
    level = a.get("confidence", 0.95)
    lam = a.get("lam", "auto")
    weight = "PPI++'s tuned weight" if lam == "auto" else f"the fixed weight lambda = {lam:g}"
    how = ("ppi_py's normal interval" if a.get("interval") == "normal" else
           "a Student t interval with Hall's skewness correction and the jackknife "
           "variance, the weight re-tuned without each human-judged query")
    figures = [Block("details", f"{m}: PPI and human-only intervals", open=not many, children=[
        Block("figure", f"{m}: PPI and human-only intervals",
              png=png_of(ppi_intervals(frame, m)))]) for m in pd.unique(frame["measure"])]
    sentence = (
        f"Machine labels ({machine_source}) on every query and human labels ({human_source}) "
        f"on a sample of them: each mean estimated by prediction-powered inference over "
        f"queries (Angelopoulos et al., Science 2023; PPI++ with {weight}: Angelopoulos, "
        f"Duchi & Zrnic, 2023), its {level:g} interval ({how}) valid however biased the "
        "machine judge is, provided the human-judged queries are a random sample and the "
        "machine labels were fixed before it; beside it the mean of the human-judged queries "
        "alone with its t interval, and the machine labels' mean over every query. "
        "width_ratio below 1: the machine labels narrowed the interval; note: what a row's "
        "interval cannot claim.")
    return Section("ppi", "Machine labels with a human sample", sentence, [
        *figures,
        Block("details", "PPI estimates and intervals per run and measure", open=not many,
              children=[Block("table", table=ppi_table(frame))])])


def ppi_report_section(ctx) -> Section | None:
    """The section of a report built with ``human_qrels`` (None without): the runs the
    report judged under its qrels (the machine labels) are judged again under the
    human labels only (:func:`irpref.llm_judged.prediction_powered.ppi_evaluate`)."""
    if ctx.human_qrels is None:
        return None
    from irpref.llm_judged.prediction_powered import ppi_evaluate
    from irpref.report.judgments import qrels_name

    o = ctx.options
    frame = ppi_evaluate(ctx.qrels, ctx.human_qrels, ctx.runs, ctx.measures, lam=o.ppi_lambda,
                         confidence=o.ppi_confidence or o.confidence, interval=o.ppi_interval,
                         settings=ctx.settings, judged=ctx.judged)
    return ppi_section(frame, human_source=qrels_name(ctx.human_qrels),
                       machine_source=qrels_name(ctx.qrels))
