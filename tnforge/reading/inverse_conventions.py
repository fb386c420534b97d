"""What the grammar route of inverse text normalization learns from the train split: the written conventions.

Two tables, counted over ITN sentences (`tnforge.itn_sentences`):

- `spans`: a span of spoken words → the (class, written form) pairs it was written as, with counts, and how
  often the span occurs in the spoken text at all (so "one" written "1" only when it mostly is);
- `patterns`: a span's shape — its words with each run of number words a slot (`#`, `#th` for an ordinal)
  → the (class, written shape) pairs, each number a slot (`#`, or `#,` written with thousands commas): "#
  kilograms" → ("MEASURE", "#kg") or ("MEASURE", "# kg"), with the same two counts.

`Conventions.to_json` writes them with sorted keys and ordered lists: the same sentences give the same bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tnforge.itn_sentences import ItnSentence, score_words

#: A written number: digits with thousands commas (a `#,` slot), or a plain digit run (a `#` slot).
WRITTEN_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d+")
#: Longest span of words / of units a convention is kept for.
MAX_WORDS = 8
MAX_UNITS = 6
#: Classes whose written forms are read as the words themselves when no convention says otherwise.
PASS_THROUGH = ("PLAIN", "PUNCT")


def written_shape(written: str) -> tuple[str, list[str]]:
    """A written form with each number a slot, and the slots: "38.4 km²" → ("#.# km²", ["#", "#"])."""
    slots: list[str] = []

    def slot(match: re.Match) -> str:
        slots.append("#," if "," in match.group(0) else "#")
        return "\0"

    shape = WRITTEN_NUMBER.sub(slot, written)
    it = iter(slots)
    return "".join(next(it) if c == "\0" else c for c in shape), slots


def spoken_shape(words: Sequence[str], units: Sequence[tuple[int, int, str]], kind=None) -> tuple[str, int]:
    """Words with each number run a slot, and the number of slots: "thirty eight point four square
    kilometers" → ("# point # square kilometers", 2). With `kind(run words)` (`NumberReader.kind`), a
    slot also says what its run reads back as: "#c2 point #c1 square kilometers"."""
    parts = [words[a] if k == "w" else k + kind(words[a:b]) if kind is not None else k for a, b, k in units]
    return " ".join(parts), sum(k != "w" for _, _, k in units)


def shapes(words: Sequence[str], units: Sequence[tuple[int, int, str]], kind) -> list[str]:
    """The fine shape, then the coarse one, of a span with slots ([] without)."""
    coarse, slots = spoken_shape(words, units)
    if not slots:
        return []
    fine = spoken_shape(words, units, kind)[0]
    return [fine] if fine == coarse else [fine, coarse]


def _ranked(counter: Counter, group) -> list[list]:
    """[class, written, count] best first: the written forms that score alike (`group(written)`) together, the
    biggest such group first ("one" 42 + "One" 14 before "1" 45), then by count."""
    totals: Counter = Counter()
    for (_, written), count in counter.items():
        totals[group(written)] += count
    return [[*key, count] for key, count in
            sorted(counter.items(), key=lambda kv: (-totals[group(kv[0][1])], group(kv[0][1]), -kv[1], kv[0]))]


def _scored(written: str) -> str:
    return " ".join(score_words(written))


def _shape_key(written: str) -> str:
    return written.strip().lower()


@dataclass
class Conventions:
    """The learned tables (see the module): keys are spaced words / shapes; values [class, written, count]
    best first; `*_seen`: occurrences of the key in the spoken text at unit edges, but for those inside a
    longer token."""

    spans: dict[str, list[list]] = field(default_factory=dict)
    spans_seen: dict[str, int] = field(default_factory=dict)
    patterns: dict[str, list[list]] = field(default_factory=dict)
    patterns_seen: dict[str, int] = field(default_factory=dict)
    sentences: int = 0

    def to_json(self) -> dict:
        return {"sentences": self.sentences, "spans": self.spans, "spans_seen": self.spans_seen,
                "patterns": self.patterns, "patterns_seen": self.patterns_seen}

    @classmethod
    def from_json(cls, data: dict) -> Conventions:
        return cls(data["spans"], data["spans_seen"], data["patterns"], data["patterns_seen"], data["sentences"])


def learn(sentences: Iterable[ItnSentence], numbers) -> Conventions:
    """Count the conventions of `sentences`; `numbers` cuts words into units and says what a number run reads
    back as (`grammars.inversion.NumberReader`: `units`, `kind`)."""
    sentences = list(sentences)
    spans: dict[str, Counter] = {}
    patterns: dict[str, Counter] = {}
    for sentence in sentences:
        for token in sentence.tokens:
            if token.start == token.end or token.end - token.start > MAX_WORDS:
                continue
            words = sentence.words[token.start:token.end]
            spans.setdefault(" ".join(words), Counter())[(token.cls, token.written)] += 1
            if token.cls in PASS_THROUGH:
                continue
            span_units = numbers.units(words)
            written, written_slots = written_shape(token.written)
            if len(written_slots) != sum(k != "w" for _, _, k in span_units) or len(span_units) > MAX_UNITS:
                continue
            for shape in shapes(words, span_units, numbers.kind):
                patterns.setdefault(shape, Counter())[(token.cls, written)] += 1
    spans_seen: Counter = Counter()
    patterns_seen: Counter = Counter()
    for sentence in sentences:
        words = sentence.words
        token_of = [0] * len(words)
        for index, token in enumerate(sentence.tokens):
            token_of[token.start:token.end] = [index] * (token.end - token.start)
        sentence_units = numbers.units(words)
        for u in range(len(sentence_units)):
            for m in range(1, min(MAX_UNITS, len(sentence_units) - u) + 1):
                piece = sentence_units[u:u + m]
                start, end = piece[0][0], piece[-1][1]
                inside = sentence.tokens[token_of[start]]
                if token_of[start] == token_of[end - 1] and (inside.start, inside.end) != (start, end):
                    continue  # part of a longer token: the longer span is tried first, so it says nothing
                key = " ".join(words[start:end])
                if key in spans:  # a span counts where it starts and ends at unit edges
                    spans_seen[key] += 1
                for shape in shapes(words, piece, numbers.kind):
                    if shape in patterns:
                        patterns_seen[shape] += 1
    return Conventions(
        {key: _ranked(counter, _scored) for key, counter in sorted(spans.items())},
        {key: max(spans_seen[key], sum(spans[key].values())) for key in sorted(spans)},
        {key: _ranked(counter, _shape_key) for key, counter in sorted(patterns.items())},
        {key: max(patterns_seen[key], sum(patterns[key].values())) for key in sorted(patterns)},
        len(sentences))
