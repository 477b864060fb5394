"""Build the optional C helpers (everything else is in pyproject.toml).

The extensions are ``optional``: without a C compiler irpref installs and
runs on its NumPy code paths, with the same results.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "irpref._strings",
            ["src/irpref/_strings.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
    ]
)
