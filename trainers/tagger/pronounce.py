"""Is a word read as a word or spelt out? Pronounceability, case and digit-group traits of a token.

`CharModel` is a character trigram model of words (lower-cased letters between `^` and `$`), estimated from
word types: one from the train split's PLAIN words, one from its LETTERS tokens. A token's mean log-probability
per letter under each (and its least likely letter) tells "KHAD" (a possible word) from "PMAs" (letters).
`letter_traits` adds the shape of its letters: vowel groups (syllables), consonant runs at the start (onset)
and end (coda), vowel share; `case_traits` and `digit_traits` the case and digit-group patterns ("PbTe",
"PMAs"; "49-30-4" is no date). Pure Python: no xgboost, torch, Beam.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

VOWELS = frozenset("aeiouy")
ORDER = 3
#: Weight of the lower-order estimate in each context (Dirichlet smoothing of the interpolated model).
SMOOTHING = 2.0
_DIGITS = re.compile(r"\d+")
_CAPS_PLURAL = re.compile(r"[A-Z]{2,}'?s")
_NAN = float("nan")


def letters(token: str) -> str:
    """The lower-cased letters of a token ("U.S." → "us", "PbTe" → "pbte")."""
    return "".join(c for c in token.lower() if c.isalpha())


class CharModel:
    """Interpolated character n-gram model (orders 1..ORDER) of words, counted over distinct words."""

    def __init__(self, counts: dict[str, int] | None = None) -> None:
        self.counts = dict(sorted((counts or {}).items()))
        self._contexts: Counter = Counter()
        for gram, count in self.counts.items():
            self._contexts[gram[:-1]] += count
        self._symbols = sum(1 for g in self.counts if len(g) == 1) + 1

    @classmethod
    def fit(cls, words: Iterable[str]) -> CharModel:
        """Count the n-grams of each distinct non-empty word once."""
        counts: Counter = Counter()
        for word in set(words):
            if word:
                padded = "^" * (ORDER - 1) + word + "$"
                for end in range(ORDER - 1, len(padded)):
                    for n in range(1, ORDER + 1):
                        counts[padded[end - n + 1: end + 1]] += 1
        return cls(dict(counts))

    def _probability(self, context: str, symbol: str) -> float:
        p = (self.counts.get(symbol, 0) + 1.0) / (self._contexts.get("", 0) + self._symbols)
        for n in range(1, len(context) + 1):
            ctx = context[-n:]
            seen = self._contexts.get(ctx, 0)
            if not seen:
                break
            p = (self.counts.get(ctx + symbol, 0) + SMOOTHING * p) / (seen + SMOOTHING)
        return p

    def score(self, word: str) -> tuple[float, float]:
        """(mean log2-probability per symbol, the least likely symbol's) of a word, `$` included; NaN when
        there is no word or no model."""
        if not word or not self.counts:
            return _NAN, _NAN
        padded = "^" * (ORDER - 1) + word + "$"
        logs = [math.log2(self._probability(padded[end - ORDER + 1: end], padded[end]))
                for end in range(ORDER - 1, len(padded))]
        return sum(logs) / len(logs), min(logs)


LETTER_NAMES = ("syllables", "onset", "coda", "vowel_share", "vowel_run", "letters_per_syllable")


def letter_traits(word: str) -> list[float]:
    """Syllable shape of lower-cased letters (see LETTER_NAMES); NaN without letters."""
    if not word:
        return [_NAN] * len(LETTER_NAMES)
    groups = re.findall(r"v+|c+", "".join("v" if c in VOWELS else "c" for c in word))
    syllables = sum(g[0] == "v" for g in groups)
    onset = len(groups[0]) if groups[0][0] == "c" else 0
    coda = len(groups[-1]) if groups[-1][0] == "c" else 0
    vowels = sum(len(g) for g in groups if g[0] == "v")
    return [float(syllables), float(onset), float(coda), vowels / len(word),
            float(max((len(g) for g in groups if g[0] == "v"), default=0)), len(word) / max(1, syllables)]


CASE_NAMES = ("case_changes", "upper_after_lower", "caps_plural", "leading_caps")


def case_traits(text: str) -> list[float]:
    """Case pattern (see CASE_NAMES): case changes, capitals right after a small letter ("PbTe", "iPS"),
    capitals then a plural s ("PMAs", "UFOs", "BYU's"), capitals at the start."""
    cased = [c.isupper() for c in text if c.isupper() or c.islower()]
    changes = sum(a != b for a, b in zip(cased, cased[1:], strict=False))
    inner = sum(b and not a for a, b in zip(cased, cased[1:], strict=False))
    lead = next((i for i, upper in enumerate(cased) if not upper), len(cased))
    return [float(changes), float(inner), float(bool(_CAPS_PLURAL.fullmatch(text))), float(lead)]


DIGIT_NAMES = ("digit_groups", "group1_len", "group2_len", "last_group_len", "longest_group", "leading_zero",
               "years", "date_like")


def _is_date(groups: list[str]) -> bool:
    """Whether three digit groups read as year-month-day, day-month-year or month-day-year."""
    a, b, c = (int(g) for g in groups)

    def year(i: int) -> bool:
        return len(groups[i]) == 2 or (len(groups[i]) == 4 and 1000 <= int(groups[i]) <= 2099)

    def day_month(d: int, m: int) -> bool:
        return 1 <= d <= 31 and 1 <= m <= 12

    return (year(0) and day_month(c, b)) or (year(2) and (day_month(a, b) or day_month(b, a)))


def digit_traits(text: str) -> list[float]:
    """Digit groups (see DIGIT_NAMES): how many, first / second / last lengths, longest, one with a leading
    zero, years (1000–2099), whether three groups read as a date (NaN: not three groups)."""
    groups = _DIGITS.findall(text)
    if not groups:
        return [0.0, *([_NAN] * (len(DIGIT_NAMES) - 1))]
    lengths = [len(g) for g in groups]
    return [float(len(groups)), float(lengths[0]), float(lengths[1]) if len(groups) > 1 else _NAN,
            float(lengths[-1]), float(max(lengths)), float(any(len(g) > 1 and g[0] == "0" for g in groups)),
            float(sum(len(g) == 4 and 1000 <= int(g) <= 2099 for g in groups)),
            float(_is_date(groups)) if len(groups) == 3 else _NAN]
