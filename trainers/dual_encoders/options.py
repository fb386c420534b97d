"""The options of `tnforge train seq-de` and `train voc-de` beyond the engine's (`DETrainConfig`): the negative
types and ratio used in training and the network options, one dataclass per kind with that kind's default
model (`runs.KIND_DEFAULTS`), so their `--help` is generated like every other family's."""

from __future__ import annotations

from dataclasses import dataclass

from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders.config import HEADS, DualEncoderConfig
from tnforge.trainers.training.engine_config import option

_MODEL = DualEncoderConfig()


def _negatives(kind: str) -> str:
    return (f"Negative types used for training, comma-separated (of {','.join(NEGATIVE_TYPES[kind])}; default: "
            "every type present).")


_RATIO = "Negatives kept per positive in training: a number or 'all'."
_HEAD = "Classifier on the two vectors: MLP on [u, v, |u-v|, u*v], or a weighted dot product."


@dataclass
class SequenceOptions:
    """`train seq-de`'s own options (the sequence kind's default model: the interaction term on)."""

    negatives: str = option("", _negatives("sequence"), parse="tnforge.trainers.dual_encoders.runs:sequence_negatives")
    ratio: str = option("all", _RATIO, parse="tnforge.config:parse_ratio")
    head: str = option(_MODEL.head, _HEAD, choices=HEADS)
    dim: int = option(_MODEL.dim, "Size of the two encodings.", min=1)
    hidden: int = option(_MODEL.hidden, "Hidden size of each tower.", min=1)
    buckets: int = option(_MODEL.input_buckets, "Hashed feature buckets per tower.", min=64)
    cross_buckets: int = option(1 << 18, "Hashed weights of the interaction term (token key × reading key, and "
                                         "token-reading match features); 0: towers only.", min=0)


@dataclass
class VocabularyOptions:
    """`train voc-de`'s own options (the vocabulary kind's default model: the dot head)."""

    negatives: str = option("", _negatives("vocabulary"),
                            parse="tnforge.trainers.dual_encoders.runs:vocabulary_negatives")
    ratio: str = option("all", _RATIO, parse="tnforge.config:parse_ratio")
    head: str = option("dot", _HEAD, choices=HEADS)
    dim: int = option(_MODEL.dim, "Size of the two encodings.", min=1)
    hidden: int = option(_MODEL.hidden, "Hidden size of each tower.", min=1)
    buckets: int = option(_MODEL.input_buckets, "Hashed feature buckets per tower.", min=64)
