"""What `Normalizer.explain` returns: each token of a text with its character span in the original string,
its class and the tagger's probability, its reading and why it was read so — the alignment a TTS front end
needs to map audio back to text."""

from __future__ import annotations

from dataclasses import dataclass

#: Where a token's reading came from (`TokenReading.source`).
SOURCES = ("as written", "grammar", "model", "lexicon", "lexicon, forced")


@dataclass(frozen=True)
class TokenReading:
    """One token of a text as it was read.

    `start`/`end`: its characters in the original text (`text[start:end] == token`); `cls`: the class it was
    tagged (None without a tagger) with the tagger's calibrated `probability`; `reading`: its spoken words
    ("" for a token not spoken, such as punctuation); `corpus_reading`: the reading as the corpus writes it
    (`<self>`, `sil`, `b_letter …`); `source`: "as written", "grammar" (the grammar's one reading), "model"
    (decoded within the grammar's readings when guarded), "lexicon" or "lexicon, forced" (a run-time
    override the grammar does not license); `route`: why, in words (as `tnforge normalize` prints it)."""

    token: str
    start: int
    end: int
    cls: str | None
    probability: float
    reading: str
    corpus_reading: str
    source: str
    route: str

