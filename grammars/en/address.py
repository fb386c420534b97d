"""ADDRESS: letters then a number: C18 → c eighteen, C212 → c two one two."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, digit_path
from tnforge.grammars.lattice import Lattice, alt, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_ADDRESS = re.compile(r"^([A-Za-z]+)[\s-]?(\d+)$")


def lattice(g: Grammar, token: str) -> Lattice:
    """ADDRESS readings."""
    match = _ADDRESS.match(token.strip())
    if not match:
        return []
    letters, number = match.groups()
    spelled = words(" ".join(letters.lower()))
    return cat(spelled, alt(words(*cardinal_strings(g, number)), [digit_path(g, number)]))
