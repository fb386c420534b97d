"""LETTERS: letter by letter: U.S. → u s, DVDs → d v d's, A&I → a and i; single letters may stay as written."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.lattice import Lattice, alt, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_PLURAL = re.compile(r"^(.*[A-Z].*?)s$|^(.+)(?:'s|’s)$")


def spell(g: Grammar, text: str) -> str:
    """Letters lowercased and separated by spaces; & → and; dots, spaces, dashes dropped."""
    out = []
    for char in text:
        if char.isalnum():
            out.append(char.lower())
        elif char == "&":
            out.append("and")
    return " ".join(out)


def lattice(g: Grammar, token: str) -> Lattice:
    """LETTERS readings."""
    text = token.strip()
    found: Lattice = []
    core = text.strip(".-,").strip()
    if not any(char.isalpha() for char in core):
        return []
    letters = spell(g, core)
    if letters:
        found = words(letters)
    plural = _PLURAL.match(core)
    stem_text = plural and (plural.group(1) or plural.group(2))
    if stem_text and len(stem_text.replace(".", "")) > 1:
        stem = spell(g, stem_text)
        if stem:
            found = alt(found, words(f"{stem}'s", f"{stem} s"))
    if len(text) == 1 and text.isalpha():
        found = alt(found, words("<self>"))
    return found
