"""How many negatives each input gets, and how candidate streams are merged and filtered.

Generators yield candidates lazily, best first; this module interleaves them, drops the forbidden ones
(readings the corpus gives as positives for the input, in any split) and duplicates, and stops at the
budget. Every choice is decided by stable hashes (`tnforge.hashing`), never by `random`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator
from typing import TypeVar

from tnforge.generators.negative_context import derive

T = TypeVar("T")

#: Default most negatives per input (per split), whatever the ratio: a pathological input cannot blow up a run.
DEFAULT_CAP = 100
#: Candidates examined per wanted negative before giving up on an input (streams full of forbidden ones).
ATTEMPTS_PER_NEGATIVE = 20


def round_robin(*streams: Iterable[T], weights: tuple[int, ...] | None = None) -> Iterator[T]:
    """Interleave streams: one item from each in turn (or `weights[i]` items from stream i), until all end."""
    if weights is None:  # the common case, without the bookkeeping of turns
        iterators = [iter(s) for s in streams]
        while iterators:
            alive = []
            for iterator in iterators:
                for item in iterator:  # one item, if there is one
                    yield item
                    alive.append(iterator)
                    break
            iterators = alive
        return
    iterators = [iter(s) for s in streams]
    turns = list(weights)
    while iterators:
        alive_iterators, alive_turns = [], []
        for iterator, turn in zip(iterators, turns, strict=True):
            alive = True
            for _ in range(turn):
                try:
                    yield next(iterator)
                except StopIteration:
                    alive = False
                    break
            if alive:
                alive_iterators.append(iterator)
                alive_turns.append(turn)
        iterators, turns = alive_iterators, alive_turns


def rotation_parameters(length: int, base: int, salt: int) -> tuple[int, int]:
    """(start, stride) of a `rotation`: a hashed start and a stride coprime with length."""
    value = derive(base, salt)
    start = value % length
    stride = 1
    if length > 2:
        stride = (value >> 32) % (length - 1) + 1
        while math.gcd(stride, length) != 1:
            stride += 1
    return start, stride


def rotation(length: int, base: int, salt: int) -> Iterator[int]:
    """All indices 0..length-1 once each, in an order fixed by (base, salt): a hashed start and a coprime stride."""
    if length <= 0:
        return
    start, stride = rotation_parameters(length, base, salt)
    for step in range(length):
        yield (start + step * stride) % length


def budget(ratio: float | None, positives: int, cap: int, base: int) -> int:
    """Negatives wanted for an input with `positives` positive readings: ratio × positives (a fractional
    ratio is rounded up or down by a stable hash so the mean is right), or `cap` when ratio is None ("all")."""
    if ratio is None:
        return cap
    wanted = ratio * positives
    whole = math.floor(wanted)
    if wanted > whole and (derive(base, 0xB0D6E7) >> 11) / float(1 << 53) < wanted - whole:
        whole += 1
    return min(int(whole), cap)


def take(
    candidates: Iterable[tuple[str, str, str]],
    limit: int,
    forbidden: Collection[str],
    seen: set[str],
) -> list[tuple[str, str, str]]:
    """Up to `limit` (value, type, subtype) candidates whose value is neither forbidden nor already seen.

    `seen` is updated in place, so several calls for one input never repeat a value."""
    chosen: list[tuple[str, str, str]] = []
    if limit <= 0:
        return chosen
    attempts = limit * ATTEMPTS_PER_NEGATIVE + 100
    add, append = seen.add, chosen.append
    for candidate in candidates:
        value = candidate[0]
        if value and value not in forbidden and value not in seen:
            add(value)
            append(candidate)
            limit -= 1
            if not limit:
                break
        attempts -= 1
        if not attempts:
            break
    return chosen


def fill(
    plan: list[tuple[Iterator[tuple[str, str, str]], int]], forbidden: Collection[str], seen: set[str]
) -> list[tuple[str, str, str]]:
    """Take each stream's share in order; a stream's shortfall passes to the next, and what is still
    missing at the end is taken from the streams again, in order."""
    chosen: list[tuple[str, str, str]] = []
    carry = 0
    for stream, share in plan:
        got = take(stream, share + carry, forbidden, seen)
        chosen += got
        carry += share - len(got)
    for stream, _ in plan:
        if carry <= 0:
            break
        got = take(stream, carry, forbidden, seen)
        chosen += got
        carry -= len(got)
    return chosen
