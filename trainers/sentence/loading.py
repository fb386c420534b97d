"""A sentence checkpoint: the shared checkpoint contract plus the SentencePiece model (`pieces`), loaded as a
`LoadedSentenceModel` that meets the decoding protocol and reads whole tokenized sentences
(`reading.read_whole_sentences`), which `decoding.sentences.read_sentences` hands it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge.trainers.kernel.teacher_forced import NetworkDecoder
from tnforge.trainers.sentence.data import SentenceBatch, make_batch
from tnforge.trainers.sentence.model import SentenceModelConfig, build_network
from tnforge.trainers.sentence.pieces import SentencePieces, SpanVocabulary
from tnforge.trainers.training.checkpoints import save_checkpoint

FORMAT = "tnforge-sentence"
#: Output pieces decoded at most when the training config does not say.
MAX_OUTPUT = 400


def save_sentence(path: str | os.PathLike, model: nn.Module, pieces: SentencePieces, config: dict[str, Any],
                  training: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
    """Write a sentence checkpoint atomically, with the SentencePiece model's bytes."""
    save_checkpoint(path, FORMAT, model, model.config.to_dict(), config, training, metrics,
                    extras={"pieces": pieces.model_proto})


@dataclass
class LoadedSentenceModel(NetworkDecoder):
    """A sentence model ready to decode: the network, its pieces, training config, file and device."""

    model: nn.Module
    pieces: SentencePieces
    config: dict[str, Any]
    path: Path
    device: torch.device

    inputs = "sentences"  # raw text only: examples windows are refused (`decoding.decode.decode_files`)
    pad_id = property(lambda self: self.pieces.pad_id)
    unk_id = property(lambda self: self.pieces.unk_id)
    bos_id = property(lambda self: self.pieces.bos_id)
    eos_id = property(lambda self: self.pieces.eos_id)

    def __post_init__(self) -> None:
        self.output_vocab = SpanVocabulary(self.pieces)

    @property
    def features(self) -> tuple[str, ...]:
        return self.model.config.feature_names()

    @property
    def reads_classes(self) -> bool:
        """Whether the model reads each token's class (then raw text needs a tagger)."""
        return "class" in self.features

    @property
    def output_size(self) -> int:
        return len(self.pieces)

    @property
    def max_input_length(self) -> int:
        return int(self.config.get("max_source_pieces") or 256)

    @property
    def max_output_length(self) -> int:
        return int(self.config.get("max_output_length") or MAX_OUTPUT)

    def batch(self, rows: dict[str, list]) -> SentenceBatch:
        """One input batch of sentence rows (`tokens`, `classes`)."""
        return make_batch(rows, self.pieces, self.features)

    def read_sentences(self, sentences: Sequence[Sequence[str]], classes: Sequence[Sequence[str | None]] | None,
                       probabilities: Sequence[Sequence[float]] | None, options: Any) -> tuple[list, dict]:
        """The sentence family's reader: whole sentences at a time (`reading.read_whole_sentences`)."""
        from tnforge.trainers.sentence.reading import read_whole_sentences

        return read_whole_sentences(self, sentences, classes, probabilities, options)


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedSentenceModel:
    """The `LoadedSentenceModel` (eval mode, on `device`) of a sentence checkpoint's payload (the family loader)."""
    pieces = SentencePieces(payload["pieces"])
    model = build_network(SentenceModelConfig.from_dict(payload["model_config"]), len(pieces))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedSentenceModel(model, pieces, payload["config"], Path(file), device)
