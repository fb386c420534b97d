"""Row keys of the pair datasets: a stable hash of (split, class, before, value, type), composed from
per-part stable hashes so that millions of rows are keyed with vectorised arithmetic.

key = mix64(mix64(H(split, class, before) ^ H(value)) ^ H(type)), H = `tnforge.hashing.stable_hash64`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.hashing import mix64, stable_hash64


def group_hash(split: str, semiotic_class: str, before: str) -> int:
    """H(split, class, before)."""
    return text_hash64(split, semiotic_class, before)


#: (split, class, before) → H of the groups met lately (`group_hashes`; emptied when it would pass `GROUP_CACHE`).
_GROUPS: dict[tuple[str, str, str], int] = {}
GROUP_CACHE = 1 << 15


def group_hashes(splits: Sequence[str], classes: Sequence[str], befores: Sequence[str]) -> np.ndarray:
    """H(split, class, before) of each row. A chunk's pairs table meets each group in two runs (its positives,
    then its negatives) and its vocabulary table once more, so the hashes are kept in a bounded cache (a chunk
    has a few thousand groups); the groups not in it are hashed as one batch."""
    rows = list(zip(splits, classes, befores, strict=True))
    missing = [row for row in dict.fromkeys(rows) if row not in _GROUPS]
    if len(_GROUPS) + len(missing) > GROUP_CACHE:
        _GROUPS.clear()
        missing = list(dict.fromkeys(rows))
    if missing:
        _GROUPS.update(zip(missing, text_hashes(missing).tolist(), strict=True))
    return np.fromiter(map(_GROUPS.__getitem__, rows), dtype=np.uint64, count=len(rows))


def text_hash64(*parts: str, seed: int = 0) -> int:
    """`stable_hash64(*parts, seed=seed)` for parts that are already strings, without its general conversions
    (the same bytes are hashed, so the same value comes out)."""
    key = seed.to_bytes(8, "little", signed=False) if seed else b""
    data = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=key).digest(), "little")


@lru_cache(maxsize=64)
def type_hash(negative_type: str) -> int:
    """H(type), cached (there are only a handful of types)."""
    return stable_hash64(negative_type)


def string_hashes(values: Sequence[str]) -> np.ndarray:
    """H(value) for each value: `stable_hash64(value)` of a single string (seed 0), computed without the
    general function's joining and keying (the same bytes are hashed, so the same values come out)."""
    return _digests([value.encode("utf-8", "surrogatepass") for value in values])


def array_hashes(values: pa.Array) -> np.ndarray:
    """`string_hashes` of a string array's values, hashing Arrow's UTF-8 bytes as they are (no `str` made)."""
    return _digests(values.cast(pa.binary()).to_pylist())


def text_hashes(rows: Iterable[Sequence[str]], seed: int = 0) -> np.ndarray:
    """`text_hash64(*parts, seed=seed)` of each row of string parts, as one array."""
    return _digests(["\x1f".join(parts).encode("utf-8", "surrogatepass") for parts in rows], seed)


def _digests(data: Sequence[bytes], seed: int = 0) -> np.ndarray:
    """The 8-byte blake2b digests of `data` (keyed by a non-zero `seed`, as `stable_hash64`) read as
    little-endian 64-bit integers (digests joined, read at once)."""
    blake2b = hashlib.blake2b
    if seed:
        key = seed.to_bytes(8, "little", signed=False)
        joined = b"".join([blake2b(item, digest_size=8, key=key).digest() for item in data])
    else:
        joined = b"".join([blake2b(item, digest_size=8).digest() for item in data])
    return np.frombuffer(joined, dtype="<u8").astype(np.uint64)


def column_hashes(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """H(value) for each value of a string column, each distinct value hashed once."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    encoded = pc.dictionary_encode(values)
    hashes = array_hashes(encoded.dictionary)
    return hashes[encoded.indices.to_numpy(zero_copy_only=False)]


def compose(group_hashes: np.ndarray, value_hashes: np.ndarray, type_hashes: np.ndarray) -> np.ndarray:
    """The row keys from the three per-part hash arrays."""
    inner = mix64(np.asarray(group_hashes, dtype=np.uint64) ^ np.asarray(value_hashes, dtype=np.uint64))
    return mix64(inner ^ np.asarray(type_hashes, dtype=np.uint64))
