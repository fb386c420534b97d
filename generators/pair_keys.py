"""Row keys of the pair datasets: a stable hash of (split, class, before, value, type), composed from
per-part stable hashes so that millions of rows are keyed with vectorised arithmetic.

key = mix64(mix64(H(split, class, before) ^ H(value)) ^ H(type)), H = `tnforge.hashing.stable_hash64`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from tnforge.hashing import mix64, stable_hash64


def group_hash(split: str, semiotic_class: str, before: str) -> int:
    """H(split, class, before)."""
    return stable_hash64(split, semiotic_class, before)


@lru_cache(maxsize=64)
def type_hash(negative_type: str) -> int:
    """H(type), cached (there are only a handful of types)."""
    return stable_hash64(negative_type)


def string_hashes(values: Sequence[str]) -> np.ndarray:
    """H(value) for each value."""
    return np.fromiter((stable_hash64(v) for v in values), dtype=np.uint64, count=len(values))


def compose(group_hashes: np.ndarray, value_hashes: np.ndarray, type_hashes: np.ndarray) -> np.ndarray:
    """The row keys from the three per-part hash arrays."""
    inner = mix64(np.asarray(group_hashes, dtype=np.uint64) ^ np.asarray(value_hashes, dtype=np.uint64))
    return mix64(inner ^ np.asarray(type_hashes, dtype=np.uint64))
