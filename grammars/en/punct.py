"""PUNCT: punctuation is silent (`sil`) or kept as written (`<self>`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tnforge.grammars.lattice import Lattice, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar


def lattice(g: Grammar, token: str) -> Lattice:
    """PUNCT readings (none for a token with letters or digits)."""
    if any(char.isalnum() for char in token):
        return []
    return words("sil", "<self>")
