"""Figures of evaluation results (matplotlib, Agg backend, imported on first use).

Every plot has a ``*_data`` function returning the tidy DataFrame drawn, and a
plot function returning a ``matplotlib.figure.Figure`` whose ``irpref_data``
attribute holds that DataFrame (tests and reports read the numbers from it).
Run names longer than ``width`` characters are abbreviated consistently
(:func:`abbreviate`); the figure then carries a key. Colours come from the
``cividis`` map (readable in greyscale and by colour-blind readers) and are
doubled with hatching, so grey prints stay legible.

Sources: per-query differences and distributions (Sakai, "Statistical reform
in information retrieval?", SIGIR Forum 2014); preference matrices and system
orderings (Diaz, "Recall, robustness and lexicographic evaluation", and
Diaz & Ferraro, "Offline retrieval evaluation without evaluation metrics"
(RPP), SIGIR 2022); search lengths (atomized search length, ASL paper
Figs. 5-6); ties (McSherry & Najork, ECIR 2008); discriminative power
(Sakai, SIGIR 2006); meta-evaluation curves of label degradation and query
subsampling (after Diaz, lexiprecision, 2023, Figs. 8-9).

The figures live in three modules by idea: :mod:`irpref.report.figure_kit`
(backend, labels, colours, layout), :mod:`irpref.report.run_plots` (runs
against runs) and :mod:`irpref.report.meta_plots` (search lengths, ties,
meta-evaluation); this module gathers them.
"""

from __future__ import annotations

from irpref.report.figure_kit import abbreviate, save
from irpref.report.meta_plots import (
    discriminative_bars,
    discriminative_data,
    meta_curve_data,
    meta_curves,
    search_length_change,
    search_length_data,
    search_length_distributions,
    tie_data,
    tie_effects,
)
from irpref.report.run_plots import (
    difference_data,
    differences,
    distribution_data,
    distributions,
    preference_data,
    preference_heatmap,
    significance_data,
    significance_matrix,
)

__all__ = [
    "abbreviate",
    "difference_data", "differences",
    "distribution_data", "distributions",
    "preference_data", "preference_heatmap",
    "search_length_data", "search_length_distributions", "search_length_change",
    "tie_data", "tie_effects",
    "significance_data", "significance_matrix",
    "discriminative_data", "discriminative_bars",
    "meta_curve_data", "meta_curves",
    "save",
]
