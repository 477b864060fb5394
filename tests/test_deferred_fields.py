"""Fields computed when first read are the fields computed at once.

Compact judged rankings (and the qrels the C pass reads from a file) defer the
query strings and the document keys (:class:`irpref.judging.interning.Deferred`): an
evaluation at the recommendation shape reads neither. Read, they must be what
the full layout holds for the same items (the document of every kept item, the
queries, the qrels' documents), whichever pass judged the runs; and a copy
(``dataclasses.replace``, pickling, ``irpref.judging.store``) holds every field.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest
from environment import setenv

from irpref.evaluate import judge_inputs
from irpref.judging import store
from irpref.judging.judged import NONPOOL
from irpref.judging.scan import ENV


def _strings(judged, keys: np.ndarray) -> list[str]:
    ids = judged.doc_ids
    return ids.strings.take(ids.codes(keys)).to_pylist()


@pytest.fixture(params=["c", "python"])
def both(request, data_dir):
    """(full, compact) judged rankings of the trec_eval sample, the compact one
    by the C pass or by the Python reader."""
    qrels = str(data_dir / "trec_eval" / "qrels.test")
    run = str(data_dir / "trec_eval" / "results.test")
    full = judge_inputs(qrels, [run])
    with setenv(ENV, request.param):
        compact = judge_inputs(qrels, [run], layout="compact")
    return full, compact


def test_nothing_is_computed_before_it_is_read(both):
    _, compact = both
    assert not {"queries", "doc_key", "qrels_doc_key", "doc_ids"} & set(vars(compact))


def test_deferred_fields_are_the_full_layouts(both):
    full, compact = both
    kept = np.flatnonzero(full.grade != NONPOOL)
    assert _strings(compact, compact.doc_key) == _strings(full, full.doc_key[kept])
    assert list(compact.queries) == list(full.queries)
    assert compact.query_ids.to_pylist() == list(full.queries)
    assert _strings(compact, compact.qrels_doc_key) == _strings(full, full.qrels_doc_key)
    assert np.array_equal(compact.grade, full.grade[kept])
    assert np.array_equal(compact.item_rank, full.rank[kept])


def test_copies_hold_every_field(both, tmp_path):
    _, compact = both
    for copy in (dataclasses.replace(compact, condensed=False),
                 pickle.loads(pickle.dumps(compact))):
        for f in dataclasses.fields(compact):
            a, b = getattr(copy, f.name), getattr(compact, f.name)
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, b), f.name
        assert copy.query_ids.to_pylist() == compact.query_ids.to_pylist()
    path = tmp_path / "judged.parquet"
    store.save(compact, path)
    loaded = store.load(path)
    assert _strings(loaded, loaded.doc_key) == _strings(compact, compact.doc_key)
    assert list(loaded.queries) == list(compact.queries)
