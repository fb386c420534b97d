"""DECIMAL: 2.5 → two point five, 95.50 → ninety five point five o, 3.19 million, .5 → point five, 3.66E-49 →
three point six six times ten to the minus forty nine."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import clean, decimal_lattice, range_lattice
from tnforge.grammars.lattice import Lattice, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_SCALED = re.compile(r"^(-?[\d,]*\.?\d+)\s*([A-Za-z]+)$")
#: Scientific notation: 3.66E-49 → three point six six times ten to the minus forty nine (Kestrel, en_train).
_SCIENTIFIC = re.compile(r"^(-?[\d,]*\.?\d+)\s?E(-?\d+)$")


def number_lattice(g: Grammar, text: str) -> Lattice:
    """A decimal or integer with an optional scale word or suffix ("66 million", "6.5m")."""
    found = decimal_lattice(g, text)
    if found:
        return found
    scientific = _SCIENTIFIC.match(text)
    if scientific:
        mantissa, exponent = decimal_lattice(g, scientific.group(1)), decimal_lattice(g, scientific.group(2))
        return cat(mantissa, words("times ten to the"), exponent) if mantissa and exponent else []
    match = _SCALED.match(text)
    if match and match.group(2) in g.money_scales:
        number = decimal_lattice(g, match.group(1))
        return cat(number, words(*g.money_scales[match.group(2)])) if number else []
    return []


def lattice(g: Grammar, token: str) -> Lattice:
    """DECIMAL readings (also ranges: 2.5–3.5)."""
    text = clean(token) or token.strip()
    return number_lattice(g, text) or range_lattice(text, lambda part: number_lattice(g, part))
