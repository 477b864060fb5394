"""Build the optional C extensions (everything else is in pyproject.toml).

- ``irpref._kernels``: the randomized Tukey HSD inner loops, the residual-bound
  scans and the noncentral t solver (irpref.stats, irpref.measures);
- ``irpref._prefs``: the recall-paired preference sums (irpref.preferences);
- ``irpref._strings``: hashing, numbering and sorting of document ids of any
  shape (irpref.judged);
- ``irpref._scan``: a TREC run file parsed, checked and judged in one pass,
  and a TREC qrels file read and indexed in one pass (irpref.scan).

All are optional: if one fails to compile, the install goes on and irpref
uses its NumPy / Arrow code paths, which give the same numbers.
``IRPREF_NO_EXTENSIONS=1`` builds none of them (a pure-Python wheel), the way
the NumPy fallback is tested (scripts/release-check.sh).
"""

import os

from setuptools import Extension, setup

NO_EXTENSIONS = os.environ.get("IRPREF_NO_EXTENSIONS", "").strip() not in ("", "0")

EXTENSIONS = [
    Extension(
        "irpref._kernels",
        sources=["src/irpref/_kernels.c", "src/irpref/_nct.c"],
        depends=["src/irpref/_nct.h"],
        extra_compile_args=["-O3"] if os.name != "nt" else ["/O2"],
        optional=True,
    ),
    Extension(
        "irpref._prefs",
        sources=["src/irpref/_prefs.c"],
        extra_compile_args=["-O3"] if os.name != "nt" else ["/O2"],
        optional=True,
    ),
    Extension(
        "irpref._strings",
        sources=["src/irpref/_strings.c"],
        depends=["src/irpref/_hash.h", "src/irpref/_sort.h"],
        extra_compile_args=["-O3"] if os.name != "nt" else ["/O2"],
        optional=True,
    ),
    Extension(
        "irpref._scan",
        sources=["src/irpref/_scan.c", "src/irpref/_qrels.c"],
        depends=["src/irpref/_hash.h", "src/irpref/_lex.h", "src/irpref/_scan.h",
                 "src/irpref/_sort.h"],
        extra_compile_args=["-O3"] if os.name != "nt" else ["/O2"],
        optional=True,
    ),
]

setup(ext_modules=[] if NO_EXTENSIONS else EXTENSIONS)
