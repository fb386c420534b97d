"""A seq2seq checkpoint (the window families' contract, `kernel.window`, in this family's format) and
loading it as a `LoadedWindowModel` ready to decode on any device."""

from __future__ import annotations

import os
from typing import Any

import torch

from tnforge.trainers.kernel.vocab import Vocabulary
from tnforge.trainers.kernel.window import LoadedWindowModel, save_window, window_model
from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig
from tnforge.trainers.training.checkpoints import checkpoint_file, load_checkpoint

FORMAT = "tnforge-seq2seq"


def save_seq2seq(path: str | os.PathLike, model: Seq2Seq, input_vocab: Vocabulary, output_vocab: Vocabulary,
                 config: dict[str, Any], training: dict[str, Any] | None = None,
                 metrics: dict[str, Any] | None = None) -> None:
    """Write a seq2seq checkpoint atomically (`kernel.window.save_window`)."""
    save_window(path, FORMAT, model, input_vocab, output_vocab, config, training, metrics)


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedWindowModel:
    """The `LoadedWindowModel` of a seq2seq checkpoint's payload (the family loader)."""
    return window_model(payload, file, device, Seq2Seq, Seq2SeqConfig)


def load_model(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedWindowModel:
    """Load a trained model (in eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)
