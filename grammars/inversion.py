"""The number grammars turned around: spoken number words → digit strings, by composing the words with the
inverted number FSTs (`cardinal`, `year`, `digit`), and a sentence's words cut into units (a run of number
words, or one other word) for the inverse normalizer's patterns.

    reader = NumberReader(grammar)
    reader.digits(("nineteen", "eighty", "four"))   # ('1984',)  (the year FST inverted)
    reader.digits(("twenty", "first",))             # ('21',)    (an ordinal: its cardinal inverted)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

#: Scale words that join a run only when a number word follows (five million → "5 million").
_TRAILING_SCALES = frozenset({"million", "billion", "trillion"})
#: Zero words that join a run only after a number word or "point" (nineteen oh five; "oh" alone is a word).
_ZERO_WORDS = frozenset({"o", "oh"})
NUMBER_SLOT = "#"
ORDINAL_SLOT = "#th"


class NumberReader:
    """Spoken number words → candidate digit strings, from one `Grammar`'s number FSTs."""

    def __init__(self, grammar) -> None:
        self.grammar = grammar
        self._memo: dict[tuple[str, ...], tuple[str, ...]] = {}

    @cached_property
    def _inverted(self) -> dict:
        import pynini

        fsts = self.grammar.fsts
        digit = pynini.invert(fsts["digit"].copy())
        spaced = digit + pynini.closure(pynini.cross(" ", "") + digit)
        return {"cardinal": pynini.invert(fsts["cardinal"].copy()).arcsort("ilabel"),
                "year": pynini.invert(fsts["year"].copy()).arcsort("ilabel"),
                "digits": spaced.optimize().arcsort("ilabel")}

    @cached_property
    def cardinal_words(self) -> frozenset[str]:
        """Every word a cardinal, year or digit reading uses (scales included, 'and' left out)."""
        words = self.grammar.words
        found = {w for table in (words.ones, words.teens, words.tens) for w in table.values()}
        found |= set(words.scales.values()) | {w for ws in words.digit_words.values() for w in ws}
        return frozenset(w for w in found if w and " " not in w)

    @cached_property
    def ordinals(self) -> dict[str, str]:
        """Ordinal word → the cardinal word it ends in place of (twenty first: first → one)."""
        found = {}
        for word in self.cardinal_words - _ZERO_WORDS:
            ordinal = self.grammar.words.ordinalize(word)
            if ordinal and " " not in ordinal and ordinal != word:
                found[ordinal] = word
        return found

    def _paths(self, name: str, text: str) -> list[str]:
        import pynini

        try:
            lattice = pynini.compose(pynini.accep(text), self._inverted[name])
        except pynini.FstOpError:
            return []
        if lattice.start() == pynini.NO_STATE_ID:
            return []
        return sorted(set(lattice.paths().ostrings()))

    def digits(self, words: Sequence[str]) -> tuple[str, ...]:
        """Digit strings whose cardinal, year or digit-by-digit reading is `words` (an ordinal's last word is
        read as its cardinal), cardinal first; () when none."""
        key = tuple(words)
        found = self._memo.get(key)
        if found is None:
            if key and key[-1] in self.ordinals:
                key = key[:-1] + (self.ordinals[key[-1]],)
            text = " ".join(key)
            results: dict[str, None] = {}
            for name in ("cardinal", "year", "digits"):
                results.update(dict.fromkeys(self._paths(name, text)))
            found = tuple(results)
            self._memo[tuple(words)] = found
        return found

    def units(self, words: Sequence[str]) -> list[tuple[int, int, str]]:
        """The words cut into units (start, end, kind): a run of number words ("#"; ending in an ordinal word:
        "#th") or one other word ("w"). 'and' joins a run between a scale word and a number word; 'o'/'oh'
        join after a number word or 'point'; million/billion/trillion join only before a number word."""
        numbers, ordinals = self.cardinal_words, self.ordinals
        scales = set(self.grammar.words.scales.values())
        out: list[tuple[int, int, str]] = []
        i, n = 0, len(words)

        def is_number(j: int, in_run: bool) -> bool:
            word = words[j]
            if word in _ZERO_WORDS:  # nineteen oh five, point o five; not "three o" alone
                return (j > 0 and words[j - 1] == "point") or (in_run and j + 1 < n and words[j + 1] in numbers)
            if word in _TRAILING_SCALES:
                return in_run and j + 1 < n and (words[j + 1] in numbers or words[j + 1] in ordinals)
            return word in numbers

        while i < n:
            if words[i] in ordinals:
                out.append((i, i + 1, ORDINAL_SLOT))
                i += 1
                continue
            if not is_number(i, False):
                out.append((i, i + 1, "w"))
                i += 1
                continue
            j, kind = i + 1, NUMBER_SLOT
            while j < n:
                if words[j] in ordinals:
                    j, kind = j + 1, ORDINAL_SLOT
                    break
                if (words[j] == "and" and words[j - 1] in scales and j + 1 < n and words[j + 1] in numbers
                        and words[j + 1] not in scales):
                    j += 1
                    continue
                if not is_number(j, True):
                    break
                j += 1
            out += self._parsable(words, i, j, kind)
            i = j
        return out

    def _parsable(self, words: Sequence[str], i: int, j: int, kind: str) -> list[tuple[int, int, str]]:
        """A run cut into the fewest runs that read back as numbers, longest first ("sixty four twenty
        thirteen" → "sixty four", "twenty thirteen"); the run whole when no cut reads back."""
        if self.digits(words[i:j]) or j - i == 1:
            return [(i, j, kind)]
        for end in range(j - 1, i, -1):
            if self._plausible(words[i:end]):
                rest = self._parsable(words, end, j, kind)
                return [(i, end, NUMBER_SLOT), *rest]
        return [(i, j, kind)]

    def _plausible(self, words: Sequence[str]) -> bool:
        """Whether a piece cut from a run reads back as a cardinal or digits, or as a year from 1000 to 2999."""
        found = self.kind(words)
        return bool(found) and (found[0] != "y" or self.digits(words)[0][:1] in ("1", "2") and found == "y4")

    def kind(self, words: Sequence[str]) -> str:
        """What a number run reads back as, for a finer pattern: c (cardinal), y (a year), d (digit by
        digit) and the digits' count ("nineteen eighty four" → "y4"; a four-digit cardinal also says whether it
        has a hundred, "h", and whether it starts with neither 1 nor 2, "n"); "" when it does not read back."""
        found = self.digits(words)
        if not found:
            return ""
        key = list(words)
        if key[-1] in self.ordinals:
            key[-1] = self.ordinals[key[-1]]
        text = " ".join(key)
        source = next(name[0] for name in ("cardinal", "year", "digits") if self._paths(name, text))
        detail = ""
        if source == "c" and len(found[0]) == 4:  # 2006 (two thousand six) or 1,115 (… one hundred fifteen)?
            detail = ("h" if self.grammar.words.scales[2] in key else "") + ("" if found[0][0] in "12" else "n")
        return f"{source}{len(found[0])}{detail}"


class Inversion:
    """What the inverse normalizer asks of the covering grammar: number words → digits, words → units, and
    whether a written form's readings in a class include a span of ASR words (`licenses_span`)."""

    def __init__(self, grammar, asr_words: Callable[[str], list[str]]) -> None:
        """`asr_words`: a reading → its words as ASR writes them (`tnforge.itn_sentences.asr_words`)."""
        self.grammar = grammar
        self.asr_words = asr_words
        self.numbers = NumberReader(grammar)
        self._licensed: dict[tuple[str, str, tuple[str, ...]], bool] = {}

    def licenses_span(self, written: str, words: Sequence[str], cls: str) -> bool:
        """Whether `cls`'s grammar reads `written` as `words` (ASR-style: lower case, no `sil`, no
        punctuation): the reading itself, else one of its first readings written as ASR writes it."""
        asr_words = self.asr_words
        key = (cls, written, tuple(words))
        found = self._licensed.get(key)
        if found is None:
            spoken = " ".join(words)
            found = bool(words) and (
                (cls == "PLAIN" and asr_words(written) == list(words))
                or self.grammar.licenses(written, spoken, cls)
                or any(asr_words(r) == list(words) for r in self.grammar.readings(written, cls, 200)))
            self._licensed[key] = found
        return found
