"""Seeds: one ``numpy.random.Generator`` per seed, and derived streams per purpose."""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["SeedLike", "generator", "reseed"]

SeedLike = int | np.random.Generator | np.random.SeedSequence | None


def generator(seed: SeedLike) -> np.random.Generator:
    """The generator itself, or a fresh PCG64 generator seeded with ``seed``."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def reseed(seed: SeedLike, purpose: str) -> SeedLike:
    """A stream for ``purpose`` derived from an integer seed (generators are shared)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(zlib.crc32(purpose.encode()),))
    return np.random.SeedSequence([int(seed), zlib.crc32(purpose.encode())])
