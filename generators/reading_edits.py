"""Edits of a gold reading: meaning-changing substitutions first, then deletions, insertions, substitutions.

Meaning-changing edits (subtype in parentheses): a number word for another of its kind ("three" → "four",
`substitute:number`), a magnitude (`substitute:magnitude`), a unit ("kilograms" → "kilometers",
`substitute:unit`), a currency (`substitute:currency`), a month (`substitute:month`), ordinal ↔ cardinal
(`substitute:ordinal`), day and month swapped (`swap:date`), a dropped "point" (`delete:point`).
Replacement words come from the same class's vocabulary in the split (falling back to the built-in word
group when the class has fewer than two of them). Generic edits follow: `delete`, `insert`,
`substitute:word` (a word from the class's vocabulary).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat

from tnforge.generators import word_categories as wc
from tnforge.generators.negative_context import SplitContext
from tnforge.generators.negative_sampling import rotation, round_robin
from tnforge.schemas.negative_kinds import SYNTHETIC

Candidate = tuple[str, str, str]


def _replace(words: list[str], index: int, word: str) -> str:
    return " ".join(words[:index] + [word] + words[index + 1:])


def _category_substitutions(
    words: list[str], semiotic_class: str, context: SplitContext, base: int
) -> dict[str, Iterator[Candidate]]:
    """Per subtype: a stream over positions (first choice at every position, then the second, …)."""
    slots: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for index, word in enumerate(words):
        category = wc.category_of(word, semiotic_class)
        if category is not None:
            subtype, group = category
            slots.setdefault(subtype, []).append((index, context.category_words(semiotic_class, group)))

    def position(index: int, choices: tuple[str, ...], label: str) -> Iterator[Candidate]:
        """The replacements at one position, in its hashed order (the word itself skipped)."""
        word = words[index]
        for choice in rotation(len(choices), base, 0xC0DE + 97 * index):
            if choices[choice] != word:
                yield _replace(words, index, choices[choice]), SYNTHETIC, label

    def stream(subtype: str, positions: list[tuple[int, tuple[str, ...]]]) -> Iterator[Candidate]:
        label = f"substitute:{subtype}"
        return round_robin(*(position(index, choices, label) for index, choices in positions))

    return {subtype: stream(subtype, positions) for subtype, positions in slots.items()}


def _ordinal_cardinal(words: list[str]) -> Iterator[Candidate]:
    for index, word in enumerate(words):
        swapped = wc.ORDINAL_OF.get(word) or wc.CARDINAL_OF.get(word)
        if swapped:
            yield _replace(words, index, swapped), SYNTHETIC, "substitute:ordinal"


def _date_swap(words: list[str]) -> Iterator[Candidate]:
    """Day and month exchanged ("the fifth of june" → "the sixth of may") when both are ≤ 12 and differ."""
    months = [i for i, w in enumerate(words) if w in wc.MONTH_NUMBER]
    days = [i for i, w in enumerate(words) if w in wc.DAY_NUMBER]
    if len(months) != 1 or len(days) != 1:
        return
    month_at, day_at = months[0], days[0]
    # "twenty first" is day 21, not day 1: only single-word days can swap with a month.
    if day_at > 0 and words[day_at - 1] in wc.TENS_WORDS:
        return
    month, day = wc.MONTH_NUMBER[words[month_at]], wc.DAY_NUMBER[words[day_at]]
    if month == day:
        return
    swapped = list(words)
    swapped[month_at] = wc.MONTHS[day - 1]
    swapped[day_at] = wc.ordinal_word(wc.CARDINAL_WORDS[month] if month < 10 else wc.TEENS_WORDS[month - 10])
    yield " ".join(swapped), SYNTHETIC, "swap:date"


def _drop_point(words: list[str]) -> Iterator[Candidate]:
    if len(words) > 1:
        for index, word in enumerate(words):
            if word == "point":
                yield " ".join(words[:index] + words[index + 1:]), SYNTHETIC, "delete:point"


def meaning_substitutions(
    reading: str, semiotic_class: str, context: SplitContext, base: int
) -> Iterator[Candidate]:
    """Meaning-changing edits of a reading, interleaved across subtypes (in the module's priority order)."""
    words = reading.split()
    streams = _category_substitutions(words, semiotic_class, context, base)
    ordered = [streams[s] for s in wc.SUBSTITUTION_GROUPS if s in streams]
    ordered += [_ordinal_cardinal(words), _date_swap(words), _drop_point(words)]
    return round_robin(*ordered)


def generic_edits(reading: str, semiotic_class: str, context: SplitContext, base: int) -> Iterator[Candidate]:
    """Deletions, insertions and substitutions of single words, interleaved; words from the class vocabulary."""
    words = reading.split()
    vocabulary = context.class_vocab.get(semiotic_class) or context.global_vocab

    def deletions() -> Iterator[Candidate]:
        if len(words) > 1:
            for index in rotation(len(words), base, 0xDE1):
                yield " ".join(words[:index] + words[index + 1:]), SYNTHETIC, "delete"

    def insertions() -> Iterator[Candidate]:
        slots = [rotation(len(vocabulary), base, 0x1A5 + 31 * at) for at in range(len(words) + 1)]
        positions = list(rotation(len(words) + 1, base, 0x1A4))
        for at, order in round_robin(*(repeat((p, slots[p]), len(vocabulary)) for p in positions)):
            for choice in order:
                yield " ".join(words[:at] + [vocabulary[choice]] + words[at:]), SYNTHETIC, "insert"
                break

    def substitutions() -> Iterator[Candidate]:
        slots = [rotation(len(vocabulary), base, 0x5B + 31 * at) for at in range(len(words))]
        positions = list(rotation(len(words), base, 0x5A))
        for at, order in round_robin(*(repeat((p, slots[p]), len(vocabulary)) for p in positions)):
            for choice in order:
                if vocabulary[choice] != words[at]:
                    yield _replace(words, at, vocabulary[choice]), SYNTHETIC, "substitute:word"
                    break

    if not vocabulary:
        return deletions()
    return round_robin(deletions(), insertions(), substitutions())
