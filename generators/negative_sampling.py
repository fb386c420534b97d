"""How many negatives each input gets, hashed rotations (the order of every candidate stream), and `take`
(the top-k candidates, filtered). Every choice is decided by stable hashes (`tnforge.hashing`), never by
`random`; `candidate_arrays` has the vectorised twins used for whole chunks.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator

from tnforge.generators.negative_context import derive

#: Default most negatives per input (per split), whatever the ratio: a pathological input cannot blow up a run.
DEFAULT_CAP = 100
#: Candidates examined per wanted negative before giving up on an input (streams full of forbidden ones).
ATTEMPTS_PER_NEGATIVE = 20


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
