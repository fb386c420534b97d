"""The toy network (GRU encoder, GRU decoder, no attention), its task on the engine and its loader; the rest
comes from the shared kernel (`tnforge.trainers.kernel`: vocabularies, batches, the teacher-forced loss, the
window task and the loaded model)."""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from tnforge.trainers.kernel.attention import teacher_forced
from tnforge.trainers.kernel.window import LoadedWindowModel, window_model
from tnforge.trainers.kernel.window_task import WindowTask, WindowTrainConfig
from tnforge.trainers.training.config_dicts import DictConfig
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.engine_config import option

FORMAT = "tnforge-toy"


@dataclass
class ToyConfig(DictConfig):
    """The toy network's sizes."""

    embedding: int = option(16, "Embedding size of input and output units.", min=1)
    hidden: int = option(32, "GRU size.", min=1)


@dataclass
class ToyTrainConfig(WindowTrainConfig):
    """The window families' training options with the toy network."""

    model: ToyConfig = field(default_factory=ToyConfig)


@dataclass
class ToyState:
    hidden: torch.Tensor

    def select(self, index: torch.Tensor) -> ToyState:
        return ToyState(self.hidden.index_select(0, index))


@dataclass
class ToyEncoded:
    summary: torch.Tensor

    def select(self, index: torch.Tensor) -> ToyEncoded:
        return ToyEncoded(self.summary.index_select(0, index))


class ToyNetwork(nn.Module):
    def __init__(self, config: ToyConfig, input_size: int, output_size: int):
        super().__init__()
        self.config = config
        self.source = nn.Embedding(input_size, config.embedding)
        self.encoder = nn.GRU(config.embedding, config.hidden, batch_first=True)
        self.target = nn.Embedding(output_size, config.embedding)
        self.decoder = nn.GRUCell(config.embedding + config.hidden, config.hidden)
        self.output = nn.Linear(config.hidden, output_size)

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[ToyEncoded, ToyState]:
        packed = nn.utils.rnn.pack_padded_sequence(self.source(source), lengths.cpu().clamp(min=1),
                                                   batch_first=True, enforce_sorted=False)
        _, hidden = self.encoder(packed)
        return ToyEncoded(hidden[-1]), ToyState(hidden[-1])

    def step(self, previous: torch.Tensor, state: ToyState, encoded: ToyEncoded) -> tuple[torch.Tensor, ToyState]:
        hidden = self.decoder(torch.cat([self.target(previous), encoded.summary], dim=-1), state.hidden)
        return self.output(hidden), ToyState(hidden)

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> torch.Tensor:
        return teacher_forced(self, source, lengths, target_in)


class ToyTask(WindowTask):
    command, format = "toy", FORMAT

    def build_model(self) -> nn.Module:
        return ToyNetwork(self.config.model, len(self.input_vocab), len(self.output_vocab))


def train(config: ToyTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> Any:
    return fit(ToyTask(config), resume, overwrite, explicit)


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedWindowModel:
    return window_model(payload, file, device, ToyNetwork, ToyConfig)
