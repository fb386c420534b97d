"""PLAIN: pass-through (`<self>`), the lowercase form, table abbreviations (mr → mister) and American spellings
of British words (centre → center, colour → color, organised → organized)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.lattice import Lattice, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_SPELLING = (
    (re.compile(r"(?<=[a-z])our(?=s?$|ed$|ing$|able$|al$|ally$|ite|hood|er|ful|less|ism|ist)"), "or"),
    (re.compile(r"(?<=[a-z][a-z])tre(?=s?$)"), "ter"),
    (re.compile(r"(?<=[a-z])is(?=e$|es$|ed$|ing$|er$|ers$|ation|ational)"), "iz"),
    (re.compile(r"(?<=[a-z])ys(?=e$|es$|ed$|ing$)"), "yz"),
    (re.compile(r"(?<=[a-z])ogue(?=s?$)"), "og"),
    (re.compile(r"(?<=[a-z])mme(?=s?$)"), "m"),
    (re.compile(r"(?<=[a-z])ence(?=s?$)"), "ense"),
)


def american(word: str) -> set[str]:
    """American spellings of a lowercase British word (every rule alone and all together)."""
    result = set()
    combined = word
    for pattern, replacement in _SPELLING:
        changed = pattern.sub(replacement, word)
        if changed != word:
            result.add(changed)
        combined = pattern.sub(replacement, combined)
    if combined != word:
        result.add(combined)
    return result


def lattice(g: Grammar, token: str) -> Lattice:
    """PLAIN readings."""
    lower = token.strip().lower()
    choices = ["<self>", lower] if lower else ["<self>"]
    key = lower.rstrip(".")
    choices += g.plain.get(key, ())
    if key.isalpha():
        choices += sorted(american(key))
    return words(*choices)
