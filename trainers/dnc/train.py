"""Training the DNC normalizer on the training engine: the seq2seq's task (same data, vocabularies, batches,
loss and dev evaluation) with the DNC network, its size presets and its checkpoint format."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from torch import nn

from tnforge.trainers.dnc.loading import FORMAT, save_dnc
from tnforge.trainers.dnc.model import PRESETS, DNCConfig, DNCSeq2Seq
from tnforge.trainers.engine import fit
from tnforge.trainers.engine_config import option
from tnforge.trainers.runs import TrainResult
from tnforge.trainers.seq2seq.train import Seq2SeqTask, TrainConfig, describe

__all__ = ["DNCTask", "DNCTrainConfig", "apply_preset", "describe", "train"]


@dataclass
class DNCTrainConfig(TrainConfig):
    """Every training option of the DNC: the seq2seq's, with `size` naming a preset and a DNC network."""

    size: str = option("laptop", "Network preset: laptop (the defaults of the network options) or paper "
                                 "(Pramanik & Hussain: memory 256x64, 5 read heads, 1024 hidden units, "
                                 "embeddings 32); a preset sets the network options left at their defaults.",
                       choices=tuple(PRESETS), aliases=("--preset",))
    model: DNCConfig = field(default_factory=DNCConfig)  # type: ignore[assignment]


def apply_preset(model: DNCConfig, preset: str) -> DNCConfig:
    """`model` with the preset's sizes wherever it still has the default value."""
    defaults = DNCConfig()
    changed = {name: value for name, value in PRESETS[preset].items()
               if getattr(model, name) == getattr(defaults, name)}
    values = {f.name: getattr(model, f.name) for f in fields(model)}
    return DNCConfig(**{**values, **changed})


class DNCTask(Seq2SeqTask):
    """The DNC family on the engine: window characters in, reading words out, through an external memory."""

    command, format = "dnc", FORMAT

    def size_network(self, on_gpu: bool) -> None:
        self.config.model = apply_preset(self.config.model, self.config.size)

    def build_model(self) -> nn.Module:
        return DNCSeq2Seq(self.config.model, len(self.input_vocab), len(self.output_vocab))

    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        save_dnc(path, model, self.input_vocab, self.output_vocab, self.config.to_dict(), training, metrics)


def train(config: DNCTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) a DNC into `config.out` (the refusals and Ctrl-C of `seq2seq.train.train`)."""
    return fit(DNCTask(config), resume, overwrite, explicit)
