"""Semiotic classes for aligned text that has none, and Kestrel's multi-word tokens restored.

`<self>` → PLAIN (PUNCT when the token has no letter or digit), `sil` → PUNCT; any other reading takes the
class whose covering grammar licenses it (`licensed(before, reading)` lists them; the most specific wins,
`PRIORITY`), else a deterministic rule on the token's shape (`fallback_class`, counted apart). Runs of
non-trivial tokens that aligned text split on spaces ("12"/"the twelfth", "April"/"of april",
"2015"/"twenty fifteen") are joined back into one token where the grammar licenses the joined reading in a
class whose Kestrel tokens span words (`MERGE_CLASSES`); the joined token's `before` is its pieces joined
by spaces and its reading theirs without the silent ones, so sentences read exactly as the file does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.schemas import SELF, SIL
from tnforge.token_blocks import FileReport, TokenBlock

#: (before, reading) → the classes whose covering grammar licenses the reading.
Licensed = Callable[[str, str], Sequence[str]]
#: When several classes license a reading, the first of these wins (the most specific reading first; a
#: year-shaped number is a DATE before anything else: `_YEAR`).
PRIORITY: tuple[str, ...] = (
    "MEASURE", "MONEY", "TIME", "FRACTION", "ORDINAL", "LETTERS", "CARDINAL", "DIGIT", "DECIMAL", "DATE",
    "ADDRESS", "TELEPHONE", "VERBATIM", "PLAIN", "ELECTRONIC",
)
#: Classes whose Kestrel tokens span several words: only these may join split pieces back into one token.
MERGE_CLASSES = frozenset({"DATE", "MEASURE", "MONEY", "DECIMAL", "TIME", "FRACTION"})
#: Most pieces one restored token may join.
MAX_PIECES = 8
#: Silent pieces that may sit inside a restored token ("April 10 , 2013").
_INNER_SILENT = frozenset({","})
_YEAR = re.compile(r"^(1[0-9]|20)[0-9]{2}s?$")
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split())
_ORDINAL_WORD = re.compile(r"(first|second|third|th)$")
_RANGE_WORDS = frozenset({"to"})
_SCALE = re.compile(r"\b(million|billion|trillion)$")


def trivial_classes(befores: pa.Array, afters: pa.Array) -> pa.Array:
    """Classes of tokens read as written or silent (others get ''): `<self>` → PLAIN, or PUNCT when the
    token has no letter or digit; `sil` → PUNCT."""
    wordless = pc.invert(pc.match_substring_regex(befores, r"[\p{L}\p{N}]"))
    self_class = pc.if_else(wordless, "PUNCT", "PLAIN")
    return pc.if_else(pc.equal(afters, SIL), "PUNCT", pc.if_else(pc.equal(afters, SELF), self_class, ""))


def choose(classes: Sequence[str], before: str, reading: str) -> str | None:
    """The class to give a token among those whose grammar licenses its reading (None: none does)."""
    if not classes:
        return None
    if "DATE" in classes and _YEAR.match(before) and not _digit_by_digit(reading):
        return "DATE"
    if "DECIMAL" in classes and _SCALE.search(reading) and re.search(r"[^\W\d_]", before):
        return "DECIMAL"  # "480 million" (a scale word written out): Kestrel's DECIMAL
    for cls in PRIORITY:
        if cls in classes:
            return cls
    return classes[0]


def fallback_class(before: str, reading: str) -> str:
    """A class from the token's shape when no grammar licenses its reading (deterministic, counted apart)."""
    words = reading.split()
    if before.lower().strip(".") in _MONTHS or (words and words[0] == "of" and words[-1] in _MONTHS):
        return "DATE"
    if re.search(r"[0-9]", before):
        if "sil" in words:
            return "TELEPHONE"
        if words and (words[0] == "the" or any(_ORDINAL_WORD.search(w) for w in words)):
            return "DATE" if words[0] == "the" or len(words) > 2 else "ORDINAL"
        if "point" in words:
            return "DECIMAL"
        if _digit_by_digit(reading):
            return "DIGIT"
        return "CARDINAL"
    if words and all(len(w.rstrip("'s")) <= 1 for w in words) and any(ch.isalpha() for ch in before):
        return "LETTERS"
    if any(ch.isalpha() for ch in before):
        return "PLAIN"
    return "VERBATIM"


_DIGIT_WORDS = frozenset("o zero one two three four five six seven eight nine".split())


def _digit_by_digit(reading: str) -> bool:
    """"one six six five": a number read digit by digit (two digit words or more, nothing else)."""
    words = reading.split()
    return len(words) > 1 and all(w in _DIGIT_WORDS for w in words)


def _glued(text: str) -> str:
    """Pieces joined the way Kestrel writes them: no space before , and . and none inside a decimal."""
    return re.sub(r"(\d)\. (\d)", r"\1.\2", re.sub(r" ([,.])", r"\1", text))


class ClassInference:
    """Fills in a TokenBlock's classes (restoring multi-word tokens) and counts how, in `report.inference`.

    `licensed` is the covering grammar's judgement (`tnforge.generators.grammar_classes`); None: shape rules
    only. Counts: `self`, `sil` (trivial tokens), `grammar` (a licensed class), `fallback` (shape rules) and
    `fallback:CLASS`, `restored` (tokens joined from several pieces) and `restored_lines` (pieces folded into
    the token before them), `restored:CLASS`.
    """

    def __init__(self, licensed: Licensed | None = None, restore: bool = True) -> None:
        self.licensed = licensed
        self.restore = restore
        self._memo: dict[tuple[str, str], tuple[str, ...]] = {}

    def classes_of(self, before: str, reading: str) -> tuple[str, ...]:
        """The classes licensing `reading` for `before` (memoised; () without a grammar)."""
        if self.licensed is None:
            return ()
        key = (before, reading)
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) > 200_000:
                self._memo.clear()
            found = self._memo[key] = tuple(self.licensed(before, reading))
        return found

    def _span_class(self, before: str, reading: str) -> str | None:
        """The class of a joined span when its reading is licensed in a class of multi-word tokens."""
        for text in dict.fromkeys((before, _glued(before))):
            cls = choose([c for c in self.classes_of(text, reading) if c in MERGE_CLASSES], text, reading)
            if cls is not None:
                return cls
        return None

    def __call__(self, block: TokenBlock, report: FileReport) -> TokenBlock:
        befores, afters = block.befores, block.afters
        classes = np.asarray(trivial_classes(befores, afters).to_pylist(), dtype=object)
        counts: Counter = report.inference
        b, a = befores.to_pylist(), afters.to_pylist()
        keep = np.ones(len(b), dtype=bool)
        sentence_end = np.zeros(len(b) + 1, dtype=bool)
        sentence_end[block.offsets[1:]] = True
        pending = np.nonzero(classes == "")[0]
        done = set()
        for i in pending.tolist():
            if i in done:
                continue
            span = self._restore(b, a, i, sentence_end) if self.restore else None
            if span is not None:
                end, cls = span
                pieces = range(i, end)
                b[i] = " ".join(b[j] for j in pieces)
                a[i] = " ".join(a[j] for j in pieces if a[j] != SIL)
                keep[i + 1:end] = False
                done.update(pieces)
                classes[i] = cls
                counts["restored"] += 1
                counts["restored_lines"] += end - i - 1
                counts[f"restored:{cls}"] += 1
                counts["grammar"] += 1
                continue
            cls = choose(self.classes_of(b[i], a[i]), b[i], a[i])
            if cls is None:
                cls = fallback_class(b[i], a[i])
                counts["fallback"] += 1
                counts[f"fallback:{cls}"] += 1
            else:
                counts["grammar"] += 1
            classes[i] = cls
        note = getattr(self.licensed, "note", "") if self.licensed else "shape rules only"
        report.class_grammar = note or report.class_grammar  # "" until a token needed the grammar
        trivial = np.asarray(a, dtype=object)[keep]
        counts["self"] += int((trivial == SELF).sum())
        counts["sil"] += int((trivial == SIL).sum())
        if keep.all():
            return TokenBlock(block.source, block.sentence_ids, block.offsets, block.lines,
                              pa.array(classes.tolist(), pa.string()), befores, pa.array(a, pa.string()))
        sentence_of = np.repeat(np.arange(block.num_sentences), np.diff(block.offsets))
        counts_per = np.bincount(sentence_of[keep], minlength=block.num_sentences)
        index = np.nonzero(keep)[0]
        return TokenBlock(
            block.source, block.sentence_ids, np.concatenate([[0], np.cumsum(counts_per)]).astype(np.int64),
            block.lines.take(pa.array(index)), pa.array(classes[index].tolist(), pa.string()),
            pa.array([b[j] for j in index], pa.string()), pa.array([a[j] for j in index], pa.string()),
        )

    def _restore(self, b: list[str], a: list[str], i: int, sentence_end: np.ndarray) -> tuple[int, str] | None:
        """(end, class) of the longest licensed span of split pieces starting at token i, if any."""
        run = [i]
        j = i + 1
        while j < len(b) and not sentence_end[j] and len(run) < MAX_PIECES:
            if a[j] == SIL and b[j] in _INNER_SILENT:
                j += 1
                run.append(j - 1)
                continue
            if a[j] in (SELF, SIL) or _is_connector(b[j], a[j]):
                break
            run.append(j)
            j += 1
        while run and a[run[-1]] == SIL:
            run.pop()
        if _is_connector(b[i], a[i]):
            return None
        for end in range(run[-1] + 1 if run else i + 1, i + 1, -1):
            if a[end - 1] == SIL:
                continue
            before = " ".join(b[i:end])
            reading = " ".join(x for x in a[i:end] if x != SIL)
            cls = self._span_class(before, reading)
            if cls is not None:
                return end, cls
        return None


def _is_connector(before: str, reading: str) -> bool:
    """A range connector ("-" read "to"): a token of its own in Kestrel's output, never inside a span."""
    return reading in _RANGE_WORDS and not any(ch.isalnum() for ch in before)
