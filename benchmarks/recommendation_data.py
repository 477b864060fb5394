"""Seeded synthetic recommendation collections: many users, shallow rankings.

The shape recommender evaluations have: ``users`` users (queries),
each with ``judged`` rated items (qrels rows, ratings 0-5), and ``runs`` runs
that recommend the top ``depth`` items of every user. A run's top list mixes
items the user rated (hits) with items the user never rated, scored with 6
decimals (a few ties). Same seed -> same bytes.

Id styles (``--ids``), for users and items alike:

- ``numeric``: decimal numbers of 1-7 digits (``482913``; MovieLens, most
  implicit-feedback data sets);
- ``uuid``: 36-byte UUIDs (``3f2b...-...``; production event logs);
- ``string``: prefixed names of varying width (``user_48291a3``, ``B07XJ8C8F5``-like
  item codes of 10 bytes; Amazon reviews).

Formats (``--formats``): ``trec`` (``qrels.txt``, ``RUN.txt``: the files
pytrec_eval users parse), ``parquet`` and ``csv`` (columns ``user_id, item_id,
rating`` and ``user_id, item_id, score``: as recommendation users hold them).

Usage::

    python benchmarks/recommendation_data.py --out DIR [--users 500000] [--judged 10]
        [--depth 10] [--runs 2] [--ids numeric|uuid|string] [--formats trec,parquet]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ID_STYLES = ("numeric", "uuid", "string")
FORMATS = ("trec", "parquet", "csv")
CATALOGUE = 1_000_003  # items (a prime: every stride below it walks distinct items)
RUN_NAMES = ("als", "bpr", "ease", "lightgcn", "sasrec", "popularity")


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of uint64 values: a reproducible scramble."""
    x = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _text(values) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


def _hex(words: np.ndarray, width: int) -> np.ndarray:
    """(n, width) uint8 rows: the first ``width`` hex digits of uint64 pairs."""
    digits = np.frombuffer(b"0123456789abcdef", np.uint8)
    nibbles = words.astype(">u8").view(np.uint8).reshape(len(words), -1)
    hexed = np.stack([nibbles >> 4, nibbles & 15], axis=2).reshape(len(words), -1)
    return digits[hexed[:, :width]]


def _from_rows(rows: np.ndarray, lengths: np.ndarray) -> pa.Array:
    offsets = np.zeros(len(rows) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rows[np.arange(rows.shape[1])[None, :] < lengths[:, None]]
    return pa.StringArray.from_buffers(len(rows), pa.py_buffer(offsets), pa.py_buffer(data))


def ids(numbers: np.ndarray, style: str, kind: str) -> pa.Array:
    """Distinct ids of ``style`` for distinct non-negative integers (injective);
    ``kind`` is ``user`` or ``item`` (the ``string`` style differs)."""
    numbers = np.asarray(numbers, np.int64)
    salt = 0x1234 if kind == "user" else 0x4321
    if style == "numeric":  # scrambled below 10**7, still distinct: a bijection mod 10**7
        return _text((numbers * 7_368_787 + salt) % 10_000_000)
    if style == "uuid":
        words = np.stack([_mix(numbers ^ salt), _mix(numbers + salt)], axis=1)
        rows = np.full((len(numbers), 36), ord("-"), np.uint8)
        rows[:, np.r_[0:8, 9:13, 14:18, 19:23, 24:36]] = _hex(words, 32)
        # injective: the first 64 bits are a bijection of the number (splitmix64)
        return _from_rows(rows, np.full(len(numbers), 36))
    if style == "string":
        if kind == "user":  # user_ + the number (varying width) + 2 hex check digits
            tail = _from_rows(_hex(_mix(numbers)[:, None], 2), np.full(len(numbers), 2))
            return pc.binary_join_element_wise("user_", _text(numbers), tail, "")
        # item codes of 10 bytes: B0 + 8 base-36 digits of the number (injective)
        alphabet = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", np.uint8)
        rows = np.empty((len(numbers), 10), np.uint8)
        rows[:, 0], rows[:, 1] = ord("B"), ord("0")
        rest = numbers.copy()
        for j in range(9, 1, -1):
            rows[:, j] = alphabet[rest % 36]
            rest //= 36
        return _from_rows(rows, np.full(len(numbers), 10))
    raise ValueError(f"unknown id style {style!r}; choose from {', '.join(ID_STYLES)}")


class Collection:
    """Users, their rated items and the runs' top lists (all users at once)."""

    def __init__(self, seed: int, users: int, judged: int, style: str) -> None:
        rng = np.random.default_rng([seed, 0])
        self.users, self.judged, self.style = users, judged, style
        self.user_ids = ids(np.arange(users), style, "user")
        # item k of user u: (base + k * stride) mod CATALOGUE, distinct for k < CATALOGUE;
        # items 0..judged-1 are rated, judged..3*judged-1 are candidates never rated
        self.base = rng.integers(0, CATALOGUE, users)
        self.stride = rng.integers(1, CATALOGUE, users)
        self.rating = rng.choice(np.arange(6), p=[0.2, 0.1, 0.1, 0.2, 0.25, 0.15],
                                 size=(users, judged))

    def items(self, user: np.ndarray, k: np.ndarray) -> pa.Array:
        number = (self.base[user] + k * self.stride[user]) % CATALOGUE
        return ids(number, self.style, "item")

    def qrels(self) -> pa.Table:
        user = np.repeat(np.arange(self.users), self.judged)
        k = np.tile(np.arange(self.judged), self.users)
        return pa.table({
            "user_id": self.user_ids.take(pa.array(user)),
            "item_id": self.items(user, k),
            "rating": pa.array(self.rating.ravel().astype(np.int64)),
        })

    def run(self, seed: int, r: int, depth: int) -> pa.Table:
        """Top ``depth`` of every user: a random choice of rated and unrated
        candidates (the better the run, the more rated ones, and the higher
        their rating), scores descending with 6 decimals."""
        rng = np.random.default_rng([seed, 1, r])
        quality = 0.5 + 0.4 * r
        n_cand = 3 * self.judged
        pull = np.zeros((self.users, n_cand))
        pull[:, : self.judged] = quality * self.rating
        noise = pull + rng.standard_normal(pull.shape) * 2.0
        top = np.argsort(-noise, axis=1, kind="stable")[:, :depth]
        score = np.sort(rng.uniform(0, 1, (self.users, depth)), axis=1)[:, ::-1]
        user = np.repeat(np.arange(self.users), depth)
        return pa.table({
            "user_id": self.user_ids.take(pa.array(user)),
            "item_id": self.items(user, top.ravel()),
            "score": pa.array(np.round(score.ravel(), 6)),
        })


def _trec_lines(*columns: pa.Array) -> bytes:
    """Space-joined columns, one line per row: a TREC file's bytes."""
    *head, last = columns
    joined = pc.binary_join_element_wise(*head, pc.binary_join_element_wise(last, "\n", ""), " ")
    joined = joined.cast(pa.large_string())
    offsets = np.frombuffer(joined.buffers()[1], np.int64, len(joined) + 1, joined.offset * 8)
    return joined.buffers()[2].to_pybytes()[offsets[0] : offsets[-1]]


def _write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_trec(path: Path, table: pa.Table, run: str | None = None) -> None:
    n = table.num_rows
    if run is None:  # qrels: user 0 item rating
        data = _trec_lines(table["user_id"].combine_chunks(), pa.array(np.full(n, "0")),
                           table["item_id"].combine_chunks(), _text(table["rating"]))
    else:  # run: user Q0 item rank score tag
        depth = n // max(1, len(pc.unique(table["user_id"])))
        rank = np.tile(np.arange(1, depth + 1), n // depth)
        data = _trec_lines(table["user_id"].combine_chunks(), pa.array(np.full(n, "Q0")),
                           table["item_id"].combine_chunks(), _text(rank),
                           _text(table["score"]), pa.array(np.full(n, run)))
    _write_bytes(path, data)


def write_table(path: Path, table: pa.Table) -> None:
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    tmp = path.with_name(path.name + ".tmp")
    if path.suffix == ".parquet":
        pq.write_table(table, tmp)
    else:
        pcsv.write_csv(table, tmp, pcsv.WriteOptions(quoting_style="none"))
    os.replace(tmp, path)


def paths(out: Path, runs: int, fmt: str) -> tuple[Path, list[Path]]:
    """(qrels, runs) file paths of one format in ``out``."""
    suffix = {"trec": ".txt", "parquet": ".parquet", "csv": ".csv"}[fmt]
    return out / f"qrels{suffix}", [out / f"{RUN_NAMES[r]}{suffix}" for r in range(runs)]


def generate(out: Path, *, seed: int = 1, users: int = 500_000, judged: int = 10,
             depth: int = 10, runs: int = 2, style: str = "numeric",
             formats: tuple[str, ...] = ("trec",)) -> None:
    """Write the collection to ``out`` in every format of ``formats``."""
    if runs > len(RUN_NAMES):
        raise ValueError(f"at most {len(RUN_NAMES)} runs")
    if depth > 3 * judged:
        raise ValueError("depth must be at most 3 x judged (the candidates of a user)")
    out.mkdir(parents=True, exist_ok=True)
    coll = Collection(seed, users, judged, style)
    tables = [coll.qrels()] + [coll.run(seed, r, depth) for r in range(runs)]
    for fmt in formats:
        qrels_path, run_paths = paths(out, runs, fmt)
        for path, table, name in zip([qrels_path, *run_paths], tables,
                                     [None, *RUN_NAMES[:runs]]):
            if fmt == "trec":
                write_trec(path, table, name)
            else:
                write_table(path, table)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--users", type=int, default=500_000)
    ap.add_argument("--judged", type=int, default=10)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--ids", choices=ID_STYLES, default="numeric")
    ap.add_argument("--formats", default="trec",
                    help=f"comma-separated, of {', '.join(FORMATS)}")
    args = ap.parse_args()
    start = time.perf_counter()
    generate(args.out, seed=args.seed, users=args.users, judged=args.judged, depth=args.depth,
             runs=args.runs, style=args.ids, formats=tuple(args.formats.split(",")))
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
