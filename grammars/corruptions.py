"""Meaning-changing corruptions of gold readings, to measure (and test) that the grammars reject them.

Kinds: a number word replaced by another of its kind (five → six), a magnitude changed (thousand → million),
an ordinal made cardinal or back (fifth ↔ five), a unit or currency replaced, a month replaced, two number
words swapped. Deterministic: every reading yields the same corruptions in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator

from tnforge.grammars.grammar import Grammar
from tnforge.grammars.memo import per_grammar


@per_grammar
def _synonyms(g: Grammar) -> dict[str, frozenset[str]]:
    """One-word unit and currency names that read the same symbol (amperes, amps): replacing one by the
    other does not change the meaning, so it is no corruption."""
    groups: dict[str, set[str]] = {}
    for rows in list(g.units.values()) + [tuple((r[0], r[1]) for r in rows) for rows in g.currencies.values()]:
        names = {word for pair in rows for name in pair for word in name.split()}
        for word in names:
            groups.setdefault(word, set()).update(names)
    return {word: frozenset(names) for word, names in groups.items()}


@per_grammar
def _vocabularies(g: Grammar) -> dict[str, list[str]]:
    w = g.words
    def one_word(names: set[str]) -> list[str]:
        return sorted(n for n in names if " " not in n)

    unit_pairs = [pair for pairs in g.units.values() for pair in pairs]
    money = [row for rows in g.currencies.values() for row in rows]
    return {
        "number": [w.ones[d] for d in range(1, 10)],
        "teen": [w.teens[d] for d in range(10, 20)],
        "tens": [w.tens[d] for d in range(2, 10)],
        "magnitude": [w.scales[e] for e in sorted(w.scales)],
        "ordinal": [w.ordinal_of[w.ones[d]] for d in range(1, 10)] + [w.ordinal_of[w.teens[d]] for d in range(10, 20)],
        "unit": one_word({s for s, _ in unit_pairs}),
        "unit_plural": one_word({p for s, p in unit_pairs if p != s}),
        "currency": one_word({row[0] for row in money}),
        "currency_plural": one_word({row[1] for row in money if row[1] != row[0]}),
        "month": [g.month_names[m] for m in range(1, 13)],
    }


@per_grammar
def _index(g: Grammar) -> tuple[dict[str, str], dict[str, int]]:
    """Each corruptible word's kind and its position in its kind's list."""
    vocab = _vocabularies(g)
    index = {word: kind for kind, words in vocab.items() for word in words}
    return index, {word: vocab[kind].index(word) for word, kind in index.items()}


def corruptions(g: Grammar, reading: str, per_word: int = 2) -> Iterator[tuple[str, str]]:
    """(kind, corrupted reading) pairs; `per_word` replacements per corruptible word and kind."""
    vocab = _vocabularies(g)
    synonyms = _synonyms(g)
    index, positions = _index(g)
    cardinal_of = {o: c for c, o in g.words.ordinal_of.items()}
    tokens = reading.split()
    produced: set[str] = {reading}

    def emit(kind: str, new_tokens: list[str]) -> Iterator[tuple[str, str]]:
        text = " ".join(new_tokens)
        if text not in produced:
            produced.add(text)
            yield kind, text

    for position, word in enumerate(tokens):
        kind = index.get(word)
        if kind is None:
            continue
        choices = vocab[kind]
        start = positions[word]
        same = synonyms.get(word, frozenset()) if kind.startswith(("unit", "currency")) else frozenset()
        for step in range(1, per_word + 1):
            replacement = choices[(start + step) % len(choices)]
            if replacement in same:
                continue
            yield from emit(f"wrong_{kind}", tokens[:position] + [replacement] + tokens[position + 1:])
        if kind == "ordinal" and word in cardinal_of:
            yield from emit("ordinal_to_cardinal", tokens[:position] + [cardinal_of[word]] + tokens[position + 1:])
        if kind in ("number", "teen", "tens") and word in g.words.ordinal_of:
            ordinal = g.words.ordinal_of[word]
            yield from emit("cardinal_to_ordinal", tokens[:position] + [ordinal] + tokens[position + 1:])
    numbers = [i for i, t in enumerate(tokens) if index.get(t) in ("number", "teen", "tens", "ordinal")]
    for a, b in zip(numbers, numbers[1:], strict=False):
        if tokens[a] != tokens[b]:
            swapped = list(tokens)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            yield from emit("swapped_fields", swapped)
