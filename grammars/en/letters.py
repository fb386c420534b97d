"""LETTERS: letter by letter: U.S. → u s, DVDs → d v d's, A&I → a and i; single letters may stay as written.

`reading` is the one reading the corpus writes: a lone letter without a period as written (`<self>`: 38 of
38 in the shared sample), a plural's `s` as `'s` (8 of 8: `NTDs` → n t d's), every other letter spelt
(`B.` → b) — 699 of its 700 LETTERS tokens (the other: `Métis`, m e acute t i's)."""

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


def _plural_stem(core: str) -> str | None:
    plural = _PLURAL.match(core)
    stem = plural and (plural.group(1) or plural.group(2))
    return stem if stem and len(stem.replace(".", "")) > 1 else None


def reading(token: str) -> str:
    """The corpus's reading of a LETTERS token (`NTDs` → n t d's, `T` → <self>, `B.` → b; "" when none)."""
    text = token.strip()
    if len(text) == 1 and text.isalpha():
        return "<self>"
    core = text.strip(".-,").strip()
    stem = _plural_stem(core)
    if stem is not None:
        letters = spell(None, stem)  # type: ignore[arg-type]  # spell reads no table
        return f"{letters}'s" if letters else ""
    return spell(None, core)  # type: ignore[arg-type]


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
    stem_text = _plural_stem(core)
    if stem_text:
        stem = spell(g, stem_text)
        if stem:
            found = alt(found, words(f"{stem}'s", f"{stem} s"))
    if len(text) == 1 and text.isalpha():
        found = alt(found, words("<self>"))
    return found
