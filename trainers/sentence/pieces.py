"""The sentence family's one SentencePiece inventory, shared by the written and the spoken side: trained on the
train split's written and spoken text (digits one per piece, single-threaded, every sentence read, so the
same text gives the same model bytes), with a separator piece `<sep>` between the readings of two tokens."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from tnforge.schemas import SELF, SIL
from tnforge.trainers.kernel.vocab import BOS, EOS, PAD, UNK, SentencePieceVocabulary

#: The piece between two tokens' readings (a control symbol: no text ever encodes to it).
SEPARATOR = "<sep>"
#: Its id: right after the four specials.
SEPARATOR_ID = 4


def train_pieces(texts: Iterable[str], size: int) -> bytes:
    """The model bytes of a unigram SentencePiece model of at most `size` pieces on `texts`, digits split."""
    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=buffer, vocab_size=size, hard_vocab_limit=False,
        model_type="unigram", split_digits=True, character_coverage=1.0,
        pad_id=PAD, unk_id=UNK, bos_id=BOS, eos_id=EOS, control_symbols=[SEPARATOR],
        num_threads=1, input_sentence_size=0, shuffle_input_sentence=False, minloglevel=2)
    return buffer.getvalue()


class SentencePieces(SentencePieceVocabulary):
    """The inventory with the separator; `encode_tokens` and `split` turn tokens' readings into one piece
    sequence and back."""

    def __init__(self, model_proto: bytes):
        super().__init__(model_proto)
        if self.symbols[SEPARATOR_ID] != SEPARATOR:
            raise ValueError(f"not a sentence model's pieces: id {SEPARATOR_ID} is {self.symbols[SEPARATOR_ID]!r}")
        self.separator_id = SEPARATOR_ID

    @classmethod
    def trained(cls, texts: Iterable[str], size: int) -> SentencePieces:
        return cls(train_pieces(texts, size))

    def encode_tokens(self, tokens: Sequence[str]) -> list[list[int]]:
        """The pieces of each token (a token is never empty: at least one piece)."""
        return [self.encode(token) or [UNK] for token in tokens]

    def join_readings(self, readings: Sequence[str]) -> list[int]:
        """One target: each reading's pieces (empty for a silent token), separated by `<sep>`."""
        ids: list[int] = []
        for index, reading in enumerate(readings):
            if index:
                ids.append(self.separator_id)
            ids.extend(self.encode(reading) if reading else [])
        return ids

    def split(self, ids: Sequence[int]) -> list[str]:
        """The readings of a decoded piece sequence, one per separator-delimited span."""
        spans: list[list[int]] = [[]]
        for i in ids:
            if i == self.separator_id:
                spans.append([])
            elif i != EOS:
                spans[-1].append(i)
        return [self.decode(span) for span in spans]


def corpus_reading(token: str, spoken: str) -> str:
    """A span's text as the corpus writes a reading: the token itself → `<self>`, nothing → `sil`."""
    if not spoken:
        return SIL
    return SELF if spoken == token else spoken


class SpanVocabulary:
    """The pieces as a per-token constraint sees them: without the token, a reading `<self>` or `sil` has no
    piece sequence of its own (`encode` gives the unknown piece); with it (`encode_reading`), `<self>` is the
    token's own pieces and `sil` the empty span, so the grammar mask can hold them too."""

    def __init__(self, pieces: SentencePieces):
        self.pieces = pieces
        self.kind = pieces.kind
        self.symbols = pieces.symbols
        self.pad_id, self.unk_id, self.bos_id, self.eos_id = PAD, UNK, BOS, EOS
        self.special_ids = frozenset({PAD, UNK, BOS, EOS, SEPARATOR_ID})

    def __len__(self) -> int:
        return len(self.pieces)

    def encode(self, text: str) -> list[int]:
        if text in (SELF, SIL):
            return [UNK]
        return self.pieces.encode(text)

    def decode(self, ids: Iterable[int]) -> str:
        return self.pieces.decode(ids)

    def encode_reading(self, text: str, token: str) -> list[int]:
        """A reading's pieces inside a sentence: `<self>` → the token's own pieces (as the source has them),
        `sil` → none (the span ends at once), anything else as `encode` gives it."""
        if text == SELF:
            return self.pieces.encode(token) or [UNK]
        if text == SIL:
            return []
        return self.pieces.encode(text)
