"""The dual encoder network: two hashed-feature towers and an `mlp` or `dot` head (plus an optional hashed
interaction term); `matrix_logits` scores every input against a whole vocabulary at once."""

from __future__ import annotations

import torch
from torch import nn

from tnforge.trainers.dual_encoders.config import DualEncoderConfig


class Tower(nn.Module):
    """Hashed-feature embedding bag followed by a two-layer MLP."""

    def __init__(self, buckets: int, embedding: int, hidden: int, dim: int, dropout: float):
        super().__init__()
        self.bag = nn.EmbeddingBag(buckets, embedding, mode="mean", sparse=True)
        self.net = nn.Sequential(nn.Linear(embedding, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, dim))

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.net(self.bag(ids, offsets))


class DualEncoder(nn.Module):
    """Two towers and a head: logits of p(acceptable) for (input, output) pairs."""

    def __init__(self, config: DualEncoderConfig):
        super().__init__()
        config.check()
        self.config = c = config
        self.input_tower = Tower(c.input_buckets, c.embedding, c.hidden, c.dim, c.dropout)
        self.output_tower = Tower(c.output_buckets, c.embedding, c.hidden, c.dim, c.dropout)
        if c.head == "mlp":
            self.first = nn.Linear(4 * c.dim, c.head_hidden)
            self.second = nn.Linear(c.head_hidden, 1)
        else:
            self.weight = nn.Parameter(torch.ones(c.dim))
            self.bias = nn.Parameter(torch.zeros(1))
        if c.cross_buckets:
            self.cross = nn.EmbeddingBag(c.cross_buckets, 1, mode="sum", sparse=True)
            nn.init.zeros_(self.cross.weight)

    def encode_inputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.input_tower(ids, offsets)

    def encode_outputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.output_tower(ids, offsets)

    def pair_logits(self, u: torch.Tensor, v: torch.Tensor,
                    cross: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """Logits [N] of aligned pairs u[i], v[i] (plus the interaction term of packed `cross` ids, if any)."""
        if self.config.head == "dot":
            logits = (u * self.weight * v).sum(-1) / self.config.dim ** 0.5 + self.bias
        else:
            features = torch.cat([u, v, (u - v).abs(), u * v], dim=-1)
            logits = self.second(torch.relu(self.first(features))).squeeze(-1)
        if self.config.cross_buckets:
            if cross is None:
                raise ValueError("this dual encoder has interaction features: pass the packed cross ids")
            logits = logits + self.cross(*cross).squeeze(-1)
        return logits

    def matrix_logits(self, u: torch.Tensor, v: torch.Tensor, chunk: int = 1 << 20) -> torch.Tensor:
        """Logits [B, V] of every input u[b] with every output v[j] (chunked to bound memory)."""
        if self.config.head == "dot":
            return (u * self.weight) @ v.T / self.config.dim ** 0.5 + self.bias
        d = self.config.dim
        w = self.first.weight  # [H, 4d]
        w_u, w_v, w_a, w_m = w[:, :d], w[:, d:2 * d], w[:, 2 * d:3 * d], w[:, 3 * d:]
        part_u = u @ w_u.T + self.first.bias  # [B, H]
        part_v = v @ w_v.T  # [V, H]
        rows = max(1, chunk // max(1, v.shape[0] * d))
        out = []
        for start in range(0, u.shape[0], rows):
            uu = u[start: start + rows, None, :]  # [b, 1, d]
            pre = (part_u[start: start + rows, None, :] + part_v[None, :, :]
                   + (uu - v[None]).abs() @ w_a.T + (uu * v[None]) @ w_m.T)
            out.append(self.second(torch.relu(pre)).squeeze(-1))
        return torch.cat(out, dim=0)

    def forward(self, in_ids: torch.Tensor, in_offsets: torch.Tensor, out_ids: torch.Tensor,
                out_offsets: torch.Tensor, cross: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        return self.pair_logits(self.encode_inputs(in_ids, in_offsets), self.encode_outputs(out_ids, out_offsets),
                                cross)
