"""Suffix confusions: readings of other inputs that end like this one (Gokcen, Zhang & Sproat 2019).

A neural normalizer attends to the end of a token; the paper's example reads `pho` as "number" because
`no` → "number". For an input, the readings of other inputs sharing its longest suffixes (longest first,
1..SUFFIX_MAX characters) are plausible-looking but wrong readings.
"""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.generators.negative_context import SUFFIX_MAX, SplitContext
from tnforge.generators.negative_sampling import rotation
from tnforge.schemas.negative_kinds import SYNTHETIC


def suffix_confusions(before: str, context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """(reading, "synthetic", "suffix") for readings of other inputs sharing a suffix with `before`."""
    table = context.suffix_table
    for length in range(min(len(before), SUFFIX_MAX), 0, -1):
        entries = table.get(before[-length:])
        if not entries:
            continue
        for index in rotation(len(entries), base, 0x5FF1 + length):
            other, reading = entries[index]
            if other != before:
                yield reading, SYNTHETIC, "suffix"
