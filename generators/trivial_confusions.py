"""Confusions that involve the trivial readings `<self>` (read the token as written) and `sil` (silence).

A normalizer's commonest unrecoverable errors are of two kinds the other generators never make:
* a token that must be verbalized is left as written: `9 July 2009` → `<self>` ("unread");
* a token that is read as written gets verbalized: `TURNS` → "t u r n s" ("spelled"), or a silent
  punctuation mark gets voiced: `,` → `<self>` ("voiced").
With these negatives (and the trivial tokens' own positives, taken from the dataset's examples) a dual
encoder can judge trivial readings too, instead of exempting them from the constraints.
"""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.schemas import SELF, SIL
from tnforge.schemas.negative_kinds import SPELLED, SYNTHETIC, UNREAD, VOICED


def spelled_out(before: str) -> str:
    """The token's letters as a spelled-out reading ("TURNS" → "t u r n s"); "" when it has no letters."""
    return " ".join(char.lower() for char in before if char.isalpha())


def unread(before: str) -> Iterator[tuple[str, str, str]]:
    """(`<self>`, "synthetic", "unread"): leaving a token that has a reading as written."""
    yield SELF, SYNTHETIC, UNREAD


def trivial_confusions(before: str, reading: str) -> Iterator[tuple[str, str, str]]:
    """Wrong non-trivial treatments of a token whose reading is trivial (`<self>` or `sil`)."""
    if reading == SELF:
        spelled = spelled_out(before)
        if spelled:
            yield spelled, SYNTHETIC, SPELLED
    elif reading == SIL:
        yield SELF, SYNTHETIC, VOICED


def trivial_list(before: str, reading: str) -> list[tuple[str, str]]:
    """`trivial_confusions` as (reading, subtype) pairs."""
    return [(value, subtype) for value, _, subtype in trivial_confusions(before, reading)]
