"""Every document-id shape: keys order as the strings, dense codes are exact
(with and without a hashing order of blocks), and the docid tie-break equals Python's
sort by (score desc, docid desc)."""

from __future__ import annotations

import random
import uuid

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from irpref.io.frames import as_qrels, as_runs
from irpref.judging.doc_keys import document_ids, sorted_codes
from irpref.judging.interning import intern
from irpref.judging.ranking import judge
from irpref.runtime import threads as pools


def _shapes(rng: random.Random, n: int) -> dict[str, list[str]]:
    ids = rng.sample(range(60_000_000), n)
    robust = [
        f"FBIS{3 + i % 2}-{i % 99999}" if i % 4 == 0
        else f"LA{1 + i % 12:02d}{1 + i % 28:02d}89-{i % 10000:04d}" if i % 4 == 1
        else f"FT9{i % 5}{i % 400}-{i % 9999}" if i % 4 == 2
        else f"FR94{i % 12 + 1:02d}{i % 28 + 1:02d}-{i % 3}-{i % 100000:05d}"
        for i in ids
    ]
    return {
        "clueweb": [f"clueweb12-{i // 100000:04d}tw-{i // 1000 % 100:02d}-{i % 100000:05d}"
                    for i in ids],
        "msmarco1": [str(i % 8_841_823) for i in ids],
        "msmarco2": [f"msmarco_passage_{i % 70:02d}_{i // 70 * 4099 + i % 4099}" for i in ids],
        "robust": robust,
        "uuid": [str(uuid.UUID(int=rng.getrandbits(128))) for _ in ids],
        "url": [f"https://www.site{i % 5000}.example.com/doc{i}/" + "x" * (i % 90) for i in ids],
    }


SHAPES = sorted(_shapes(random.Random(0), 10))


@pytest.mark.parametrize("shape", SHAPES)
def test_keys_order_as_strings_and_codes_exact(shape):
    strings = _shapes(random.Random(1), 400)[shape]
    rng = random.Random(2)
    arrays = [pa.array(rng.sample(strings, 300)) for _ in range(4)]
    n = sum(len(a) for a in arrays)
    blocks = np.array([[a, min(a + 37, n)] for a in range(0, n, 37)][::-1], np.int64)
    exact_codes, exact_docs = sorted_codes(pa.chunked_array(arrays))
    assert exact_docs.to_pylist() == sorted(set(exact_docs.to_pylist()), key=str.encode)
    ids = document_ids(arrays, lambda: blocks)
    flat = [s for a in arrays for s in a.to_pylist()]
    keys = ids.keys
    for i, j in zip(rng.choices(range(n), k=2000), rng.choices(range(n), k=2000)):
        a, b = flat[i].encode(), flat[j].encode()
        assert (keys[i] < keys[j]) == (a < b) and (keys[i] == keys[j]) == (a == b)
    assert ids.strings.to_pylist() == exact_docs.to_pylist()
    assert ids.codes(ids.keys).tolist() == exact_codes.tolist()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", SHAPES)
def test_docid_tie_break_as_python_sort(shape, threads, monkeypatch):
    monkeypatch.setenv("IRPREF_THREADS", str(threads))
    monkeypatch.setattr(pools, "available_cpus", lambda: 8)
    monkeypatch.setattr(pools, "PARALLEL_MIN", 0 if threads > 1 else 1 << 20)
    rng = random.Random(5)
    docs = _shapes(rng, 60)[shape]
    queries = [f"q{k}" for k in range(6)]
    qrels = [(q, d, rng.choice([0, 1, 2])) for q in queries for d in rng.sample(docs, 15)]
    rows, expected = [], {}
    for r in range(3):
        for q in queries:
            picked = rng.sample(docs, 30)
            scores = [float(rng.choice([1, 2, 3])) for _ in picked]  # heavy ties
            rows += [(f"run{r}", q, d, s) for d, s in zip(picked, scores)]
            ranked = sorted(zip(scores, picked), key=lambda t: (t[0], t[1].encode()), reverse=True)
            expected[f"run{r}", q] = [d for _, d in ranked]


    qdf = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame(rows, columns=["run", "query_id", "doc_id", "score"])
    runs = [rdf[rdf.run == f"run{r}"].drop(columns="run") for r in range(3)]
    coll = intern(as_qrels(qdf), as_runs({f"run{r}": runs[r] for r in range(3)}))
    j = judge(coll, ties="docid")
    strings = j.docs.to_pylist()
    code = j.doc
    for r, name in enumerate(j.run_names):
        for qi, q in enumerate(j.queries):
            s = r * j.n_queries + qi
            got = [strings[c] for c in code[j.offsets[s] : j.offsets[s + 1]]]
            assert got == expected[name, q]
