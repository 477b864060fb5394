"""Qrels named ``irds:DATASET-ID``, loaded through ir_datasets (``pip install 'irpref[irds]'``).

``irpref evaluate irds:msmarco-passage/trec-dl-2019/judged RUN...`` and
``read_qrels("irds:msmarco-passage/trec-dl-2019/judged")`` read the dataset's
qrels (``query_id, doc_id, relevance``; ir_datasets downloads them once into
its cache, ``IR_DATASETS_HOME``). :func:`irpref.io.read_qrels` dispatches here
for any path starting with ``irds:`` (this module registers itself in
:data:`irpref.io.trec.QRELS_SOURCES`; ``import irpref`` imports it). Errors:
ir_datasets not installed, an unknown dataset or one without qrels is a
:class:`~irpref.errors.UsageError` (CLI exit 2); qrels ir_datasets cannot
fetch or read are an :class:`~irpref.errors.InputError` (exit 1).
"""

from __future__ import annotations

from irpref.errors import InputError, UsageError
from irpref.io.trec import QRELS_SOURCES

__all__ = ["PREFIX", "is_irds", "load_qrels"]

PREFIX = "irds:"


def is_irds(path: object) -> bool:
    """True for a qrels name ``irds:DATASET-ID``."""
    return isinstance(path, str) and path.startswith(PREFIX)


def load_qrels(name: str):
    """The qrels of the ir_datasets dataset ``name`` (``irds:DATASET-ID``) as irpref Qrels."""
    dataset_id = name[len(PREFIX):].strip()
    if not dataset_id:
        raise UsageError(f"{name!r}: name an ir_datasets dataset, e.g. "
                         "irds:msmarco-passage/trec-dl-2019/judged")
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"{name}: reading qrels from ir_datasets needs it installed: "
                         "pip install 'irpref[irds]'") from None
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise UsageError(f"{name}: unknown ir_datasets dataset {dataset_id!r} "
                         "(see https://ir-datasets.com for the ids)") from None
    if not dataset.has_qrels():
        raise UsageError(f"{name}: the ir_datasets dataset {dataset_id!r} has no qrels")
    try:
        rows = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
    except Exception as error:  # download or parse failure inside ir_datasets
        raise InputError(name, None, f"ir_datasets could not read the qrels: {error}") from None
    if not rows:
        raise InputError(name, None, "empty qrels: ir_datasets returned no judgements")
    import pandas as pd

    from irpref.io.frames import qrels_from_frame

    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    return qrels_from_frame(frame, source=name)


QRELS_SOURCES[PREFIX] = load_qrels
