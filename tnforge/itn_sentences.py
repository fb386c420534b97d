"""Inverse text normalization (ITN) data: corpus sentences turned around. Each sentence becomes the spoken words as
an ASR system writes them (lower case, no punctuation, no `sil`, URLs spelt as words) and, per written token,
the span of those words it was read as, its class and its written form (`3kg` ← words 4..6 "three kilograms").

Pure Python over the built `sentences` dataset (its `tokens`, `classes`, `readings` columns) or the corpus
readers' `TokenBlock`s: no Beam, no torch.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from tnforge.letter_spelling import decode_letters
from tnforge.schemas import SELF, SIL

#: Characters an ASR transcript keeps inside a word besides letters and digits.
_KEEP = frozenset("'")


@dataclass(frozen=True)
class ItnToken:
    """One written token: spoken words `start`..`end` (end exclusive; start == end: not spoken) read back as
    `written`, a token of semiotic class `cls`."""

    start: int
    end: int
    cls: str
    written: str


@dataclass(frozen=True)
class ItnSentence:
    """A sentence for ITN: `words` as ASR writes them and the written tokens over them, in order."""

    words: tuple[str, ...]
    tokens: tuple[ItnToken, ...]

    @property
    def spoken(self) -> str:
        """The ASR-style input: the words joined by single spaces."""
        return " ".join(self.words)

    @property
    def written(self) -> str:
        """The written sentence: the tokens joined by single spaces."""
        return " ".join(token.written for token in self.tokens)


def asr_words(reading: str) -> list[str]:
    """A reading as ASR writes it: `_letter` spelling decoded, `sil` dropped, lower case, punctuation (but a
    word's apostrophe) turned into spaces: "b_letter a_letter dot n_letter" → ["ba", "dot", "n"]."""
    if "_letter" in reading:
        reading = decode_letters(reading)
    text = "".join(c if c.isalnum() or c in _KEEP or c.isspace() else " " for c in reading.lower())
    return [word.strip("'") for word in text.split() if word != SIL and word.strip("'")]


def itn_sentence(tokens: Sequence[str], classes: Sequence[str], readings: Sequence[str]) -> ItnSentence:
    """One sentence from its written tokens, their classes and their readings (resolved as the `sentences`
    dataset resolves them: `<self>` → the token, `sil` → ""; the raw forms are resolved here too)."""
    words: list[str] = []
    out: list[ItnToken] = []
    for token, cls, reading in zip(tokens, classes, readings, strict=True):
        reading = token if reading == SELF else "" if reading == SIL else reading
        spoken = asr_words(reading)
        out.append(ItnToken(len(words), len(words) + len(spoken), cls, token))
        words += spoken
    return ItnSentence(tuple(words), tuple(out))


def from_sentences_table(table) -> list[ItnSentence]:
    """ITN sentences of a `sentences` table (pyarrow; columns tokens, classes, readings), in row order."""
    columns = [table.column(name).to_pylist() for name in ("tokens", "classes", "readings")]
    return [itn_sentence(*row) for row in zip(*columns, strict=True)]


def from_token_blocks(blocks: Iterable) -> Iterator[ItnSentence]:
    """ITN sentences of the corpus readers' `TokenBlock`s (`tnforge.readers.read_corpus_file`); reject tables
    are skipped."""
    for block in blocks:
        if not hasattr(block, "offsets"):
            continue
        befores, classes, afters = (block.befores.to_pylist(), block.classes.to_pylist(), block.afters.to_pylist())
        offsets = [int(o) for o in block.offsets]
        for start, end in zip(offsets, offsets[1:], strict=False):
            yield itn_sentence(befores[start:end], classes[start:end], afters[start:end])


def read_itn(data: str | os.PathLike, split: str) -> list[ItnSentence]:
    """The ITN sentences of one split of a built dataset (its `sentences` dataset, in file order)."""
    from tnforge.datasets import read_dataset
    from tnforge.manifest import require_complete

    require_complete(data)
    return from_sentences_table(read_dataset(data, "sentences", split, ["tokens", "classes", "readings"]))


def read_itn_corpus(path: str) -> list[ItnSentence]:
    """The ITN sentences of one corpus file (any flavour the readers know), unsplit."""
    from tnforge.readers import read_corpus_file

    return list(from_token_blocks(read_corpus_file(path)))


def score_words(text: str) -> list[str]:
    """A written text as it is scored: lower case, every punctuation character (Unicode category P) a space,
    split on whitespace — "October 17, 2011." → ["october", "17", "2011"]; symbols ($, %, °) are kept."""
    text = unicodedata.normalize("NFC", text.lower())
    return "".join(" " if unicodedata.category(c).startswith("P") else c for c in text).split()


_SPACES = re.compile(r"\s+")


def clean_spoken(text: str) -> list[str]:
    """Raw ASR-style input text → words, as `asr_words` makes them (for text typed by a user)."""
    return asr_words(_SPACES.sub(" ", text.strip()))
