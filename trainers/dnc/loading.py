"""A DNC checkpoint: the seq2seq's contract (its vocabularies as extras) under its own format, loaded as the
seq2seq's `LoadedModel` around a `DNCSeq2Seq` (it meets the decoding protocol through `encode`/`step`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

from tnforge.trainers.checkpoints import checkpoint_file, load_checkpoint, save_checkpoint
from tnforge.trainers.dnc.model import DNCConfig, DNCSeq2Seq
from tnforge.trainers.seq2seq.loading import LoadedModel
from tnforge.trainers.seq2seq.vocab import Vocabulary, vocabulary_from_dict

FORMAT = "tnforge-dnc"


def save_dnc(path: str | os.PathLike, model: DNCSeq2Seq, input_vocab: Vocabulary, output_vocab: Vocabulary,
             config: dict[str, Any], training: dict[str, Any] | None = None,
             metrics: dict[str, Any] | None = None) -> None:
    """Write a DNC checkpoint atomically (as `seq2seq.loading.save_seq2seq`, in this family's format)."""
    save_checkpoint(path, FORMAT, model, model.config.to_dict(), config, training, metrics,
                    extras={"input_vocab": input_vocab.to_dict(), "output_vocab": output_vocab.to_dict()})


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedModel:
    """The `LoadedModel` (eval mode, on `device`) of a DNC checkpoint's payload (the family loader)."""
    input_vocab = vocabulary_from_dict(payload["input_vocab"])
    output_vocab = vocabulary_from_dict(payload["output_vocab"])
    model = DNCSeq2Seq(DNCConfig.from_dict(payload["model_config"]), len(input_vocab), len(output_vocab))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedModel(model, input_vocab, output_vocab, payload["config"], Path(file), device)


def load_dnc(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedModel:
    """Load a trained DNC (in eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)
