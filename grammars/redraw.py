"""Re-drawn number-class tokens: a new written value in the same shape as a real one, with a reading in the
style of the real token's gold reading.

Benchmarks use them to get realistic diversity without copying a corpus: `2 October 2011` / "the second of
october twenty eleven" may become `17 March 1864` / "the seventeenth of march eighteen sixty four". Digits are
re-drawn (keeping leading zeros, plausible years and days), month names swapped for names of the same form,
and the reading chosen among the grammar's readings of the new token: the one whose shape (number words
collapsed, "and", "o", "hundred", "thousand", … counted) is closest to the gold reading's. Deterministic:
every draw comes from stable hashes of the caller's key, never from `random`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property

from tnforge.grammars.grammar import Grammar, normalize_reading
from tnforge.hashing import mix64, stable_hash64

#: The classes whose tokens are re-drawn.
REDRAWN = ("CARDINAL", "ORDINAL", "DECIMAL", "MONEY", "MEASURE", "DATE", "TIME", "TELEPHONE", "DIGIT", "FRACTION")
#: Words counted (not collapsed) when comparing the shapes of two readings.
_MARKERS = ("and", "o", "oh", "zero", "hundred", "thousand", "million", "billion", "point", "sil", "the", "of", "a")
#: How much a difference in each marker's count weighs ("nineteen o five" is nearer "twenty ten" than
#: "nineteen hundred five" is).
_WEIGHTS = (1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1)
_SUFFIXED = re.compile(r"(\d+)(st|nd|rd|th)\b")
_RUN = re.compile(r"\d+")
_WORD = re.compile(r"[A-Za-z]+\.?")
_ATTEMPTS = 8
_MASK64 = (1 << 64) - 1


def _draws(seed: int) -> Iterator[int]:
    """An endless stream of 64-bit values from one seed (splitmix64)."""
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        yield mix64(state)


def ordinal_suffix(number: int) -> str:
    """The English ordinal suffix of a number: 1 → st, 12 → th, 22 → nd."""
    if number % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


class Redrawer:
    """Draws new tokens for one grammar (its months, number words and readings)."""

    def __init__(self, grammar: Grammar, reading_limit: int = 2000):
        self.g = grammar
        self.reading_limit = reading_limit
        self._picked: dict[tuple, str | None] = {}

    @cached_property
    def _number_words(self) -> frozenset[str]:
        w = self.g.words
        words = set(w.ones.values()) | set(w.teens.values()) | set(w.tens.values()) | set(w.ordinal_of.values())
        words |= {o + "s" for o in w.ordinal_of.values()} | {"half", "halves", "quarter", "quarters", "first", "second"}
        words |= {"nineties", "eighties", "seventies", "sixties", "fifties", "forties", "thirties", "twenties"}
        return frozenset(words - set(_MARKERS))

    @cached_property
    def _months(self) -> tuple[list[str], list[str]]:
        """Written month names: full names, abbreviations (as in the table, title case)."""
        full = [row[0] for row in self.g.tables["months"] if len(row[0]) > 4 or row[0] == row[2].title()]
        abbreviations = [row[0] for row in self.g.tables["months"] if row[0] not in full]
        return full, abbreviations

    @cached_property
    def _month_words(self) -> frozenset[str]:
        return frozenset(self.g.month_names.values())

    def shape(self, reading: str) -> tuple[str, tuple[int, ...]]:
        """A reading's template (runs of number words → #, month names → M) and its marker counts."""
        parts: list[str] = []
        words = reading.split()
        for word in words:
            token = "#" if word in self._number_words else "M" if word in self._month_words else word
            if token in _MARKERS:
                token = "#" if token in ("o", "oh", "zero", "hundred", "thousand", "million", "billion") else token
            if not (token == "#" and parts and parts[-1] == "#"):
                parts.append(token)
        return " ".join(parts), tuple(words.count(m) for m in _MARKERS)

    def pick_reading(self, cls: str, token: str, gold: str) -> str | None:
        """The grammar's reading of `token` closest in shape to `gold` (a reading of another token)."""
        template, counts = self.shape(normalize_reading(gold))
        length = len(gold.split())
        key = (cls, token, template, counts, length)
        if key in self._picked:
            return self._picked[key]
        readings = self.g.readings(token, cls, self.reading_limit)
        if not readings:
            return None

        def score(reading: str) -> tuple:
            other, other_counts = self.shape(reading)
            return (other != template,
                    sum(w * abs(a - b) for w, a, b in zip(_WEIGHTS, counts, other_counts, strict=True)),
                    abs(len(reading.split()) - length), reading)

        picked = min(readings, key=score)
        if len(self._picked) < 500_000:
            self._picked[key] = picked
        return picked

    def _digits(self, run: str, draws: Iterator[int], cls: str, context: str) -> str:
        if cls == "DATE" and len(run) == 4 and run[0] in "12":
            return str(1500 + next(draws) % 530)  # a plausible year
        if cls == "DATE" and len(run) <= 2 and re.search(r"[A-Za-z]", context):
            return str(1 + next(draws) % 28)  # a day next to a month name
        out = []
        for index, digit in enumerate(run):
            value = next(draws) % 10
            if index == 0 and digit != "0" and len(run) > 1:
                value = 1 + next(draws) % 9
            elif digit == "0" and index == 0:
                value = 0
            out.append(str(value))
        return "".join(out)

    def _month(self, match: re.Match, draws: Iterator[int]) -> str:
        word = match.group(0)
        if word.lower().rstrip(".") not in self.g.months:
            return word
        full, abbreviations = self._months
        pool = full if word.rstrip(".") in full else abbreviations
        choice = pool[next(draws) % len(pool)]
        choice += "." if word.endswith(".") else ""
        return choice.upper() if word.isupper() and len(word) > 1 else choice.lower() if word.islower() else choice

    def written(self, cls: str, before: str, seed: int) -> str:
        """A new written token in the shape of `before` (digits re-drawn, month names swapped)."""
        draws = _draws(seed)
        text = _RUN.sub(lambda m: self._digits(m.group(0), draws, cls, before), before)
        if cls == "DATE":
            text = _WORD.sub(lambda m: self._month(m, draws), text)
        return _SUFFIXED.sub(lambda m: m.group(1) + ordinal_suffix(int(m.group(1))), text)

    def redraw(self, cls: str, before: str, after: str, *key: object) -> tuple[str, str] | None:
        """(new token, its reading) for a gold (cls, before, after), from the stable hash of `key`; None when
        no draw of the token's shape has a reading (the caller keeps the original)."""
        if cls not in REDRAWN or not _RUN.search(before):
            return None
        for attempt in range(_ATTEMPTS):
            token = self.written(cls, before, stable_hash64(cls, before, attempt, *key))
            try:
                reading = self.pick_reading(cls, token, after)
            except Exception:  # noqa: BLE001 - a draw the grammar cannot read is skipped
                reading = None
            if reading:
                return token, reading
        return None


__all__ = ["REDRAWN", "Redrawer"]
