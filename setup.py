"""Build the optional C extensions (everything else is in pyproject.toml).

Each is built from the C files of src/irpref/_native/ that bear its name:

- ``irpref._native.kernels``: the randomized Tukey HSD inner loops, the residual-bound
  scans and the noncentral t solver (irpref.stats, irpref.measures);
- ``irpref._native.prefs``: the recall-paired preference sums (irpref.preferences);
- ``irpref._native.strings``: hashing, numbering and sorting of document ids of any
  shape (irpref.judging.doc_keys);
- ``irpref._native.scan``: a TREC run file parsed, checked and judged in one pass,
  and a TREC qrels file read and indexed in one pass (irpref.judging.scan).

All are optional: if one fails to compile, the install goes on and irpref
uses its NumPy / Arrow code paths, which give the same numbers.
``IRPREF_NO_EXTENSIONS=1`` builds none of them (a pure-Python wheel), the way
the NumPy fallback is tested (scripts/release-check.sh).
"""

import os

from setuptools import Extension, setup

NO_EXTENSIONS = os.environ.get("IRPREF_NO_EXTENSIONS", "").strip() not in ("", "0")

NATIVE = "src/irpref/_native/"
HEADERS = [NATIVE + h for h in ("hash.h", "kernels_nct.h", "lex.h", "scan.h", "sort.h")]
COMMON = dict(depends=HEADERS, optional=True,
              extra_compile_args=["-O3"] if os.name != "nt" else ["/O2"])

EXTENSIONS = [  # irpref._native.NAME from the C files named after it
    Extension("irpref._native.kernels",
              sources=[NATIVE + "kernels.c", NATIVE + "kernels_nct.c"], **COMMON),
    Extension("irpref._native.prefs", sources=[NATIVE + "prefs.c"], **COMMON),
    Extension("irpref._native.strings", sources=[NATIVE + "strings.c"], **COMMON),
    Extension("irpref._native.scan",
              sources=[NATIVE + "scan.c", NATIVE + "scan_qrels.c"], **COMMON),
]

setup(ext_modules=[] if NO_EXTENSIONS else EXTENSIONS)
