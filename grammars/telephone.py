"""TELEPHONE: digit by digit with `sil` between groups: 978-0-19-960563-7 → nine seven eight sil o sil …"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.cardinal import digit_path
from tnforge.grammars.lattice import Lattice

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_PIECE = re.compile(r"\d+|[A-Za-z]+|[^\dA-Za-z]+")


def lattice(g: Grammar, token: str) -> Lattice:
    """TELEPHONE readings: groups of digits (or letters) joined by `sil` where the number has a separator."""
    slots: list[tuple[str, ...]] = []
    pieces = _PIECE.findall(token.strip())
    for index, piece in enumerate(pieces):
        if piece.isdigit():
            slots.extend(digit_path(g, piece))
        elif piece.isalpha():
            spelled = " ".join(piece.lower())
            slots.append((spelled, piece.lower()) if len(piece) > 1 else (spelled,))
        elif 0 < index < len(pieces) - 1:
            slots.append(("sil",))
    return [tuple(slots)] if slots and any(p.isdigit() for p in pieces) else []
