"""The judging engine: from qrels and runs to judged rankings, the arrays every measure reads.

- :mod:`~irpref.judging.doc_keys`: document ids numbered to integer keys;
- :mod:`~irpref.judging.interning`: a collection's queries and documents interned once;
- :mod:`~irpref.judging.judged`: :class:`~irpref.judging.judged.JudgedRankings`, the layout;
- :mod:`~irpref.judging.ranking`: ranking each run's items (ties, depth) and judging them;
- :mod:`~irpref.judging.condense`: judged rankings with the unjudged items dropped;
- :mod:`~irpref.judging.scan`: a TREC run file parsed, checked and judged in one C pass;
- :mod:`~irpref.judging.store`: judged rankings saved to a file and loaded back.
"""
