"""Random association: readings of unrelated inputs of the same split, drawn from the whole split
(subtype "global") or, for targeted negatives, from inputs of the same class only (subtype "class")."""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.generators.negative_context import SplitContext
from tnforge.generators.negative_sampling import rotation_parameters
from tnforge.schemas.negative_kinds import CLASS, GLOBAL, RANDOM


def draws(pool: tuple[str, ...], base: int, salt: int, subtype: str) -> Iterator[tuple[str, str, str]]:
    """Every reading of a pool once, in an order fixed by stable hashes: (reading, "random", subtype)."""
    length = len(pool)
    if not length:
        return
    start, stride = rotation_parameters(length, base, salt)
    for step in range(length):
        yield pool[(start + step * stride) % length], RANDOM, subtype


def within_class(semiotic_class: str, context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """Readings of other inputs of the same class in the split."""
    return draws(context.class_pools.get(semiotic_class, ()), base, 0xC1A55, CLASS)


def global_draws(context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """Readings of any other input in the split."""
    return draws(context.global_pool, base, 0x610BA1, GLOBAL)
