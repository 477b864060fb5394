"""The optional C extensions, one per concern, each named after its source files.

- ``kernels`` (kernels.c, kernels_nct.c): the randomized Tukey HSD inner loops,
  the residual-bound scans and the noncentral t solver;
- ``prefs`` (prefs.c): the recall-paired preference sums;
- ``strings`` (strings.c): hashing, numbering and sorting of document ids;
- ``scan`` (scan.c, scan_qrels.c): a TREC run file parsed, checked and judged in
  one pass, and a TREC qrels file read and indexed in one pass.

Nothing imports them directly: :func:`irpref.runtime.native.native` loads one,
or returns None (not built, or switched off), and every caller has a NumPy /
Arrow path that gives the same numbers.
"""
