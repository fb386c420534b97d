"""Per-reading reference definitions of the negatives' candidate streams, the test oracle of the vectorised
generation (`generators/edit_arrays.py`, `generators/candidate_arrays.py`, `generators/input_negatives.py`).

Each stream's candidates in their fixed order, for one reading or input: meaning-changing edits
(`meaning_list`: a number word, magnitude, unit, currency or month for another of its kind, ordinal ↔
cardinal, day and month swapped, a dropped "point"), generic edits (`generic_list`: delete, insert,
substitute a word of the class's vocabulary), suffix confusions (`suffix_list`: readings of other inputs
sharing the longest suffixes, Gokcen, Zhang & Sproat 2019) and random association (`draws`: a pool in a
hashed rotation; `within_class`, `global_draws`). Draw r of a hashed rotation is `(start + r × stride) mod
length`. `input_pairs` is `chunk_pairs` of one input. docs/guides/negatives.md describes the procedure.
The oracle follows the generator registry: `REFERENCE` names each built-in's reference streams, and a
plug-in's reference is its own `propose` (`plugin_pairs`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from tnforge.generators import word_categories as wc
from tnforge.generators.input_negatives import ROW_SCHEMA, PairRow, Positive, Settings, chunk_columns
from tnforge.generators.negative_context import SUFFIX_MAX, SplitContext
from tnforge.generators.negative_sampling import rotation_parameters
from tnforge.generators.negatives import registered
from tnforge.generators.pair_keys import text_hash64
from tnforge.generators.topk import Hypothesis
from tnforge.generators.vocab_pairs import VocabGroup
from tnforge.hashing import mix64, stable_hash64
from tnforge.schemas.negative_kinds import CLASS, GLOBAL, RANDOM, SYNTHETIC, TOPK

Candidate = tuple[str, str, str]
#: An edit without hashing: (reading, subtype).
Edit = tuple[str, str]
#: No limit: every candidate of a stream.
ALL = 1 << 30


def _replace(words: list[str], index: int, word: str) -> str:
    return " ".join(words[:index] + [word] + words[index + 1:])


def _ordinal_cardinal(words: list[str]) -> list[Edit]:
    found = []
    for index, word in enumerate(words):
        swapped = wc.ORDINAL_OF.get(word) or wc.CARDINAL_OF.get(word)
        if swapped:
            found.append((_replace(words, index, swapped), "substitute:ordinal"))
    return found


def _date_swap(words: list[str]) -> list[Edit]:
    """Day and month exchanged ("the fifth of june" → "the sixth of may") when both are ≤ 12 and differ."""
    months = [i for i, w in enumerate(words) if w in wc.MONTH_NUMBER]
    days = [i for i, w in enumerate(words) if w in wc.DAY_NUMBER]
    if len(months) != 1 or len(days) != 1:
        return []
    month_at, day_at = months[0], days[0]
    # "twenty first" is day 21, not day 1: only single-word days can swap with a month.
    if day_at > 0 and words[day_at - 1] in wc.TENS_WORDS:
        return []
    month, day = wc.MONTH_NUMBER[words[month_at]], wc.DAY_NUMBER[words[day_at]]
    if month == day:
        return []
    swapped = list(words)
    swapped[month_at] = wc.MONTHS[day - 1]
    swapped[day_at] = wc.ordinal_word(wc.CARDINAL_WORDS[month] if month < 10 else wc.TEENS_WORDS[month - 10])
    return [(" ".join(swapped), "swap:date")]


def _drop_point(words: list[str]) -> list[Edit]:
    if len(words) < 2:
        return []
    return [(" ".join(words[:i] + words[i + 1:]), "delete:point") for i, w in enumerate(words) if w == "point"]


#: One substitution slot: (position, its replacement words, index of the word itself among them or -1).
Slot = tuple[int, tuple[str, ...], int]


class ReadingShape:
    """What the meaning-changing edits of one reading (in one class and split) need, worked out once."""

    __slots__ = ("words", "categories", "fixed")

    def __init__(self, reading: str, semiotic_class: str, context: SplitContext) -> None:
        self.words = words = reading.split()
        slots: dict[str, list[Slot]] = {}
        for index, word in enumerate(words):
            category = wc.category_of(word, semiotic_class)
            if category is not None:
                subtype, group = category
                choices = context.category_words(semiotic_class, group)
                skip = choices.index(word) if word in choices else -1
                slots.setdefault(subtype, []).append((index, choices, skip))
        #: (label, slots) per category in the module's priority order.
        self.categories = [(f"substitute:{s}", slots[s]) for s in wc.SUBSTITUTION_GROUPS if s in slots]
        #: The unhashed edits: ordinal ↔ cardinal, date swap, dropped point.
        self.fixed = [edits for edits in (_ordinal_cardinal(words), _date_swap(words), _drop_point(words)) if edits]


def shape_of(reading: str, semiotic_class: str, context: SplitContext) -> ReadingShape:
    """The `ReadingShape` of a reading, cached in the context (readings repeat across inputs)."""
    cache = context._category_cache
    key = ("shape", reading, semiotic_class)
    found = cache.get(key)
    if found is None:
        found = cache[key] = ReadingShape(reading, semiotic_class, context)
    return found


def _slot_choice(slot: Slot, base: int, draw: int) -> str | None:
    """Draw `draw` of a slot's hashed rotation over its choices without the word itself (None: exhausted)."""
    index, choices, skip = slot
    length = len(choices) - (skip >= 0)
    if draw >= length:
        return None
    start, stride = rotation_parameters(length, base, 0xC0DE + 97 * index)
    choice = (start + draw * stride) % length
    return choices[choice + (0 <= skip <= choice)]


def meaning_list(shape: ReadingShape, base: int, limit: int) -> list[Edit]:
    """The first `limit` meaning-changing edits of the first `limit` rounds: round r takes from each category (in priority order) its
    r-th candidate — the slots in turn, draw r // slots at slot r mod slots — then the r-th ordinal swap,
    date swap and dropped point."""
    words, found = shape.words, []
    if limit <= 0 or not (shape.categories or shape.fixed):
        return found
    longest = max([len(e) for e in shape.fixed] + [len(slots) * max(len(s[1]) for s in slots)
                                                   for _, slots in shape.categories])
    for draw in range(min(longest, limit)):
        for label, slots in shape.categories:
            slot = slots[draw % len(slots)]
            word = _slot_choice(slot, base, draw // len(slots))
            if word is not None:
                found.append((_replace(words, slot[0], word), label))
                if len(found) >= limit:
                    return found
        for edits in shape.fixed:
            if draw < len(edits):
                found.append(edits[draw])
                if len(found) >= limit:
                    return found
    return found


def _nth(length: int, base: int, salt: int, draw: int) -> int:
    start, stride = rotation_parameters(length, base, salt)
    return (start + draw * stride) % length


def generic_list(words: list[str], vocabulary: tuple[str, ...], base: int, limit: int) -> list[Edit]:
    """The generic edits of the first `limit` turns. Turn t takes kind t mod k of the reading's kinds
    (deletion when it has two words or more, then insertion and substitution when there is a vocabulary)
    and makes that kind's m-th edit, m = t // k: deletion drops word m of a hashed rotation of the n words;
    insertion puts, in gap m mod (n + 1) of a rotation of the gaps, draw m // (n + 1) of that gap's rotation
    of the vocabulary; substitution likewise over the n words (a draw equal to the word makes no edit)."""
    count, size, found = len(words), len(vocabulary), []
    kinds = (["delete"] if count > 1 else []) + (["insert", "substitute:word"] if size else [])
    for turn in range(limit):
        if not kinds:
            break
        kind, m = kinds[turn % len(kinds)], turn // len(kinds)
        if kind == "delete":
            if m < count:
                at = _nth(count, base, 0xDE1, m)
                found.append((" ".join(words[:at] + words[at + 1:]), kind))
        elif kind == "insert":
            at = _nth(count + 1, base, 0x1A4, m % (count + 1))
            if m // (count + 1) < size:
                word = vocabulary[_nth(size, base, 0x1A5 + 31 * at, m // (count + 1))]
                found.append((" ".join(words[:at] + [word] + words[at:]), kind))
        elif count and m // count < size:
            at = _nth(count, base, 0x5A, m % count)
            word = vocabulary[_nth(size, base, 0x5B + 31 * at, m // count)]
            if word != words[at]:
                found.append((_replace(words, at, word), kind))
    return found


def meaning_substitutions(
    reading: str, semiotic_class: str, context: SplitContext, base: int
) -> Iterator[Candidate]:
    """Every meaning-changing edit of a reading, in `meaning_list`'s order, as (reading, "synthetic", subtype)."""
    for edit, subtype in meaning_list(shape_of(reading, semiotic_class, context), base, ALL):
        yield edit, SYNTHETIC, subtype


def generic_edits(reading: str, semiotic_class: str, context: SplitContext, base: int) -> Iterator[Candidate]:
    """Every generic edit of a reading, in `generic_list`'s order; words from the class vocabulary."""
    vocabulary = context.class_vocab.get(semiotic_class) or context.global_vocab
    words = reading.split()
    turns = 3 * max(len(words), (len(words) + 1) * len(vocabulary))
    for edit, subtype in generic_list(words, vocabulary, base, turns):
        yield edit, SYNTHETIC, subtype


def suffix_list(before: str, context: SplitContext, base: int, limit: int) -> list[str]:
    """The first `limit` readings of other inputs sharing a suffix with `before`: longest suffix first, the
    entries of each suffix in a hashed rotation (draw r = `(start + r × stride) mod entries`)."""
    table, found = context.suffix_table, []
    if limit <= 0:
        return found
    for length in range(min(len(before), SUFFIX_MAX), 0, -1):
        entries = table.get(before[-length:])
        if not entries:
            continue
        size = len(entries)
        start, stride = rotation_parameters(size, base, 0x5FF1 + length)
        for draw in range(size):
            other, reading = entries[(start + draw * stride) % size]
            if other != before:
                found.append(reading)
                if len(found) >= limit:
                    return found
    return found


def suffix_confusions(before: str, context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """(reading, "synthetic", "suffix") for readings of other inputs sharing a suffix with `before`."""
    for reading in suffix_list(before, context, base, ALL):
        yield reading, SYNTHETIC, "suffix"


def draws(pool: tuple[str, ...], base: int, salt: int, subtype: str) -> Iterator[tuple[str, str, str]]:
    """Every reading of a pool once, in an order fixed by stable hashes: (reading, "random", subtype)."""
    length = len(pool)
    if not length:
        return
    start, stride = rotation_parameters(length, base, salt)
    for step in range(length):
        yield pool[(start + step * stride) % length], RANDOM, subtype


def within_class(semiotic_class: str, context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """Readings of other inputs of the same class in the split."""
    return draws(context.class_pools.get(semiotic_class, ()), base, 0xC1A55, CLASS)


def global_draws(context: SplitContext, base: int) -> Iterator[tuple[str, str, str]]:
    """Readings of any other input in the split."""
    return draws(context.global_pool, base, 0x610BA1, GLOBAL)


def chunk_pairs(
    inputs: Sequence[str],
    positives: Mapping[str, Sequence[Positive]],
    hypotheses: Mapping[str, Sequence[Hypothesis]],
    contexts: Mapping[str, SplitContext],
    settings: Settings,
) -> tuple[list[tuple], list[VocabGroup]]:
    """`chunk_columns` with the pair rows as tuples (`PairRow` fields)."""
    table, vocab = chunk_columns(inputs, positives, hypotheses, contexts, settings)
    return list(zip(*(table.column(name).to_pylist() for name in ROW_SCHEMA.names), strict=True)), vocab


def input_pairs(
    before: str,
    positives: Sequence[Positive],
    hypotheses: Sequence[Hypothesis],
    contexts: Mapping[str, SplitContext],
    settings: Settings,
) -> tuple[list[PairRow], list[VocabGroup]]:
    """Pair rows, and vocabulary groups, for one input in every split where it has positives (`chunk_pairs`
    of one input; the same rows as in any chunk)."""
    rows, vocab = chunk_pairs([before], {before: positives}, {before: hypotheses}, contexts, settings)
    return [PairRow(*row) for row in rows], vocab


#: Each built-in generator's reference streams (functions of this module), in the order of its registered
#: streams; top-k takes the hypotheses as found (`generators.topk.topk_candidates`).
REFERENCE: dict[str, tuple[str, ...]] = {
    SYNTHETIC: ("trivial_confusions", "unread", "meaning_substitutions", "suffix_confusions", "generic_edits"),
    RANDOM: ("within_class", "global_draws"),
    TOPK: (),
}


def plugin_pairs(kind: str, before: str, positives: Sequence[Positive], seed: int, cap: int) -> list[tuple]:
    """A plug-in generator's negative rows for one input at ratio "all": per split, its positives' proposals
    (positives ordered by class and reading), none a positive reading of the input, no repeats, at most `cap`."""
    generator = registered()[kind]
    forbidden = {p.after for p in positives}
    rows: list[tuple] = []
    for split in sorted({p.split for p in positives}):
        seen: set[str] = set()
        kept: list[tuple] = []
        for p in sorted((p for p in positives if p.split == split), key=lambda p: (p.semiotic_class, p.after)):
            base = int(mix64(mix64(text_hash64(split, before, seed=seed) ^ p.key) ^ stable_hash64(kind)))
            for reading, subtype in generator.propose(before, p.after, p.semiotic_class, base):
                if reading and reading not in forbidden and reading not in seen:
                    seen.add(reading)
                    kept.append((split, p.semiotic_class, before, reading, 0, kind, subtype, p.key))
        rows += kept[:cap]
    return rows
