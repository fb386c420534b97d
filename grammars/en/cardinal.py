"""CARDINAL: integers up to 10^18 (with or without commas and "and"), negatives, Roman numerals.

Also the number helpers the other classes build on: cardinal, ordinal, digit-by-digit and decimal lattices.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.numbers import integer_digits
from tnforge.grammars.lattice import Lattice, alt, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_ROMAN = re.compile(r"^(?=[MDCLXVI])M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
_TRAILING = " ,.;:!?)/"
_NEGATIVE = ("-", "−", "–")


def roman_value(text: str) -> int | None:
    """The value of an upper-case Roman numeral, or None."""
    if not text or not _ROMAN.match(text):
        return None
    total = 0
    for i, char in enumerate(text):
        value = _ROMAN_VALUES[char]
        total += -value if i + 1 < len(text) and _ROMAN_VALUES[text[i + 1]] > value else value
    return total


def cardinal_strings(g: Grammar, text: str) -> tuple[str, ...]:
    """Cardinal readings of a written non-negative integer ("1,532", "2016"); () when it is not one."""
    digits = integer_digits(text)
    return g.numbers.cardinal(digits) if digits is not None else ()


def ordinal_strings(g: Grammar, text: str) -> tuple[str, ...]:
    """Ordinal readings of a written non-negative integer (21 → twenty first)."""
    return tuple(o for r in cardinal_strings(g, text) if (o := g.words.ordinalize(r)) is not None)


def digit_path(g: Grammar, digits: str) -> tuple[tuple[str, ...], ...]:
    """One slot per digit, each with the digit's spoken alternatives (0 → o / zero / oh)."""
    slots = g.numbers.digit_slots
    return tuple(slots[d] for d in digits)


def signed(g: Grammar, text: str, body) -> Lattice:
    """`body(text)` with an optional leading minus sign read "minus" (or "negative")."""
    if text[:1] in _NEGATIVE and len(text) > 1:
        inner = body(text[1:])
        return cat(words("minus", "negative"), inner) if inner else []
    return body(text)


def integer_lattice(g: Grammar, text: str) -> Lattice:
    """Cardinal readings of an integer with optional minus sign."""
    return signed(g, text, lambda t: words(*cardinal_strings(g, t)))


def decimal_lattice(g: Grammar, text: str) -> Lattice:
    """Readings of "12.5", ".5", "0.001" (fraction digits one by one) or a plain integer; optional minus."""

    def body(t: str) -> Lattice:
        if "." not in t:
            return words(*cardinal_strings(g, t))
        whole, _, fraction = t.partition(".")
        if not fraction.isdigit() or "." in fraction:
            return []
        if whole in ("", "0"):
            head = words("zero", "o", "oh", "nought", "")
        else:
            head = words(*cardinal_strings(g, whole))
            if not head:
                return []
        return cat(head, words("point"), [digit_path(g, fraction)])

    return signed(g, text, body)


_RANGE = re.compile(r"^(.*?\d)\s*(?:[-–—~]|to)\s*(-?\d.*)$")
#: How a range is read: 3–5 → three to five.
RANGE_WORDS = ("to", "through", "")
_SCALE_WORDS = ("thousand", "million", "billion", "trillion")


def range_lattice(text: str, single) -> Lattice:
    """`single(a)` to `single(b)` for a written range a–b (3–5, 1,000-2,000, 2.5–3); [] when not one."""
    match = _RANGE.match(text)
    if not match:
        return []
    first, second = single(match.group(1).strip()), single(match.group(2).strip())
    return cat(first, words(*RANGE_WORDS), second) if first and second else []


def clean(token: str) -> str:
    """The token without surrounding spaces and trailing punctuation ("13," → "13")."""
    return token.strip().rstrip(_TRAILING).strip()


def lattice(g: Grammar, token: str) -> Lattice:
    """CARDINAL readings."""
    text = clean(token) or token.strip()
    found = integer_lattice(g, text)
    if not found and text.isdigit():
        found = integer_lattice(g, text.lstrip("0") or "0")  # "04" → four
    if not found:
        value = roman_value(text)
        if value is not None:
            found = words(*g.numbers.cardinal(str(value)))
    if not found:
        head, _, scale = text.rpartition(" ")
        if scale.lower() in _SCALE_WORDS and head:  # 3 million → three million
            number = integer_lattice(g, head)
            found = cat(number, words(scale.lower())) if number else []
    if not found and text.replace(" ", "").replace(",", "").isdigit() and " " in text:
        found = integer_lattice(g, text.replace(" ", ""))
    if not found and " " in text:
        # The corpus sometimes glues a trailing word to a number ("63 U.S." → sixty three).
        head, _, _rest = text.partition(" ")
        found = integer_lattice(g, head.rstrip(_TRAILING))
    if not found:
        found = range_lattice(text, lambda part: integer_lattice(g, part))
    return alt(found)
