"""Attention over an encoded window and the teacher-forced pass of any step-wise decoder (shared by the
window families)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Encoded:
    """Encoder output for a set of rows: memory, precomputed attention keys and the padding mask."""

    memory: torch.Tensor  # [N, S, 2H]
    keys: torch.Tensor  # [N, S, A]
    mask: torch.Tensor  # [N, S] True where padding

    def select(self, index: torch.Tensor) -> Encoded:
        return Encoded(self.memory.index_select(0, index), self.keys.index_select(0, index),
                       self.mask.index_select(0, index))


def attend(encoded: Encoded, query: torch.Tensor, vector: nn.Linear) -> torch.Tensor:
    """Additive (Bahdanau) attention: the context [N, M] of the encoder memory for projected queries [N, A]
    (`vector` scores tanh(key + query); padding gets no weight)."""
    energy = vector(torch.tanh(encoded.keys + query[:, None, :])).squeeze(-1)
    energy = energy.masked_fill(encoded.mask, torch.finfo(energy.dtype).min)
    weights = torch.softmax(energy, dim=-1)
    return torch.bmm(weights[:, None, :].to(encoded.memory.dtype), encoded.memory).squeeze(1)


def teacher_forced(model: nn.Module, source: torch.Tensor, lengths: torch.Tensor,
                   target_in: torch.Tensor) -> torch.Tensor:
    """Logits [N, T, V] of a recurrent decoder fed the gold inputs target_in [N, T], one `model.step` at a time
    after `model.encode` (the forward pass of every step-wise family)."""
    encoded, state = model.encode(source, lengths)
    outputs = []
    for t in range(target_in.shape[1]):
        logits, state = model.step(target_in[:, t], state, encoded)
        outputs.append(logits)
    return torch.stack(outputs, dim=1)
