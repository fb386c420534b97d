"""The grammar route of inverse text normalization: spoken words → written tokens.

Left to right, the longest span wins that the train split mostly wrote as one token: a span seen as such
(`Conventions.spans`, its most frequent written form) or a span of the same shape (`Conventions.patterns`,
its numbers read back by the inverted number grammars and written in the most frequent shape). A written
form is taken only when its class's covering grammar reads it as the span (`Inversion.licenses_span`); a word
no convention covers is written as spoken (a run of single letters as LETTERS, when the grammar agrees).

`Router.proposals` gives each span with its candidates for the neural route (`reading.inverse_model`): the route's
choice first, every other licensed form its conventions and patterns offer, the words as spoken last.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tnforge.reading.inverse_conventions import MAX_UNITS, MAX_WORDS, Conventions, shapes

#: Share of a span's occurrences in train that were one token, from which its convention is used.
MIN_RATE = 0.5
#: Digit strings tried per number run when filling a shape.
CANDIDATES = 3
_SLOT = re.compile(r"#,|#")
_ORDINAL = re.compile(r"(?<![\d,])(\d+)(st|nd|rd|th)\b", re.I)
#: Written candidates besides the route's choice and the words as spoken, at most, per span.
MAX_ALTERNATIVES = 6
#: Where a written token came from (`InverseToken.source`); "model": its span had two candidates or more and the
#: inverse model's scores decided (`reading.inverse_model`).
SOURCES = ("convention", "pattern", "letters", "as spoken", "model")


@dataclass(frozen=True)
class Proposal:
    """A span of spoken words start..end and its written candidates (`InverseToken`s), the route's choice first."""

    start: int
    end: int
    candidates: tuple[InverseToken, ...]


@dataclass(frozen=True)
class InverseToken:
    """One written token of a spoken text: words `start`..`end` (`words`) written as `written`, a `cls`
    token; `source`: "convention" (the span's own written form in train), "pattern" (its shape's), "letters"
    (spelt letters joined), "as spoken"."""

    written: str
    cls: str
    start: int
    end: int
    words: tuple[str, ...]
    source: str


def _ordinal_suffixes_agree(written: str) -> bool:
    """False when a number is written with another ordinal suffix than its own (91th, 2rd); the covering
    grammar reads the digits and lets the suffix be."""
    for digits, suffix in _ORDINAL.findall(written):
        n = int(digits)
        own = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        if suffix.lower() != own:
            return False
    return True


def _format(digits: str, slot: str) -> str:
    if slot == "#," and digits.isdigit() and not digits.startswith("0"):
        return f"{int(digits):,}"
    return digits


class Router:
    """Reads ASR words back into written tokens with learned conventions and the inverted grammar."""

    def __init__(self, conventions: Conventions, inversion) -> None:
        self.conventions = conventions
        self.inversion = inversion
        self._filled: dict[tuple, tuple[str, str] | None] = {}
        self._chosen: dict[tuple[str, bool], tuple[str, str] | None] = {}

    def _convention(self, words: tuple[str, ...], strict: bool = True) -> tuple[str, str] | None:
        key = (" ".join(words), strict)
        if key not in self._chosen:
            options = self.conventions.spans.get(key[0])
            found = None
            rate = MIN_RATE if strict else 0.0
            if options and sum(o[2] for o in options) >= rate * self.conventions.spans_seen[key[0]]:
                found = next(((cls, written) for cls, written, _ in options
                              if self.inversion.licenses_span(written, words, cls)), None)
            self._chosen[key] = found
        return self._chosen[key]

    def _pattern(self, words: Sequence[str], piece: Sequence[tuple[int, int, str]],
                 strict: bool = True) -> tuple[str, str] | None:
        span = tuple(words[piece[0][0]:piece[-1][1]])
        key = (" ".join(f"{a - piece[0][0]}:{b - piece[0][0]}" for a, b, _ in piece), span, strict)
        if key in self._filled:
            return self._filled[key]
        found = None
        numbers = self.inversion.numbers
        for shape in shapes(words, piece, numbers.kind):
            options = self.conventions.patterns.get(shape)
            if options and sum(o[2] for o in options) >= (MIN_RATE if strict else 0.0) * self.conventions.patterns_seen[shape]:
                runs = [numbers.digits(words[a:b])[:CANDIDATES] for a, b, kind in piece if kind != "w"]
                found = next(self._fills(options, runs, span), None)
                break
        self._filled[key] = found
        return found

    def _fills(self, options: list[list], runs: list[tuple[str, ...]], span: tuple[str, ...]):
        for cls, written_shape, _ in options:
            parts = _SLOT.split(written_shape)
            slots = _SLOT.findall(written_shape)
            if len(slots) != len(runs):
                continue
            for digits in itertools.product(*runs):
                written = parts[0] + "".join(_format(d, s) + p for d, s, p in zip(digits, slots, parts[1:], strict=True))
                if _ordinal_suffixes_agree(written) and self.inversion.licenses_span(written, span, cls):
                    yield cls, written

    def _letters(self, words: Sequence[str], i: int) -> InverseToken | None:
        j = i
        while j < len(words) and len(words[j]) == 1 and words[j].isalpha():
            j += 1
        span = tuple(words[i:j])
        written = "".join(span).upper()
        if j - i >= 2 and self.inversion.licenses_span(written, span, "LETTERS"):
            return InverseToken(written, "LETTERS", i, j, span, "letters")
        return None

    def _best(self, words: tuple[str, ...], i: int, units: list, unit_at: dict[int, int],
              strict: bool = True) -> InverseToken:
        """The route's written token at word i: the longest span a convention or pattern covers (`strict`: only
        those the train split mostly wrote so), spelt letters, else the word as spoken."""
        n = len(words)
        best: InverseToken | None = None
        for length in range(min(MAX_WORDS, n - i), 0, -1):
            found = self._convention(words[i:i + length], strict)
            if found is not None:
                best = InverseToken(found[1], found[0], i, i + length, words[i:i + length], "convention")
                break
        if i in unit_at:
            u = unit_at[i]
            for m in range(min(MAX_UNITS, len(units) - u), 0, -1):
                piece = units[u:u + m]
                end = piece[-1][1]
                if best is not None and end <= best.end:
                    break
                filled = self._pattern(words, piece, strict)
                if filled is not None:
                    best = InverseToken(filled[1], filled[0], i, end, words[i:end], "pattern")
                    break
        letters = self._letters(words, i)
        if letters is not None and (best is None or letters.end > best.end):
            best = letters
        return best or as_spoken(words, i, i + 1)

    def _alternatives(self, words: tuple[str, ...], start: int, end: int, units: list,
                      unit_at: dict[int, int]) -> Iterator[InverseToken]:
        """Every written form of words start..end that a convention or pattern of the train split offers and
        the class's grammar licenses, whatever its rate, the span's own conventions first."""
        span = words[start:end]
        for cls, written, _ in self.conventions.spans.get(" ".join(span), ()):
            if self.inversion.licenses_span(written, span, cls):
                yield InverseToken(written, cls, start, end, span, "convention")
        u = unit_at.get(start)
        if u is None:
            return
        for m in range(1, min(MAX_UNITS, len(units) - u) + 1):
            piece = units[u:u + m]
            if piece[-1][1] == end:
                runs = [self.inversion.numbers.digits(words[a:b])[:CANDIDATES] for a, b, kind in piece if kind != "w"]
                for shape in shapes(words, piece, self.inversion.numbers.kind):
                    for cls, written in self._fills(self.conventions.patterns.get(shape, []), runs, span):
                        yield InverseToken(written, cls, start, end, span, "pattern")
            if piece[-1][1] >= end:
                return

    def licensed(self, words: Sequence[str], start: int, end: int) -> list[InverseToken]:
        """Every written form of exactly words start..end that a convention or pattern of the train split offers
        (whatever its rate, the span's own conventions first) or that spells its letters, each licensed by its
        class's grammar; for the span tagger's route (`reading.inverse_spans`)."""
        words = tuple(words)
        units = self.inversion.numbers.units(words)
        found = list(self._alternatives(words, start, end, units,
                                        {first: index for index, (first, _, _) in enumerate(units)}))
        span = words[start:end]
        if all(len(w) == 1 and w.isalpha() for w in span) and self.inversion.licenses_span(
                "".join(span).upper(), span, "LETTERS"):
            found.append(InverseToken("".join(span).upper(), "LETTERS", start, end, span, "letters"))
        return found

    def proposals(self, words: Sequence[str], loose: bool = False) -> list[Proposal]:
        """The route's spans of `words` (ASR-style), each with its written candidates, the route's choice first
        and the words as spoken last. `loose`: where the route writes a word as spoken, a longer span that a
        convention or pattern covers at any rate is proposed instead, the words as spoken first."""
        words = tuple(words)
        units = self.inversion.numbers.units(words)
        unit_at = {start: index for index, (start, _, _) in enumerate(units)}
        out: list[Proposal] = []
        i = 0
        while i < len(words):
            best = self._best(words, i, units, unit_at)
            if loose and best.source == "as spoken":
                wider = self._best(words, i, units, unit_at, strict=False)
                best = best if wider.source == "as spoken" else as_spoken(words, i, wider.end)
            found: dict[str, InverseToken] = {}
            for token in itertools.chain((best,), itertools.islice(self._alternatives(
                    words, best.start, best.end, units, unit_at), MAX_ALTERNATIVES),
                    (as_spoken(words, best.start, best.end),)):
                found.setdefault(token.written.lower(), token)
            out.append(Proposal(best.start, best.end, tuple(found.values())))
            i = best.end
        return out

    def read(self, words: Sequence[str]) -> list[InverseToken]:
        """The written tokens of `words` (ASR-style), each with its span, class and source."""
        return [proposal.candidates[0] for proposal in self.proposals(words)]


def as_spoken(words: Sequence[str], start: int, end: int) -> InverseToken:
    """Words start..end written as spoken (a PLAIN token)."""
    span = tuple(words[start:end])
    return InverseToken(" ".join(span), "PLAIN", start, end, span, "as spoken")
