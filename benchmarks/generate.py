"""Seeded generator of a synthetic TREC collection for the benchmarks.

Writes ``qrels.txt`` and ``runs/run-NNN.txt`` (TREC format ``qid Q0 docid rank
score tag``) to an output directory (default ``benchmarks/data/``, git-ignored).

The collection mimics a deep-pooled ad hoc track:

- query ids are 6-digit numbers (as in MS MARCO), written in numeric order;
- document ids look like ClueWeb12 ids (``clueweb12-0107wb-42-18933``) or,
  with ``--ids``, like MS MARCO v1/v2, Robust, UUIDs or URLs (:data:`SHAPES`);
- every query has a candidate pool (default 6000 documents): about 100
  relevant ones with grades 1-3, about 250 judged non-relevant (grade 0) and
  unjudged rest; the qrels list the judged ones (grades 0-3);
- every run retrieves the top ``docs`` candidates of each query by a noisy
  score ``quality * grade + judged bias + N(0, 1)``, ranks 1..docs (run 7, 17,
  ... start at rank 0); every fourth run rounds its scores to 2 decimals and
  every tenth to 1 decimal, so tied scores are common there (``--ties mixed``);
  ``--ties heavy`` writes integer scores, ``--ties none`` distinct ones.

Same seed -> same bytes. Files are assembled with pyarrow string kernels, so
100 runs x 250 queries x 1000 documents (about 1.4 GB) take well under a
minute. ``--gzip`` writes ``.gz`` files instead.

Usage::

    python benchmarks/generate.py [--out DIR] [--seed 1] [--runs 100] [--queries 250]
                                  [--docs 1000] [--pool 6000] [--gzip]
                                  [--ids clueweb|msmarco1|msmarco2|robust|uuid|url]
                                  [--ties mixed|heavy|none]
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


SHAPES = ("clueweb", "msmarco1", "msmarco2", "robust", "uuid", "url")
"""Document id shapes (``--ids``)."""

TIES = ("mixed", "heavy", "none")
"""Score tie regimes (``--ties``)."""

# corpus size (distinct candidate ids) per shape: MS MARCO v1 has 8.8 M passages
_CORPUS = {"msmarco1": 8_841_823}


def _strings(rows: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """String array of the first ``lengths[i]`` bytes of each row of ``rows``."""
    offsets = np.zeros(len(rows) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rows[np.arange(rows.shape[1])[None, :] < lengths[:, None]]
    return pa.StringArray.from_buffers(len(rows), pa.py_buffer(offsets), pa.py_buffer(data))


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of uint64 values (a seeded-free, reproducible scramble)."""
    x = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _text(values) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


def _docids(ids: np.ndarray, shape: str = "clueweb") -> pa.Array:
    """Document ids of one ``shape`` from distinct integers (injective).

    - ``clueweb``: ClueWeb12-like, fixed width (``clueweb12-0592tw-37-40842``);
    - ``msmarco1``: MS MARCO v1 passages, the number itself (1-7 digits);
    - ``msmarco2``: MS MARCO v2 (``msmarco_passage_12_345678901``: shard and
      a byte offset of varying width);
    - ``robust``: TREC disks 4-5 (``FBIS3-10082``, ``LA010189-0001``,
      ``FT911-1234``, ``FR940104-0-00001``): four families, mixed widths;
    - ``uuid``: random-looking UUIDs (36 bytes);
    - ``url``: URL-like ids of 30-120 bytes.
    """
    ids = np.asarray(ids, np.int64)
    if shape == "clueweb":
        segment = ids // 100_000
        part = (ids // 1000) % 100
        number = (ids % 1000) * 97 + ids % 7
        letters = np.array(["tw", "wb", "wt", "tw"])[segment % 4]
        seg = pc.utf8_lpad(_text(segment), 4, "0")
        prt = pc.utf8_lpad(_text(part), 2, "0")
        num = pc.utf8_lpad(_text(number), 5, "0")
        return pc.binary_join_element_wise(
            pc.binary_join_element_wise("clueweb12-", seg, pa.array(letters), ""), prt, num, "-"
        )
    if shape == "msmarco1":
        return _text(ids)
    if shape == "msmarco2":
        shard, rest = ids % 70, ids // 70
        offset = rest * 4099 + ids % 4099  # injective; 1 to 9 digits
        return pc.binary_join_element_wise(
            "msmarco_passage", pc.utf8_lpad(_text(shard), 2, "0"), _text(offset), "_"
        )
    if shape == "robust":
        family, n = ids % 4, ids // 4
        day = n // 10_000  # 0 .. 1499
        date = tuple(  # month, day of month, year: injective in `day`
            pc.utf8_lpad(_text(v), 2, "0")
            for v in (1 + day % 12, 1 + day // 12 % 28, 89 + day // 336)
        )
        num = n % 10_000
        fbis = pc.binary_join_element_wise(
            pc.binary_join_element_wise("FBIS", _text(3 + day % 2), ""), _text(n), "-"
        )
        la = pc.binary_join_element_wise(
            pc.binary_join_element_wise("LA", *date, ""), pc.utf8_lpad(_text(num), 4, "0"), "-"
        )
        ft = pc.binary_join_element_wise(
            pc.binary_join_element_wise("FT9", _text(day % 5), _text(day // 5), ""),
            _text(num), "-",
        )
        fr = pc.binary_join_element_wise(
            pc.binary_join_element_wise("FR", date[2], date[0], date[1], ""),
            _text(num % 3), pc.utf8_lpad(_text(num), 5, "0"), "-",
        )
        return pc.choose(pa.array(family.astype(np.int8)), fbis, la, ft, fr)
    hexdigits = np.frombuffer(b"0123456789abcdef", np.uint8)
    if shape == "uuid":
        words = np.stack([_mix(ids), _mix(ids ^ 0x5555)], axis=1).astype(">u8")
        nibbles = words.view(np.uint8).reshape(len(ids), 16)
        hexed = np.stack([nibbles >> 4, nibbles & 15], axis=2).reshape(len(ids), 32)
        rows = np.full((len(ids), 36), ord("-"), np.uint8)
        cols = np.r_[0:8, 9:13, 14:18, 19:23, 24:36]
        rows[:, cols] = hexdigits[hexed]
        # injective: the first 64 bits are a bijection of the id (splitmix64)
        return _strings(rows, np.full(len(ids), 36))
    if shape == "url":
        h = _mix(ids)
        host = pc.binary_join_element_wise(
            "https://www.site", _text((h % np.uint64(5000)).astype(np.int64)), ".example.com/", ""
        )
        path = pc.binary_join_element_wise("doc", _text(ids), "/", "")
        head = pc.binary_join_element_wise(host, path, "")
        head_len = pc.binary_length(head).to_numpy()
        target = 30 + (_mix(ids ^ 0x77) % np.uint64(91)).astype(np.int64)  # 30..120
        pad = np.maximum(target - head_len, 0)
        filler = hexdigits[(_mix(np.arange(120, dtype=np.int64)) % np.uint64(16)).astype(int)]
        rows = np.broadcast_to(filler, (len(ids), 120))
        return pc.binary_join_element_wise(head, _strings(rows, pad), "")
    raise ValueError(f"unknown id shape {shape!r}; choose from {', '.join(SHAPES)}")


def _lines(*columns, last_sep: str = "\n") -> bytes:
    """Join string columns with spaces, one line per row: the file's bytes."""
    *head, last = columns
    last = pc.binary_join_element_wise(last, last_sep, "")
    joined = pc.binary_join_element_wise(*head, last, " ")
    offsets = np.frombuffer(joined.buffers()[1], np.int32, len(joined) + 1, joined.offset * 4)
    return joined.buffers()[2].to_pybytes()[offsets[0] : offsets[-1]]


class Collection:
    """Candidate pools and qrels of a synthetic collection (all queries at once)."""

    def __init__(
        self, seed: int, n_queries: int, pool: int, docs: int, ids: str = "clueweb"
    ) -> None:
        rng = np.random.default_rng([seed, 0])
        if pool < docs:
            raise ValueError(f"--pool ({pool}) must be at least --docs ({docs})")
        self.n_queries, self.pool = n_queries, pool
        qids = np.sort(rng.choice(np.arange(100_000, 1_000_000), n_queries, replace=False))
        self.qids = qids
        # candidate documents: disjoint random ids per query from a 60M-id corpus
        cand = rng.choice(_CORPUS.get(ids, 60_000_000), size=n_queries * pool, replace=False)
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
        self.docids = _docids(self.cand.ravel(), ids)  # (Q*pool,) strings

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

    def run_bytes(self, seed: int, r: int, docs: int, ties: str = "mixed") -> bytes:
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
        if ties == "heavy":  # integer scores: large tie groups in every run
            scores = np.round(scores)
        elif ties == "none":  # 6 decimals, strictly descending in each query
            step = 1e-6 * np.arange(docs)
            scores = np.minimum.accumulate(np.round(scores, 6) + step, axis=1) - step
        else:  # mixed: 6 decimals; every 4th run 2, every 10th 1 (ties)
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
    ids: str = "clueweb",
    ties: str = "mixed",
) -> tuple[Path, list[Path]]:
    """Write the collection to ``out``; returns (qrels path, run paths)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    for old in (out / "runs").iterdir():
        old.unlink()
    suffix = ".txt.gz" if gz else ".txt"
    if ties not in TIES:
        raise ValueError(f"unknown tie regime {ties!r}; choose from {', '.join(TIES)}")
    coll = Collection(seed, queries, pool, docs, ids)
    qrels = out / f"qrels{suffix}"
    write(qrels, coll.qrels_bytes(), gz)
    paths = [out / "runs" / f"run-{r:03d}{suffix}" for r in range(runs)]

    def one(r: int) -> None:
        write(paths[r], coll.run_bytes(seed, r, docs, ties), gz)

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
    p.add_argument("--ids", choices=SHAPES, default="clueweb", help="document id shape")
    p.add_argument("--ties", choices=TIES, default="mixed",
                   help="score ties: mixed (some runs rounded), heavy (integers), none")
    args = p.parse_args(argv)
    start = time.perf_counter()
    qrels, paths = generate(
        args.out, args.seed, args.runs, args.queries, args.docs, args.pool, args.gzip,
        args.threads, args.ids, args.ties,
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
