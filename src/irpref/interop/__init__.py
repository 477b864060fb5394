"""Interoperability with the tools IR researchers already use.

- :mod:`irpref.interop.ir_measures`: ir_measures measure objects, its
  ``iter_calc`` / ``calc_aggregate``, an ir_measures provider and runtime
  measures for PyTerrier's ``pt.Experiment``;
- :mod:`irpref.interop.ir_datasets`: qrels named ``irds:DATASET-ID``.

Every third-party package here is optional and imported only when used.
"""
