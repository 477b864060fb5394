"""The ``irpref trec_eval`` back end: trec_eval 10.0's command line, read and printed byte for byte.

- :mod:`~irpref.trec_eval.params`: its ``-m measure.params`` and number parsing;
- :mod:`~irpref.trec_eval.zscores`: the ``-Z`` z-score file;
- :mod:`~irpref.trec_eval.judgments`: the ``-R prefs`` / ``qrels_prefs`` / ``qrels_jg`` judgments;
- :mod:`~irpref.trec_eval.format`: the measures' values printed as trec_eval prints them;
- :mod:`~irpref.trec_eval.run`: one invocation, from the files to the printed lines.
"""
