"""The teacher-forced task: what every family that trains a decoder on gold readings shares on the engine —
the summed cross-entropy over the gold output units (padding ignored, optional label smoothing), its loss
units, and the learning-rate schedule on the dev loss. A family adds its data, network and dev evaluation."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.training.engine import TrainingTask


class TeacherForcedTask(TrainingTask):
    """A `TrainingTask` whose batches hold `source`, `source_lengths`, `target_in` and `target_out` (ids, `PAD`
    for padding) and whose network's forward pass gives the logits of each gold output unit."""

    def loss_units(self, batch: Any) -> float:
        return float((batch.target_out != PAD).sum()) if batch.target_out is not None else 0.0

    def loss(self, model: nn.Module, batch: Any, device: torch.device) -> tuple[torch.Tensor, int, int]:
        units = int((batch.target_out != PAD).sum())
        moved = batch.to(device)
        logits = model(moved.source, moved.source_lengths, moved.target_in)
        loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), moved.target_out.flatten(),
                                           ignore_index=PAD, reduction="sum",
                                           label_smoothing=self.config.label_smoothing)
        return loss, units, len(batch)

    def plateau_value(self, metrics: dict[str, Any]) -> float | None:
        return metrics["dev_loss"]


class NetworkDecoder:
    """The step decoder's half that a loaded model hands to its network (`model.encode` / `model.step`)."""

    model: Any

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[Any, Any]:
        return self.model.encode(source, lengths)

    def step(self, previous: torch.Tensor, state: Any, encoded: Any) -> tuple[torch.Tensor, Any]:
        return self.model.step(previous, state, encoded)
