"""Training the DNC normalizer on the training engine: the window families' task (`kernel.window_task`: the
seq2seq's data, vocabularies, batches, loss and dev evaluation) with the DNC network, its size presets and its
checkpoint format."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, fields

from torch import nn

from tnforge.trainers.dnc.loading import FORMAT
from tnforge.trainers.dnc.model import PRESETS, DNCConfig, DNCSeq2Seq
from tnforge.trainers.kernel.window_task import WindowTask, WindowTrainConfig, describe
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.engine_config import option
from tnforge.trainers.training.runs import TrainResult

__all__ = ["DNCTask", "DNCTrainConfig", "apply_preset", "describe", "train"]


@dataclass
class DNCTrainConfig(WindowTrainConfig):
    """Every training option of the DNC: the window families', with `size` naming a preset and a DNC network."""

    size: str = option("laptop", "Network preset: laptop (the defaults of the network options) or paper "
                                 "(Pramanik & Hussain: memory 256x64, 5 read heads, 1024 hidden units, "
                                 "embeddings 32); a preset sets the network options left at their defaults.",
                       choices=tuple(PRESETS), aliases=("--preset",))
    model: DNCConfig = field(default_factory=DNCConfig)


def apply_preset(model: DNCConfig, preset: str) -> DNCConfig:
    """`model` with the preset's sizes wherever it still has the default value."""
    defaults = DNCConfig()
    changed = {name: value for name, value in PRESETS[preset].items()
               if getattr(model, name) == getattr(defaults, name)}
    values = {f.name: getattr(model, f.name) for f in fields(model)}
    return DNCConfig(**{**values, **changed})


class DNCTask(WindowTask):
    """The DNC family on the engine: window characters in, reading words out, through an external memory."""

    command, format = "dnc", FORMAT

    def size_network(self, on_gpu: bool) -> None:
        self.config.model = apply_preset(self.config.model, self.config.size)

    def build_model(self) -> nn.Module:
        return DNCSeq2Seq(self.config.model, len(self.input_vocab), len(self.output_vocab))


def train(config: DNCTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) a DNC into `config.out` (the engine's refusals and Ctrl-C)."""
    return fit(DNCTask(config), resume, overwrite, explicit)
