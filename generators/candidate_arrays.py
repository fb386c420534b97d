"""Vectorised twins of the sampling helpers: budgets, hashed rotations and random-association draws for many
positives at once (numpy over positives × draws), with the same values as the scalar helpers
(`negative_sampling.budget`, `negative_sampling.rotation_parameters`, `draws` of `tests/support/negatives_reference.py`)."""

from __future__ import annotations

import numpy as np

from tnforge.hashing import mix64

_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def derive_array(bases: np.ndarray, salt: int | np.ndarray) -> np.ndarray:
    """`negative_context.derive(base, salt)` of each base (uint64), with one salt or one per base."""
    if isinstance(salt, (int, np.integer)):
        salted = np.uint64(mix64((int(salt) + _GOLDEN) & _MASK64))
    else:
        with np.errstate(over="ignore"):
            salted = mix64(np.asarray(salt, dtype=np.int64).astype(np.uint64) + np.uint64(_GOLDEN))
    return mix64(np.asarray(bases, dtype=np.uint64) ^ salted)


def rotate(lengths: np.ndarray, bases: np.ndarray, salts: int | np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Draw `draws[i]` of `negative_sampling.rotation(lengths[i], bases[i], salts[i])`: the index
    `(start + draw × stride) mod length` (lengths ≥ 1)."""
    start, stride = rotation_arrays(lengths, bases, salts)
    return (start + np.asarray(draws, dtype=np.int64) * stride) % np.asarray(lengths, dtype=np.int64)


def rotation_arrays(lengths: np.ndarray, bases: np.ndarray, salt: int | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, stride) of `rotation_parameters(length, base, salt)` for each (length, base); lengths ≥ 1."""
    lengths = np.asarray(lengths, dtype=np.uint64)
    value = derive_array(bases, salt)
    safe = np.maximum(lengths, np.uint64(1))
    start = (value % safe).astype(np.int64)
    stride = np.ones(len(lengths), dtype=np.int64)
    big = lengths > 2
    if big.any():
        stride[big] = ((value[big] >> np.uint64(32)) % (lengths[big] - np.uint64(1))).astype(np.int64) + 1
        length = lengths.astype(np.int64)
        bad = big & (np.gcd(stride, length) != 1)
        while bad.any():
            stride[bad] += 1
            bad &= np.gcd(stride, length) != 1
    return start, stride


def budgets(ratio: float | None, cap: int, bases: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """`negative_sampling.budget(ratio, counts[i], cap, bases[i])` for each base (counts default to 1)."""
    if ratio is None:
        return np.full(len(bases), cap, dtype=np.int64)
    counts = np.ones(len(bases), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    wanted = ratio * counts.astype(np.float64)
    whole = np.floor(wanted)
    draws = (derive_array(bases, 0xB0D6E7) >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    whole += (wanted > whole) & (draws < wanted - whole)
    return np.minimum(whole.astype(np.int64), cap)


def draw_grid(offsets: np.ndarray, lengths: np.ndarray, counts: np.ndarray, bases: np.ndarray,
              salt: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first `counts[i]` draws of each rotation over a pool slice (offsets[i], lengths[i]) of a
    concatenated pool: (row i of each draw, its rank, its index in the concatenated pool). Draw r of row i
    is `offset + (start + r × stride) mod length`, as `draws` of `tests/support/negatives_reference.py`."""
    counts = np.minimum(np.asarray(counts, dtype=np.int64), lengths)
    rows = np.flatnonzero(counts > 0)
    if not len(rows):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    start, stride = rotation_arrays(lengths[rows], bases[rows], salt)
    repeat = counts[rows]
    row = np.repeat(rows, repeat)
    first = np.cumsum(repeat) - repeat
    rank = np.arange(int(repeat.sum()), dtype=np.int64) - np.repeat(first, repeat)
    length = lengths[row]
    index = offsets[row] + (np.repeat(start, repeat) + rank * np.repeat(stride, repeat)) % length
    return row, rank, index
