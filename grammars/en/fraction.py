"""FRACTION: 5/16 → five sixteenths, 1/2 → one half, 3¾ → three and three quarters, 1/4 → one quarter."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, clean, ordinal_strings
from tnforge.grammars.en.numbers import plural
from tnforge.grammars.lattice import Lattice, alt, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
          "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8"}
_FRACTION = re.compile(r"^(-)?(?:(\d[\d,]*)[\s-]+)?(\d[\d,]*)\s*[/⁄]\s*(\d[\d,]*)$")
#: Space-grouped thousands (100 000/24 → one hundred thousand twenty fourths), read as if written with commas.
_GROUPED = re.compile(r"(?<!\d)(\d{1,3}(?: \d{3})+)(?!\d)")


def denominator_words(g: Grammar, denominator: str, singular: bool) -> tuple[str, ...]:
    """Spoken denominators: 2 → half / halves (never "second": the corpus reads 1/2 "one half"), 4 → quarter(s)
    or fourth(s), else the ordinal."""
    ordinals = list(ordinal_strings(g, denominator))
    if denominator == "2":
        ordinals = ["half"]
    elif denominator == "4":
        ordinals += ["quarter"]
    return tuple(o if singular else " ".join(o.split()[:-1] + [plural(o.split()[-1])]) for o in ordinals)


def fraction_lattice(g: Grammar, numerator: str, denominator: str, bare: bool = True) -> Lattice:
    """A proper or improper fraction without a whole part; `bare`: a numerator of one may also go unsaid
    ("½" → half), which is not English after a whole number ("3½" → three and a half, never three half)."""
    top = cardinal_strings(g, numerator)
    bottom = cardinal_strings(g, denominator)
    if not top or not bottom:
        return []
    singular = numerator.replace(",", "") == "1"
    spoken = cat(words(*top), words(*denominator_words(g, denominator, singular)))
    if singular:  # a half, an eighth (1⅛ → one and an eighth)
        names = denominator_words(g, denominator, True)
        spoken = alt(spoken, cat(words("a", "") if bare else words("a"), words(*names)),
                     cat(words("an"), words(*[n for n in names if n[:1] in "aeiou"])) if any(
                         n[:1] in "aeiou" for n in names) else [])
    over = cat(words(*top), words("over"), words(*bottom))
    return alt(spoken, over)


def parse(token: str) -> tuple[bool, str | None, str, str] | None:
    """(negative, whole, numerator, denominator) of a written fraction, or None."""
    text = clean(token) or token.strip()
    if text and text[-1] in VULGAR:
        whole = text[:-1].strip().rstrip("-")
        numerator, denominator = VULGAR[text[-1]].split("/")
        negative = whole.startswith("-")
        whole = whole.lstrip("-")
        if whole and not whole.replace(",", "").isdigit():
            return None
        return negative, whole or None, numerator, denominator
    match = _FRACTION.match(text)
    if not match:
        return None
    return bool(match.group(1)), match.group(2), match.group(3), match.group(4)


def lattice(g: Grammar, token: str) -> Lattice:
    """FRACTION readings; a number grouped with spaces may also read as one number (100 000/24)."""
    grouped = _GROUPED.sub(lambda m: m.group(1).replace(" ", ","), token)
    if grouped != token:
        return alt(_lattice(g, token), _lattice(g, grouped))
    return _lattice(g, token)


def _lattice(g: Grammar, token: str) -> Lattice:
    parsed = parse(token)
    if parsed is None:
        return []
    negative, whole, numerator, denominator = parsed
    found = fraction_lattice(g, numerator, denominator, bare=whole is None)
    if whole is not None:  # the corpus always says "and": 4½ → four and a half, 1 7/8 → one and seven eighths
        found = cat(words(*cardinal_strings(g, whole)), words("and"), found)
    if negative:
        found = cat(words("minus", "negative"), found)
    return found
