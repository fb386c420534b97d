"""Dual encoders of Gokcen, Zhang & Sproat (2019): string-pair classifiers used as decoding constraints.

* Sequence dual encoder: an input tower over hashed character n-gram features of the written token and a
  reading tower over hashed word n-gram features of a reading; a small network on [u, v, |u − v|, u ⊙ v]
  gives p(the reading is acceptable for the token).
* Vocabulary-filter dual encoder: the same input tower and a word tower (the word itself plus its
  character n-grams) → p(the word may appear in the token's reading).

Features are hashed into fixed tables with `tnforge.hashing.stable_hash64` (never Python's salted `hash()`),
so a checkpoint needs no vocabulary: the hash seed and table sizes in its config are enough.
The `dot` head (a weighted dot product) scores a whole vocabulary with one matrix product; the `mlp` head
scores a [B × V] matrix in chunks through the same first layer split into per-input, per-word and per-pair
parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import torch
from torch import nn

from tnforge.hashing import stable_hash64

KINDS = ("sequence", "vocabulary")
HEADS = ("mlp", "dot")
#: Digit positions (counted from the right of a digit run) that get their own features.
MAX_DIGIT_POSITION = 12
#: Characters of a token / words of a reading (from either end) that get positional features.
MAX_POSITION = 8


@dataclass
class DualEncoderConfig:
    """Sizes and feature settings of a dual encoder (stored in checkpoints)."""

    kind: str = "sequence"  # "sequence" (input, reading) or "vocabulary" (input, word)
    head: str = "mlp"  # "mlp" on [u, v, |u−v|, u*v], or "dot"
    input_buckets: int = 1 << 16
    output_buckets: int = 1 << 16
    embedding: int = 64
    hidden: int = 128
    dim: int = 64
    head_hidden: int = 64
    dropout: float = 0.1
    char_ngrams: int = 4  # character n-grams of the token, n = 1..char_ngrams
    word_ngrams: int = 2  # word n-grams of the reading, n = 1..word_ngrams
    hash_seed: int = 7

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DualEncoderConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown dual encoder kind {self.kind!r} (use {' or '.join(KINDS)})")
        if self.head not in HEADS:
            raise ValueError(f"unknown head {self.head!r} (use {' or '.join(HEADS)})")


def _char_grams(text: str, top: int) -> list[str]:
    padded = f"\x02{text}\x03"
    return [padded[i: i + n] for n in range(1, top + 1) for i in range(len(padded) - n + 1)]


def input_grams(before: str, top: int = 4) -> list[str]:
    """Feature strings of a token: char n-grams, digits by place, characters by position from each end, length."""
    grams = ["c" + g for g in _char_grams(before, top)]
    run: list[str] = []
    text = before + " "
    for i, char in enumerate(text):
        if char.isdigit():
            run.append(char)
            continue
        if char == "," and run and text[i + 1].isdigit():
            continue  # a thousands separator does not end the number
        for place, digit in enumerate(reversed(run)):
            grams.append(f"d{digit}@{min(place, MAX_DIGIT_POSITION)}/{min(len(run), MAX_DIGIT_POSITION)}")
        run = []
    lower = before.lower()
    grams += ["l" + g for g in _char_grams(lower, 2)]
    grams += [f"p{i}:{char}" for i, char in enumerate(lower[:MAX_POSITION])]
    grams += [f"e{i}:{char}" for i, char in enumerate(reversed(lower[-MAX_POSITION:]))]
    grams.append(f"len{min(len(before), 24)}")
    return grams


def reading_grams(reading: str, top: int = 2) -> list[str]:
    """Feature strings of a reading: word n-grams with boundaries, words by position from each end, count."""
    words = reading.split()
    padded = ["<s>", *words, "</s>"]
    grams = ["w" + " ".join(padded[i: i + n]) for n in range(1, top + 1) for i in range(len(padded) - n + 1)]
    grams += [f"p{i}:{word}" for i, word in enumerate(words[:MAX_POSITION])]
    grams += [f"e{i}:{word}" for i, word in enumerate(reversed(words[-MAX_POSITION:]))]
    grams.append(f"n{min(len(words), 24)}")
    return grams


def word_grams(word: str, top: int = 4) -> list[str]:
    """Feature strings of one output word: the word itself and its character n-grams (n ≥ 2)."""
    return ["W" + word] + ["c" + g for g in _char_grams(word, top) if len(g) >= 2]


class Featurizer:
    """Turns texts into hashed feature ids (with a per-string cache) packed for `nn.EmbeddingBag`."""

    def __init__(self, config: DualEncoderConfig, cache_limit: int = 200_000):
        self.config = config
        self._cache: dict[tuple[str, str], list[int]] = {}
        self._limit = cache_limit

    def _ids(self, side: str, text: str) -> list[int]:
        key = (side, text)
        found = self._cache.get(key)
        if found is not None:
            return found
        c = self.config
        if side == "input":
            grams, buckets = input_grams(text, c.char_ngrams), c.input_buckets
        elif side == "reading":
            grams, buckets = reading_grams(text, c.word_ngrams), c.output_buckets
        else:
            grams, buckets = word_grams(text, c.char_ngrams), c.output_buckets
        ids = sorted({stable_hash64(side, g, seed=c.hash_seed) % buckets for g in grams})
        if len(self._cache) >= self._limit:
            self._cache.clear()
        self._cache[key] = ids
        return ids

    def pack(self, side: str, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """(flat ids, offsets) of many texts for one side: "input", "reading" or "word"."""
        flat: list[int] = []
        offsets: list[int] = []
        for text in texts:
            offsets.append(len(flat))
            flat.extend(self._ids(side, text))
        return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)

    def output_side(self) -> str:
        return "reading" if self.config.kind == "sequence" else "word"


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

    def encode_inputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.input_tower(ids, offsets)

    def encode_outputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.output_tower(ids, offsets)

    def pair_logits(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Logits [N] of aligned pairs u[i], v[i]."""
        if self.config.head == "dot":
            return (u * self.weight * v).sum(-1) / self.config.dim ** 0.5 + self.bias
        features = torch.cat([u, v, (u - v).abs(), u * v], dim=-1)
        return self.second(torch.relu(self.first(features))).squeeze(-1)

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
                out_offsets: torch.Tensor) -> torch.Tensor:
        return self.pair_logits(self.encode_inputs(in_ids, in_offsets), self.encode_outputs(out_ids, out_offsets))


# --- checkpoints and scoring ------------------------------------------------------------------------------

FORMAT = "tnforge-dual-encoder"
FORMAT_VERSION = 1
BEST = "best.pt"
LAST = "checkpoint.pt"


def save_dual_encoder(path: str, model: DualEncoder, config: dict[str, Any],
                      training: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
    """Write a dual encoder checkpoint atomically (weights, model config, training config, version)."""
    import io

    from tnforge import __version__
    from tnforge.filesystems import write_atomically

    payload = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "tnforge_version": __version__,
        "torch_version": str(torch.__version__), "model_config": model.config.to_dict(), "config": config,
        "metrics": metrics or {}, "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "training": training or {},
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    with write_atomically(str(path)) as handle:
        handle.write(buffer.getvalue())


def checkpoint_file(path: str | Any) -> Any:
    """best.pt (else checkpoint.pt) of a run directory, or the checkpoint file itself."""
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        for name in (BEST, LAST):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path}: no {BEST} or {LAST} in this dual encoder run directory")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such dual encoder checkpoint")
    return path


def load_payload(path: str | Any, device: torch.device | str = "cpu") -> dict[str, Any]:
    """Read a dual encoder checkpoint (file or run directory) with tensors on `device`."""
    file = checkpoint_file(path)
    try:
        payload = torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unpickling problem means "not a checkpoint"
        raise ValueError(f"{file}: not a readable tnforge checkpoint ({error})") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{file}: not a tnforge dual encoder checkpoint")
    if payload.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{file}: checkpoint format {payload['format_version']} is newer than this tnforge")
    return payload


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
    def score_encoded(self, u: torch.Tensor, texts: Sequence[str]) -> torch.Tensor:
        """p(acceptable) [N] of aligned (encoded input u[i], output text i) pairs."""
        if not len(texts):
            return torch.zeros(0, device=self.device)
        return torch.sigmoid(self.model.pair_logits(u, self.encode_outputs(texts)))

    @torch.no_grad()
    def score(self, befores: Sequence[str], texts: Sequence[str], batch_size: int = 4096) -> torch.Tensor:
        """p(acceptable) [N] of aligned (token, reading-or-word) pairs, on CPU."""
        out = []
        for start in range(0, len(befores), batch_size):
            u = self.encode_inputs(befores[start: start + batch_size])
            out.append(self.score_encoded(u, texts[start: start + batch_size]).float().cpu())
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


def load_dual_encoder(path: str | Any, device: torch.device | str = "cpu") -> DualEncoderScorer:
    """Load a trained dual encoder (eval mode) from a run directory or checkpoint file."""
    payload = load_payload(path, device)
    model = DualEncoder(DualEncoderConfig.from_dict(payload["model_config"]))
    model.load_state_dict(payload["model"])
    return DualEncoderScorer(model, device, checkpoint_file(path), payload.get("metrics"))
