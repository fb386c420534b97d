"""Training the seq2seq normalizer on the training engine: the window families' task (`kernel.window_task`)
with the attention seq2seq network, sized for the device (`--size`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from torch import nn

from tnforge.trainers.kernel.window_task import WindowTask, WindowTrainConfig
from tnforge.trainers.seq2seq.loading import FORMAT
from tnforge.trainers.seq2seq.model import GPU_MODEL, Seq2Seq, Seq2SeqConfig
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.engine_config import option
from tnforge.trainers.training.runs import TrainResult


@dataclass
class Seq2SeqTrainConfig(WindowTrainConfig):
    """Every training option of the seq2seq (the CLI and TOML config files map onto these names)."""

    size: str = option("auto", "Network size: small (CPU-sized), large (GPU-sized), or auto: large on a GPU "
                               "unless a network option is given.", choices=("auto", "small", "large"))
    model: Seq2SeqConfig = field(default_factory=Seq2SeqConfig)


class Seq2SeqTask(WindowTask):
    """The seq2seq family on the engine: window characters in, reading words out."""

    command, format = "seq2seq", FORMAT

    def size_network(self, on_gpu: bool) -> None:
        """Resolve `--size`: large on a GPU unless a network option is given (auto), else small."""
        config = self.config
        if config.size == "large" or (config.size == "auto" and on_gpu and config.model == Seq2SeqConfig()):
            config.model = Seq2SeqConfig(**{**config.model.to_dict(), **GPU_MODEL})
            config.size = "large"
        elif config.size == "auto":
            config.size = "small"

    def build_model(self) -> nn.Module:
        return Seq2Seq(self.config.model, len(self.input_vocab), len(self.output_vocab))


def train(config: Seq2SeqTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) a model into `config.out`; returns where it stopped and the best dev figures.

    Refuses, before writing anything, a non-empty `config.out` without `resume` or `overwrite`, a corpus file
    as data and an empty train split. Ctrl-C saves a resumable checkpoint and raises `TrainingInterrupted`.
    Resuming, the run keeps the options it recorded but the runtime options named in `explicit` (`fit`)."""
    return fit(Seq2SeqTask(config), resume, overwrite, explicit)
