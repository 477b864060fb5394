"""Build the optional C extension irpref._kernels (the HSD inner loops).

Everything else is declared in pyproject.toml. The extension is optional: if
it fails to compile, the install goes on and irpref.stats uses its NumPy
kernels, which give the same numbers.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "irpref._kernels",
            sources=["src/irpref/_kernels.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
