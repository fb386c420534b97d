"""A DNC checkpoint: the window families' contract (`kernel.window`: its vocabularies as extras) under its own
format, loaded as a `LoadedWindowModel` around a `DNCSeq2Seq` (it meets the decoding protocol through
`encode`/`step`)."""

from __future__ import annotations

import os
from typing import Any

import torch

from tnforge.trainers.checkpoints import checkpoint_file, load_checkpoint
from tnforge.trainers.dnc.model import DNCConfig, DNCSeq2Seq
from tnforge.trainers.kernel.vocab import Vocabulary
from tnforge.trainers.kernel.window import LoadedWindowModel, save_window, window_model

FORMAT = "tnforge-dnc"


def save_dnc(path: str | os.PathLike, model: DNCSeq2Seq, input_vocab: Vocabulary, output_vocab: Vocabulary,
             config: dict[str, Any], training: dict[str, Any] | None = None,
             metrics: dict[str, Any] | None = None) -> None:
    """Write a DNC checkpoint atomically (`kernel.window.save_window` in this family's format)."""
    save_window(path, FORMAT, model, input_vocab, output_vocab, config, training, metrics)


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedWindowModel:
    """The `LoadedWindowModel` (eval mode, on `device`) of a DNC checkpoint's payload (the family loader)."""
    return window_model(payload, file, device, DNCSeq2Seq, DNCConfig)


def load_dnc(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedWindowModel:
    """Load a trained DNC (in eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)
