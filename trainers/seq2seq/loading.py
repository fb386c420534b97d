"""A seq2seq checkpoint: saving the model with its vocabularies (the shared checkpoint contract plus
`input_vocab` / `output_vocab`), and loading it as a `LoadedModel` ready to decode on any device."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tnforge.trainers.checkpoints import checkpoint_file, load_checkpoint, save_checkpoint
from tnforge.trainers.devices import resolve_device
from tnforge.trainers.seq2seq.model import ModelConfig, Seq2Seq
from tnforge.trainers.seq2seq.vocab import Vocabulary, vocabulary_from_dict

FORMAT = "tnforge-seq2seq"


def save_seq2seq(
    path: str | os.PathLike,
    model: Seq2Seq,
    input_vocab: Vocabulary,
    output_vocab: Vocabulary,
    config: dict[str, Any],
    training: dict[str, Any] | None = None,
    metrics: dict[str, Any] | None = None,
) -> None:
    """Write a seq2seq checkpoint atomically. `training` holds the engine's state for resuming (optimizer,
    scheduler, scaler, RNGs, data position), `metrics` the best dev figures."""
    save_checkpoint(path, FORMAT, model, model.config.to_dict(), config, training, metrics,
                    extras={"input_vocab": input_vocab.to_dict(), "output_vocab": output_vocab.to_dict()})


@dataclass
class LoadedModel:
    """A model ready for decoding, with its vocabularies and training config."""

    model: Seq2Seq
    input_vocab: Vocabulary
    output_vocab: Vocabulary
    config: dict[str, Any]
    path: Path
    device: torch.device


def load_model(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedModel:
    """Load a trained model (in eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    payload = load_checkpoint(path, FORMAT, device)
    input_vocab = vocabulary_from_dict(payload["input_vocab"])
    output_vocab = vocabulary_from_dict(payload["output_vocab"])
    model = Seq2Seq(ModelConfig.from_dict(payload["model_config"]), len(input_vocab), len(output_vocab))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedModel(model, input_vocab, output_vocab, payload["config"], checkpoint_file(path, FORMAT), device)


def load_on(path: str | os.PathLike, device: str = "auto", threads: int = 0) -> LoadedModel:
    """`load_model` as the commands ask for it: onto a device by name ("auto", "cpu", "cuda:N"; DeviceError
    when unusable), with torch using `threads` CPU threads (0: torch's default)."""
    if threads:
        torch.set_num_threads(threads)
    return load_model(path, resolve_device(device))
