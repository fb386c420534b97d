"""ORDINAL: 21st → twenty first, 150th, Roman numerals (XVI → the sixteenth)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import clean, ordinal_strings, roman_value
from tnforge.grammars.lattice import Lattice, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_SUFFIXED = re.compile(r"^(\d[\d,]*)\s*(st|nd|rd|th|d|º|\.)$", re.IGNORECASE)


def lattice(g: Grammar, token: str) -> Lattice:
    """ORDINAL readings."""
    text = clean(token) or token.strip()
    match = _SUFFIXED.match(text)
    if match:
        return cat(words("", "the"), words(*ordinal_strings(g, match.group(1))))
    value = roman_value(text)
    if value is not None:
        return cat(words("", "the"), words(*ordinal_strings(g, str(value))))
    return []
