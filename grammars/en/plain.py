"""PLAIN: pass-through (`<self>`), the lowercase form, table abbreviations (mr → mister) and American spellings
of British words (centre → center, colour → color, organised → organized).

`reading` is the American spelling the corpus writes for the British words it always rewrites (rules read
off the shared sample's train split: `-tre` 28 of 30, `-our` after three letters or more 17 of 19, `-ise`
after the endings of -ize verbs 12 of 12 and `-isation` 6 of 6, `-mme` 2 of 2, `-ogue` after four letters
or more 2 of 3 — 68 of 72 train tokens, the misses the proper nouns Notre, Dextre, Bodour and one
"synagogues"; dev 5 of 5, test 6 of 6; the other `-ise`, `-our`, `-yse`, `-ence` words stay as written):
None for every other word."""

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


#: British endings the corpus always writes American, with the stems they follow (see the module doc).
_AMERICAN = (
    (re.compile(r"^([a-z]*[a-z][a-z])tre(s?)$"), r"\1ter\2"),
    (re.compile(r"^([a-z]{3,})our(s?|ed|ing|able|ably|al|ally|ite|ites|hood|hoods|er|ers|ful|less|ism|ist|ists)$"),
     r"\1or\2"),
    (re.compile(r"^([a-z]+)is(ation|ations|ational)$"), r"\1iz\2"),
    (re.compile(r"^([a-z]{2,}(?:al|ar|an|at|en|er|gn|ic|il|im|it|ll|og|ol|on|or|rt|ur))is(e|es|ed|ing|er|ers)$"),
     r"\1iz\2"),
    (re.compile(r"^([a-z]{4,})mme(s?)$"), r"\1m\2"),
    (re.compile(r"^([a-z]{4,})ogue(s?)$"), r"\1og\2"),
)
#: Words those rules would rewrite that American English (and the corpus) writes the same.
_AS_IN_AMERICAN = frozenset({"contour", "contours", "detour", "detours", "devour", "devours", "devoured", "velour",
                             "troubadour", "troubadours", "glamour", "paramour", "treatise", "expertise",
                             "mortise", "valour", "enterprise", "chastise", "chastised"})


def reading(token: str) -> str | None:
    """The American spelling the corpus writes for a British word (`colours` → colors, `CENTRE` → center,
    `organised` → organized), or None (the word is read as written or a model chooses)."""
    lower = token.strip().lower()
    if not lower.isalpha() or not lower.isascii() or lower in _AS_IN_AMERICAN:
        return None
    for pattern, replacement in _AMERICAN:
        changed = pattern.sub(replacement, lower)
        if changed != lower:
            return changed
    return None


def lattice(g: Grammar, token: str) -> Lattice:
    """PLAIN readings."""
    lower = token.strip().lower()
    choices = ["<self>", lower] if lower else ["<self>"]
    key = lower.rstrip(".")
    choices += g.plain.get(key, ())
    if key.isalpha():
        choices += sorted(american(key))
    return words(*choices)
