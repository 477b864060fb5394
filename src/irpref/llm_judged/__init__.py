"""Evaluation with judgments made by a model (an LLM judge) beside some made by people.

- :mod:`~irpref.llm_judged.agreement`: how far the model's labels, and the system
  orderings they give, agree with the people's (``irpref agree``);
- :mod:`~irpref.llm_judged.ppi`: prediction-powered inference (Angelopoulos et al.
  2023), the estimator and its intervals; :mod:`~irpref.llm_judged.ppi_checks`, their notes;
- :mod:`~irpref.llm_judged.prediction_powered`: evaluate, significance and design with
  the people's judgments of a few queries correcting the model's (``--human-qrels``).
"""
