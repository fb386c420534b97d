"""Stable hashes of stable keys: the only source of "randomness" in tnforge.

Sampling, splitting and sharding decide by these hashes, never by `random` or Python's salted `hash()`,
so the same inputs and seed give the same output on every machine, runner and worker count.
"""

from __future__ import annotations

import hashlib

import numpy as np

_MASK64 = (1 << 64) - 1
#: 2**64 as a float, to turn a 64-bit hash into a number in [0, 1).
TWO_64 = float(1 << 64)


def stable_hash64(*parts: object, seed: int = 0) -> int:
    """A 64-bit blake2b hash of the parts (joined by a separator that cannot occur in text), keyed by seed."""
    data = "\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass")
    key = seed.to_bytes(8, "little", signed=False) if seed else b""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=key).digest(), "little")


def mix64(values: np.ndarray | int) -> np.ndarray | int:
    """The splitmix64 finaliser: a fast, well-mixed bijection of 64-bit integers (vectorised)."""
    if isinstance(values, (int, np.integer)):
        z = int(values) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)
    z = np.asarray(values, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def combine64(base: int, values: np.ndarray | int) -> np.ndarray | int:
    """Hash of (base, value) for a 64-bit base hash and integer value(s): mix64(mix64(base) ^ value)."""
    mixed_base = mix64(int(base) & _MASK64)
    if isinstance(values, (int, np.integer)):
        return mix64(mixed_base ^ (int(values) & _MASK64))
    return mix64(np.uint64(mixed_base) ^ np.asarray(values, dtype=np.int64).astype(np.uint64))


def unit_interval(hashes: np.ndarray | int, seed: int = 0) -> np.ndarray | float:
    """Map 64-bit hashes (re-mixed with seed) to floats in [0, 1)."""
    mixed = combine64(seed, hashes) if seed else hashes
    if isinstance(mixed, (int, np.integer)):
        return int(mixed) / TWO_64
    return np.asarray(mixed, dtype=np.uint64).astype(np.float64) / TWO_64


def key64(base: int, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Vectorised hash of (base, first[i], second[i]), e.g. (source, sentence_id, token_index)."""
    with np.errstate(over="ignore"):
        inner = mix64(np.uint64(mix64(int(base) & _MASK64)) ^ np.asarray(first, dtype=np.int64).astype(np.uint64))
        return mix64(inner ^ np.asarray(second, dtype=np.int64).astype(np.uint64))
