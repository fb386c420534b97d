"""A trained dual encoder ready to score (`DualEncoderScorer`), and its checkpoints (save, load)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.features import Featurizer
from tnforge.trainers.dual_encoders.model import DualEncoder
from tnforge.trainers.training.checkpoints import checkpoint_file, load_checkpoint, save_checkpoint

FORMAT = "tnforge-dual-encoder"


def save_dual_encoder(path: str | os.PathLike, model: DualEncoder, config: dict[str, Any],
                      training: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
    """Write a dual encoder checkpoint atomically (weights, model config, training config, versions, metrics)."""
    save_checkpoint(path, FORMAT, model, model.config.to_dict(), config, training, metrics)


class DualEncoderScorer:
    """A trained dual encoder ready to score: probabilities for pairs, encoded inputs, whole vocabularies."""

    def __init__(self, model: DualEncoder, device: torch.device | str = "cpu", path: Any = None,
                 metrics: dict[str, Any] | None = None):
        self.model = model.to(device).eval()
        self.device = torch.device(device)
        self.config = model.config
        self.featurizer = Featurizer(model.config)
        self.path = path
        self.metrics = metrics or {}
        self._word_cache: dict[tuple[str, ...], torch.Tensor] = {}

    @property
    def kind(self) -> str:
        return self.config.kind

    @property
    def judges_trivial(self) -> bool:
        """Whether the model was trained on trivial readings (`<self>`, `sil`), so its scores of them count."""
        return bool(self.config.trivial)

    @property
    def needs_befores(self) -> bool:
        """Whether `score_encoded` needs the written tokens too (a model with interaction features)."""
        return bool(self.config.cross_buckets)

    def _packed(self, side: str, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        ids, offsets = self.featurizer.pack(side, texts)
        return ids.to(self.device), offsets.to(self.device)

    @torch.no_grad()
    def encode_inputs(self, befores: Sequence[str]) -> torch.Tensor:
        """Input vectors u [N, dim] of written tokens."""
        return self.model.encode_inputs(*self._packed("input", befores))

    @torch.no_grad()
    def encode_outputs(self, texts: Sequence[str]) -> torch.Tensor:
        """Output vectors v [N, dim] of readings (sequence kind) or words (vocabulary kind)."""
        return self.model.encode_outputs(*self._packed(self.featurizer.output_side(), texts))

    @torch.no_grad()
    def score_encoded(self, u: torch.Tensor, texts: Sequence[str],
                      befores: Sequence[str] | None = None) -> torch.Tensor:
        """p(acceptable) [N] of aligned (encoded input u[i], output text i) pairs; `befores` (the tokens of u)
        are needed by a model with interaction features."""
        if not len(texts):
            return torch.zeros(0, device=self.device)
        cross = None
        if self.needs_befores:
            if befores is None:
                raise ValueError("this sequence dual encoder has interaction features: pass the tokens too")
            ids, offsets = self.featurizer.pack_cross(befores, texts)
            cross = (ids.to(self.device), offsets.to(self.device))
        return torch.sigmoid(self.model.pair_logits(u, self.encode_outputs(texts), cross))

    @torch.no_grad()
    def score(self, befores: Sequence[str], texts: Sequence[str], batch_size: int = 4096) -> torch.Tensor:
        """p(acceptable) [N] of aligned (token, reading-or-word) pairs, on CPU."""
        out = []
        for start in range(0, len(befores), batch_size):
            u = self.encode_inputs(befores[start: start + batch_size])
            out.append(self.score_encoded(u, texts[start: start + batch_size],
                                          befores[start: start + batch_size]).float().cpu())
        return torch.cat(out) if out else torch.zeros(0)

    @torch.no_grad()
    def score_matrix(self, befores: Sequence[str], words: Sequence[str]) -> torch.Tensor:
        """p(word may appear) [B, V] of every token with every word (word vectors cached per word list)."""
        key = tuple(words)
        v = self._word_cache.get(key)
        if v is None:
            v = self.encode_outputs(list(words))
            self._word_cache = {key: v}
        return torch.sigmoid(self.model.matrix_logits(self.encode_inputs(befores), v))


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device | str) -> (
        DualEncoderScorer):
    """The scorer (eval mode, on `device`) of a dual encoder checkpoint's payload (the family loader)."""
    # Checkpoints written before feature versions existed used version 1.
    model = DualEncoder(DualEncoderConfig.from_dict({"features": 1, **payload["model_config"]}))
    model.load_state_dict(payload["model"])
    return DualEncoderScorer(model, device, Path(file), payload.get("metrics"))


def load_dual_encoder(path: str | os.PathLike, device: torch.device | str = "cpu") -> DualEncoderScorer:
    """Load a trained dual encoder (eval mode) from a run directory or checkpoint file."""
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)
