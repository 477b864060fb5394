"""Seeded generator of a synthetic TREC collection for the benchmarks.

Writes ``qrels.txt`` and ``runs/run-NNN.txt`` (TREC format ``qid Q0 docid rank
score tag``) to an output directory (default ``benchmarks/data/``, git-ignored).

The collection mimics a deep-pooled ad hoc track:

- query ids are 6-digit numbers (as in MS MARCO), written in numeric order;
- document ids look like ClueWeb12 ids (``clueweb12-0107wb-42-18933``);
- every query has a candidate pool (default 6000 documents): about 100
  relevant ones with grades 1-3, about 250 judged non-relevant (grade 0) and
  unjudged rest; the qrels list the judged ones (grades 0-3);
- every run retrieves the top ``docs`` candidates of each query by a noisy
  score ``quality * grade + judged bias + N(0, 1)``, ranks 1..docs (run 7, 17,
  ... start at rank 0); every fourth run rounds its scores to 2 decimals and
  every tenth to 1 decimal, so tied scores are common there.

Same seed -> same bytes. Files are assembled with pyarrow string kernels, so
100 runs x 250 queries x 1000 documents (about 1.4 GB) take well under a
minute. ``--gzip`` writes ``.gz`` files instead.

Usage::

    python benchmarks/generate.py [--out DIR] [--seed 1] [--runs 100] [--queries 250]
                                  [--docs 1000] [--pool 6000] [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HERE = Path(__file__).resolve().parent


def _docids(ids: np.ndarray) -> pa.Array:
    """ClueWeb12-like document ids from integers: ``clueweb12-SSSSxx-DD-NNNNN``."""
    segment = ids // 100_000
    part = (ids // 1000) % 100
    number = (ids % 1000) * 97 + ids % 7
    letters = np.array(["tw", "wb", "wt", "tw"])[segment % 4]
    seg = pc.utf8_lpad(pc.cast(pa.array(segment), pa.string()), 4, "0")
    prt = pc.utf8_lpad(pc.cast(pa.array(part), pa.string()), 2, "0")
    num = pc.utf8_lpad(pc.cast(pa.array(number), pa.string()), 5, "0")
    return pc.binary_join_element_wise(
        pc.binary_join_element_wise("clueweb12-", seg, pa.array(letters), ""), prt, num, "-"
    )


def _lines(*columns, last_sep: str = "\n") -> bytes:
    """Join string columns with spaces, one line per row: the file's bytes."""
    *head, last = columns
    last = pc.binary_join_element_wise(last, last_sep, "")
    joined = pc.binary_join_element_wise(*head, last, " ")
    offsets = np.frombuffer(joined.buffers()[1], np.int32, len(joined) + 1, joined.offset * 4)
    return joined.buffers()[2].to_pybytes()[offsets[0] : offsets[-1]]


class Collection:
    """Candidate pools and qrels of a synthetic collection (all queries at once)."""

    def __init__(self, seed: int, n_queries: int, pool: int, docs: int) -> None:
        rng = np.random.default_rng([seed, 0])
        if pool < docs:
            raise ValueError(f"--pool ({pool}) must be at least --docs ({docs})")
        self.n_queries, self.pool = n_queries, pool
        qids = np.sort(rng.choice(np.arange(100_000, 1_000_000), n_queries, replace=False))
        self.qids = qids
        # candidate documents: disjoint random ids per query from a 60M-id corpus
        cand = rng.choice(60_000_000, size=n_queries * pool, replace=False)
        self.cand = cand.reshape(n_queries, pool)
        # judged: n_rel relevant (grades 1-3) and n_non non-relevant at the head of the pool
        n_rel = np.clip(rng.poisson(100, n_queries), 5, pool // 4)
        n_non = np.clip(rng.poisson(250, n_queries), 5, pool // 2)
        col = np.arange(pool)[None, :]
        rel = col < n_rel[:, None]
        judged = col < (n_rel + n_non)[:, None]
        grade = np.where(rel, rng.choice([1, 2, 3], p=[0.55, 0.3, 0.15], size=rel.shape), 0)
        self.grade = grade  # (Q, pool): relevance signal (0 for unjudged/non-relevant)
        self.judged = judged
        self.docids = _docids(self.cand.ravel())  # (Q*pool,) strings

    def qrels_bytes(self) -> bytes:
        q, c = np.nonzero(self.judged)
        flat = q * self.pool + c
        docids = self.docids.take(pa.array(flat))
        order = pc.sort_indices(
            pa.table({"q": q, "d": docids}), sort_keys=[("q", "ascending"), ("d", "ascending")]
        )
        qid = pc.cast(pa.array(self.qids[q]), pa.string()).take(order)
        return _lines(
            qid,
            pa.array(np.full(len(q), "0")),
            docids.take(order),
            pc.cast(pa.array(self.grade[q, c]), pa.string()).take(order),
        )

    def run_bytes(self, seed: int, r: int, docs: int) -> bytes:
        rng = np.random.default_rng([seed, 1, r])
        quality = rng.uniform(0.2, 1.5)
        bias = rng.uniform(0.0, 1.0)
        signal = quality * self.grade + bias * self.judged
        raw = signal + rng.standard_normal(self.grade.shape)
        top = np.argpartition(-raw, docs - 1, axis=1)[:, :docs]
        top_scores = np.take_along_axis(raw, top, axis=1)
        order = np.argsort(-top_scores, axis=1, kind="stable")
        top = np.take_along_axis(top, order, axis=1)
        # BM25-like positive scores with 6 decimals; some runs coarser (ties)
        scores = 10.0 + 2.0 * np.take_along_axis(top_scores, order, axis=1)
        decimals = 1 if r % 10 == 9 else 2 if r % 4 == 3 else 6
        scores = np.round(scores, decimals)
        q = np.repeat(np.arange(self.n_queries), docs)
        flat = q * self.pool + top.ravel()
        rank0 = 0 if r % 10 == 7 else 1
        ranks = np.tile(np.arange(rank0, docs + rank0), self.n_queries)
        n = len(flat)
        score_text = pc.cast(pa.array(scores.ravel()), pa.string())
        return _lines(
            pc.cast(pa.array(self.qids[q]), pa.string()),
            pa.array(np.full(n, "Q0")),
            self.docids.take(pa.array(flat)),
            pc.cast(pa.array(ranks), pa.string()),
            score_text,
            pa.array(np.full(n, f"sys{r:03d}")),
        )


def write(path: Path, data: bytes, gz: bool) -> None:
    if gz:
        data = gzip.compress(data, compresslevel=1, mtime=0)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def generate(
    out: Path,
    seed: int = 1,
    runs: int = 100,
    queries: int = 250,
    docs: int = 1000,
    pool: int = 6000,
    gz: bool = False,
    threads: int = 2,
) -> tuple[Path, list[Path]]:
    """Write the collection to ``out``; returns (qrels path, run paths)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    for old in (out / "runs").iterdir():
        old.unlink()
    suffix = ".txt.gz" if gz else ".txt"
    coll = Collection(seed, queries, pool, docs)
    qrels = out / f"qrels{suffix}"
    write(qrels, coll.qrels_bytes(), gz)
    paths = [out / "runs" / f"run-{r:03d}{suffix}" for r in range(runs)]

    def one(r: int) -> None:
        write(paths[r], coll.run_bytes(seed, r, docs), gz)

    with ThreadPoolExecutor(threads) as pool_:
        list(pool_.map(one, range(runs)))
    return qrels, paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=HERE / "data", help="output directory")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--queries", type=int, default=250)
    p.add_argument("--docs", type=int, default=1000, help="documents retrieved per query")
    p.add_argument("--pool", type=int, default=6000, help="candidate documents per query")
    p.add_argument("--gzip", action="store_true", help="write .gz files")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    start = time.perf_counter()
    qrels, paths = generate(
        args.out, args.seed, args.runs, args.queries, args.docs, args.pool, args.gzip, args.threads
    )
    size = sum(p.stat().st_size for p in [qrels, *paths])
    print(
        f"wrote {qrels} and {len(paths)} runs to {args.out / 'runs'} "
        f"({size / 1e6:.0f} MB) in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
