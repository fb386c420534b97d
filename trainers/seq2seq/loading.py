"""Checkpoints of the seq2seq normalizer: weights, vocabularies, config, tnforge version, training state.

A run directory holds `checkpoint.pt` (latest, for `--resume`) and `best.pt` (best on dev, for decoding).
Checkpoints load on any device (tensors are mapped to the device asked for).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from tnforge import __version__
from tnforge.filesystems import write_atomically
from tnforge.trainers.seq2seq.model import ModelConfig, Seq2Seq
from tnforge.trainers.seq2seq.vocab import Vocabulary, vocabulary_from_dict

FORMAT = "tnforge-seq2seq"
FORMAT_VERSION = 1
LAST = "checkpoint.pt"
BEST = "best.pt"


def save_checkpoint(
    path: str | os.PathLike,
    model: Seq2Seq,
    input_vocab: Vocabulary,
    output_vocab: Vocabulary,
    config: dict[str, Any],
    training: dict[str, Any] | None = None,
) -> None:
    """Write a checkpoint atomically. `training` holds optimizer/scheduler/scaler states and progress."""
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tnforge_version": __version__,
        "torch_version": str(torch.__version__),
        "model_config": model.config.to_dict(),
        "config": config,
        "input_vocab": input_vocab.to_dict(),
        "output_vocab": output_vocab.to_dict(),
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "training": training or {},
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    with write_atomically(str(path)) as handle:
        handle.write(buffer.getvalue())


def model_path(path: str | os.PathLike) -> Path:
    """The checkpoint file for a run directory (best.pt, else checkpoint.pt) or a checkpoint file."""
    path = Path(path)
    if path.is_dir():
        for name in (BEST, LAST):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path}: no {BEST} or {LAST} in this run directory")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such checkpoint")
    return path


def load_checkpoint(path: str | os.PathLike, device: torch.device | str = "cpu") -> dict[str, Any]:
    """Read a checkpoint (file or run directory) with its tensors on `device`."""
    file = model_path(path)
    try:
        with torch.serialization.safe_globals([torch.torch_version.TorchVersion]):  # early checkpoints held one
            payload = torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unpickling problem means "not a checkpoint"
        raise ValueError(f"{file}: not a readable tnforge checkpoint ({error})") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{file}: not a tnforge seq2seq checkpoint")
    if payload.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{file}: checkpoint format {payload['format_version']} is newer than this tnforge")
    return payload


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
    payload = load_checkpoint(path, device)
    input_vocab = vocabulary_from_dict(payload["input_vocab"])
    output_vocab = vocabulary_from_dict(payload["output_vocab"])
    model = Seq2Seq(ModelConfig.from_dict(payload["model_config"]), len(input_vocab), len(output_vocab))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedModel(model, input_vocab, output_vocab, payload["config"], model_path(path), device)
