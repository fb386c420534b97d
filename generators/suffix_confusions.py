"""Suffix confusions: readings of other inputs that end like this one (Gokcen, Zhang & Sproat 2019).

A neural normalizer attends to the end of a token; the paper's example reads `pho` as "number" because
`no` → "number". For an input, the readings of other inputs sharing its longest suffixes (longest first,
1..SUFFIX_MAX characters) are plausible-looking but wrong readings.
"""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.generators.negative_context import SUFFIX_MAX, SplitContext
from tnforge.generators.negative_sampling import rotation_parameters
from tnforge.schemas.negative_kinds import SYNTHETIC

#: No limit: every suffix confusion.
ALL = 1 << 30


def suffix_list(before: str, context: SplitContext, base: int, limit: int) -> list[str]:
    """The first `limit` readings of other inputs sharing a suffix with `before`: longest suffix first, the
    entries of each suffix in a hashed rotation (draw r = `(start + r × stride) mod entries`)."""
    table, found = context.suffix_table, []
    if limit <= 0:
        return found
    for length in range(min(len(before), SUFFIX_MAX), 0, -1):
        entries = table.get(before[-length:])
        if not entries:
            continue
        size = len(entries)
        start, stride = rotation_parameters(size, base, 0x5FF1 + length)
        for draw in range(size):
            other, reading = entries[(start + draw * stride) % size]
            if other != before:
                found.append(reading)
                if len(found) >= limit:
                    return found
    return found


def suffix_confusions(before: str, context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """(reading, "synthetic", "suffix") for readings of other inputs sharing a suffix with `before`."""
    for reading in suffix_list(before, context, base, ALL):
        yield reading, SYNTHETIC, "suffix"
