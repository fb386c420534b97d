"""VERBATIM: symbols and foreign characters: & → and, α → alpha, # → number, pp → p p, и → <self>."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tnforge.grammars.lattice import Lattice, alt, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar


def lattice(g: Grammar, token: str) -> Lattice:
    """VERBATIM readings."""
    text = token.strip() or token
    found: Lattice = []
    if text in g.symbols:
        found = words(*g.symbols[text])
    elif text.isascii() and text.isalpha():
        found = words(" ".join(text.lower()))
    if len(text) == 1 or not text.isascii():
        found = alt(found, words("<self>"))
    return found
