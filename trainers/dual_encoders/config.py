"""Sizes and feature settings of a dual encoder (`DualEncoderConfig`, stored in its checkpoints)."""

from __future__ import annotations

from dataclasses import dataclass

from tnforge.trainers.training.config_dicts import DictConfig

KINDS = ("sequence", "vocabulary")
HEADS = ("mlp", "dot")
#: Feature version of new models: 2 adds the token's shape and trivial-reading pair features (docs/guides/constrained-decoding.md).
FEATURES = 2


@dataclass
class DualEncoderConfig(DictConfig):
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
    cross_buckets: int = 0  # sequence kind: hashed (input key × reading key) interaction weights; 0 = none
    features: int = FEATURES  # feature version (checkpoints without one are version 1)
    trivial: bool = False  # trained on trivial readings (<self>/sil) too: it judges them

    def check(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown dual encoder kind {self.kind!r} (use {' or '.join(KINDS)})")
        if self.head not in HEADS:
            raise ValueError(f"unknown head {self.head!r} (use {' or '.join(HEADS)})")
        if self.features not in (1, 2):
            raise ValueError(f"unknown feature version {self.features} (this tnforge knows 1 and 2)")
        if self.cross_buckets and self.kind != "sequence":
            raise ValueError("interaction features (cross_buckets) exist for the sequence kind only")
