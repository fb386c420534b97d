"""A window family's checkpoint and loaded model: the shared checkpoint contract plus its vocabularies
(`input_vocab` / `output_vocab`), saved by `save_window` in the family's format and loaded by `window_model`
as a `LoadedWindowModel` that meets the decoding protocol on any device."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge.trainers.kernel.examples import Batch, make_batch
from tnforge.trainers.kernel.teacher_forced import NetworkDecoder
from tnforge.trainers.kernel.vocab import Vocabulary, vocabulary_from_dict
from tnforge.trainers.training.checkpoints import save_checkpoint


def save_window(path: str | os.PathLike, format: str, model: nn.Module, input_vocab: Vocabulary,
                output_vocab: Vocabulary, config: dict[str, Any], training: dict[str, Any] | None = None,
                metrics: dict[str, Any] | None = None) -> None:
    """Write a window family's checkpoint of `format` atomically. `training` holds the engine's state for
    resuming (optimizer, scheduler, scaler, RNGs, data position), `metrics` the best dev figures."""
    save_checkpoint(path, format, model, model.config.to_dict(), config, training, metrics,
                    extras={"input_vocab": input_vocab.to_dict(), "output_vocab": output_vocab.to_dict()})


#: Length limits of checkpoints whose training config lacks them.
MAX_INPUT, MAX_OUTPUT = 256, 40


@dataclass
class LoadedWindowModel(NetworkDecoder):
    """A window family's model ready for decoding, with its vocabularies and training config; it meets the decoding
    protocol (`decoding.protocol.DecodableModel`): the network's `encode`/`step`, the output vocabulary's
    special ids, the training config's length limits, how example rows become input batches, and the
    window families' sentence reader."""

    model: Any  # the family's network: `encode`/`step` (`seq2seq.model.Seq2Seq`, `dnc.model.DNCSeq2Seq`, …)
    input_vocab: Vocabulary
    output_vocab: Vocabulary
    config: dict[str, Any]
    path: Path
    device: torch.device

    inputs = "windows"  # it decodes examples' input windows (`decoding.protocol.StepDecoder.inputs`)
    pad_id = property(lambda self: self.output_vocab.pad_id)
    unk_id = property(lambda self: self.output_vocab.unk_id)
    bos_id = property(lambda self: self.output_vocab.bos_id)
    eos_id = property(lambda self: self.output_vocab.eos_id)

    @property
    def output_size(self) -> int:
        return len(self.output_vocab)

    @property
    def max_input_length(self) -> int:
        """Input units read per window (longer windows are cut)."""
        return int(self.config.get("max_input_length") or MAX_INPUT)

    @property
    def max_output_length(self) -> int:
        """Output units decoded at most per reading."""
        return int(self.config.get("max_output_length") or MAX_OUTPUT)

    def batch(self, rows: dict[str, list]) -> Batch:
        """One input batch of example rows (their `input` windows encoded)."""
        return make_batch(rows, self.input_vocab, None, self.max_input_length)

    def read_sentences(self, sentences: Sequence[Sequence[str]], classes: Sequence[Sequence[str | None]] | None,
                       probabilities: Sequence[Sequence[float]] | None, options: Any) -> tuple[list, dict]:
        """The window families' sentence reader (`decoding.sentences.read_windows`)."""
        from tnforge.trainers.decoding.sentences import read_windows

        return read_windows(self, sentences, classes, probabilities, options)


def window_model(payload: dict[str, Any], file: str | os.PathLike, device: torch.device, network: type,
                 sizes: type) -> LoadedWindowModel:
    """The `LoadedWindowModel` (eval mode, on `device`) of a window family's checkpoint payload: its vocabularies and
    a `network(sizes, input size, output size)` with the saved weights."""
    input_vocab = vocabulary_from_dict(payload["input_vocab"])
    output_vocab = vocabulary_from_dict(payload["output_vocab"])
    model = network(sizes.from_dict(payload["model_config"]), len(input_vocab), len(output_vocab))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedWindowModel(model, input_vocab, output_vocab, payload["config"], Path(file), device)
