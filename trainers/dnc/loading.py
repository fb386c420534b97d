"""A DNC checkpoint: the seq2seq's contract (its vocabularies as extras) under its own format, loaded as the
seq2seq's `LoadedModel` around a `DNCSeq2Seq` (it meets the decoding protocol through `encode`/`step`)."""

from __future__ import annotations

import os
from typing import Any

import torch

from tnforge.trainers.checkpoints import checkpoint_file, load_checkpoint
from tnforge.trainers.dnc.model import DNCConfig, DNCSeq2Seq
from tnforge.trainers.seq2seq.loading import LoadedModel, save_seq2seq, window_model
from tnforge.trainers.seq2seq.vocab import Vocabulary

FORMAT = "tnforge-dnc"


def save_dnc(path: str | os.PathLike, model: DNCSeq2Seq, input_vocab: Vocabulary, output_vocab: Vocabulary,
             config: dict[str, Any], training: dict[str, Any] | None = None,
             metrics: dict[str, Any] | None = None) -> None:
    """Write a DNC checkpoint atomically (`seq2seq.loading.save_seq2seq` in this family's format)."""
    save_seq2seq(path, model, input_vocab, output_vocab, config, training, metrics, format=FORMAT)


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedModel:
    """The `LoadedModel` (eval mode, on `device`) of a DNC checkpoint's payload (the family loader)."""
    return window_model(payload, file, device, DNCSeq2Seq, DNCConfig)


def load_dnc(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedModel:
    """Load a trained DNC (in eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)
