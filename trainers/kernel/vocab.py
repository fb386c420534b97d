"""Vocabularies of the seq2seq normalizer: characters or SentencePiece pieces in, words or pieces out.

Every vocabulary reserves the same four special ids (PAD, UNK, BOS, EOS), serialises to a plain dict
(stored in checkpoints) and turns text into ids and back. The window markers `<norm>`/`</norm>` are single
input units; `<self>` and `sil` are ordinary output words.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from tnforge.schemas import NORM_CLOSE, NORM_OPEN, SELF

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS: tuple[str, ...] = ("<pad>", "<unk>", "<s>", "</s>")
_MARKERS = re.compile(f"({re.escape(NORM_OPEN)}|{re.escape(NORM_CLOSE)})")


def char_units(text: str) -> list[str]:
    """Characters of a window, with `<norm>` and `</norm>` kept as single units."""
    units: list[str] = []
    for part in _MARKERS.split(text):
        if part in (NORM_OPEN, NORM_CLOSE):
            units.append(part)
        elif part:
            units.extend(part)
    return units


def word_units(text: str) -> list[str]:
    """Words of a reading, split on single spaces. Empty parts are kept as units: some corpus readings
    (ELECTRONIC) hold double spaces, which must survive the round trip."""
    return text.split(" ") if text else []


class Vocabulary:
    """A symbol table with PAD/UNK/BOS/EOS at ids 0–3; subclasses define how text splits into units."""

    kind = "base"
    joiner = ""

    def __init__(self, symbols: Sequence[str]):
        self.symbols: list[str] = list(SPECIALS) + [s for s in symbols if s not in SPECIALS]
        self.index: dict[str, int] = {s: i for i, s in enumerate(self.symbols)}

    def __len__(self) -> int:
        return len(self.symbols)

    # The special ids as the decoding protocol reads them (`decoding.protocol.OutputVocabulary`).
    pad_id, unk_id, bos_id, eos_id = PAD, UNK, BOS, EOS
    special_ids: frozenset[int] = frozenset(range(len(SPECIALS)))

    def units(self, text: str) -> list[str]:
        raise TypeError(f"{type(self).__name__} does not define units()")

    def encode(self, text: str) -> list[int]:
        """Ids of a text's units (unknown units → UNK), without BOS/EOS."""
        return [self.index.get(unit, UNK) for unit in self.units(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """Text of ids; special ids are dropped."""
        return self.joiner.join(self.symbols[i] for i in ids if i >= len(SPECIALS))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "symbols": self.symbols[len(SPECIALS):]}

    @classmethod
    def build(cls, texts: Iterable[str], min_count: int = 1) -> Vocabulary:
        """A vocabulary of every unit seen at least `min_count` times, most frequent first (ties by name)."""
        vocab = cls([])
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(vocab.units(text))
        kept = sorted((u for u, c in counts.items() if c >= min_count), key=lambda u: (-counts[u], u))
        return cls(kept)


class CharVocabulary(Vocabulary):
    """Characters of the windowed input (`<norm>`/`</norm>` single units), or of written forms (`trainers.inverse`)."""

    kind = "char"

    def units(self, text: str) -> list[str]:
        return char_units(text)


class WordVocabulary(Vocabulary):
    """Words of the reading, including `<self>` and `sil`."""

    kind = "word"
    joiner = " "

    def units(self, text: str) -> list[str]:
        return word_units(text)


class SentencePieceVocabulary(Vocabulary):
    """SentencePiece units (digits split into single pieces), trained on the train split's text."""

    kind = "sentencepiece"

    def __init__(self, model_proto: bytes):
        import sentencepiece as spm

        self.model_proto = model_proto
        self.processor = spm.SentencePieceProcessor(model_proto=model_proto)
        pieces = [self.processor.id_to_piece(i) for i in range(self.processor.get_piece_size())]
        super().__init__(pieces[len(SPECIALS):])
        # Piece ids of the processor equal our ids: specials were fixed at 0–3 when training.
        self.index = {p: i for i, p in enumerate(pieces)}
        self.symbols = list(SPECIALS) + pieces[len(SPECIALS):]

    def units(self, text: str) -> list[str]:
        return self.processor.encode(text, out_type=str)

    def encode(self, text: str) -> list[int]:
        return list(self.processor.encode(text))

    def decode(self, ids: Iterable[int]) -> str:
        return self.processor.decode([i for i in ids if i >= len(SPECIALS)])

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "model_proto": self.model_proto}

    @classmethod
    def train(cls, texts: Iterable[str], size: int, user_symbols: Sequence[str] = ()) -> (
            SentencePieceVocabulary):
        """Train a unigram SentencePiece model (digits split) of at most `size` pieces on `texts`
        (single-threaded, so the same texts give the same model)."""
        import sentencepiece as spm

        buffer = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts),
            model_writer=buffer,
            vocab_size=size,
            hard_vocab_limit=False,
            model_type="unigram",
            split_digits=True,
            character_coverage=1.0,
            pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS,
            user_defined_symbols=list(user_symbols),
            num_threads=1,
            minloglevel=2,
        )
        return cls(buffer.getvalue())


def input_vocabulary(units: str, texts: Iterable[str], sp_size: int) -> Vocabulary:
    """The input vocabulary for `units` ("char" or "sentencepiece") built from train-split windows."""
    if units == "char":
        return CharVocabulary.build(texts)
    if units == "sentencepiece":
        return SentencePieceVocabulary.train(texts, sp_size, user_symbols=(NORM_OPEN, NORM_CLOSE))
    raise ValueError(f"unknown input units {units!r} (use char or sentencepiece)")


def output_vocabulary(units: str, texts: Iterable[str], sp_size: int, min_count: int = 1) -> (
        Vocabulary):
    """The output vocabulary for `units` ("word", "char" or "sentencepiece") built from train-split readings."""
    if units == "char":
        return CharVocabulary.build(texts, min_count=min_count)
    if units == "word":
        return WordVocabulary.build(texts, min_count=min_count)
    if units == "sentencepiece":
        return SentencePieceVocabulary.train(texts, sp_size, user_symbols=(SELF,))
    raise ValueError(f"unknown output units {units!r} (use word, char or sentencepiece)")


def vocabulary_from_dict(data: dict[str, Any]) -> Vocabulary:
    """Rebuild a vocabulary stored with `to_dict()`."""
    kind = data["kind"]
    if kind == "char":
        return CharVocabulary(data["symbols"])
    if kind == "word":
        return WordVocabulary(data["symbols"])
    if kind == "sentencepiece":
        return SentencePieceVocabulary(data["model_proto"])
    raise ValueError(f"unknown vocabulary kind {kind!r}")
