"""TELEPHONE: digit by digit with `sil` between groups: 978-0-19-960563-7 → nine seven eight sil o sil …

Also Kestrel's readings of round groups as numbers (1-800-… → one sil eight hundred sil …, 1999-2000 →
… sil two thousand), a leading + read "plus" or not, and letter groups spelled or read (ext → extension).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, digit_path
from tnforge.grammars.lattice import Lattice, WordSet, path_strings

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_PIECE = re.compile(r"\d+|[A-Za-z]+|[^\dA-Za-z]+")
_ROUND = re.compile(r"^[1-9]\d*00$")
_EXTENSION = {"ext": "extension", "x": "extension", "extn": "extension", "tel": "telephone", "fax": "fax"}


def lattice(g: Grammar, token: str) -> Lattice:
    """TELEPHONE readings: groups of digits (or letters) joined by `sil` where the number has a separator."""
    slots: list[tuple[str, ...]] = []
    pieces = _PIECE.findall(token.strip())
    for index, piece in enumerate(pieces):
        if piece.isdigit():
            digits = digit_path(g, piece)
            if _ROUND.match(piece) and len(piece) <= 6:  # 800, 2000: also read as a number
                slots.append(WordSet(path_strings(digits) + list(cardinal_strings(g, piece))))
            else:
                slots.extend(digits)
        elif piece.isalpha():
            spelled = " ".join(piece.lower())
            named = _EXTENSION.get(piece.lower())
            slots.append(tuple(dict.fromkeys(x for x in (spelled, piece.lower(), named) if x)))
        elif index == 0 and piece.strip().startswith("+"):
            slots.append(("plus", ""))
        elif 0 < index < len(pieces) - 1:
            slots.append(("sil",))
    return [tuple(slots)] if slots and any(p.isdigit() for p in pieces) else []
