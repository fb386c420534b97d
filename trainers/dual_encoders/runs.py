"""A dual-encoder training run as the `train seq-de|voc-de` commands, the loop and the benchmarks start it:
the default model of each kind, its `--negatives` parser, a run that leaves its dev report (dev.md) beside
best.pt, and the run's summary.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.metrics import to_markdown
from tnforge.trainers.dual_encoders.train import DETrainConfig, DETrainResult, train_dual_encoder
from tnforge.trainers.training.checkpoints import BEST
from tnforge.trainers.training.runs import METRICS

#: What each kind's default model changes in DualEncoderConfig: the sequence DE adds the interaction term;
#: the vocabulary filter uses the dot head (it scores a whole output vocabulary at once).
KIND_DEFAULTS: dict[str, dict[str, object]] = {
    "sequence": {"cross_buckets": 1 << 18},
    "vocabulary": {"head": "dot"},
}


def default_model(kind: str) -> DualEncoderConfig:
    """The default model of a dual-encoder kind ("sequence" or "vocabulary")."""
    if kind not in KIND_DEFAULTS:
        raise ValueError(f"unknown dual encoder kind {kind!r} (use {' or '.join(KIND_DEFAULTS)})")
    return DualEncoderConfig(kind=kind, **KIND_DEFAULTS[kind])  # type: ignore[arg-type]


def model_config(kind: str, head: str, dim: int, hidden: int, buckets: int,
                 cross_buckets: int = 0) -> DualEncoderConfig:
    """A dual encoder as the train commands describe it: one hashed-bucket count for both towers."""
    return DualEncoderConfig(kind=kind, head=head, dim=dim, hidden=hidden, input_buckets=buckets,
                             output_buckets=buckets, cross_buckets=cross_buckets)


def config_of(kind: str, head: str, dim: int, hidden: int, buckets: int, cross_buckets: int = 0,
              **training: Any) -> DETrainConfig:
    """The training config of `tnforge train seq-de|voc-de`: the network options (`model_config`), the rest
    as DETrainConfig fields."""
    return DETrainConfig(kind=kind, model=model_config(kind, head, dim, hidden, buckets, cross_buckets), **training)


def parse_negative_types(kind: str, value: str) -> tuple[str, ...]:
    """A `--negatives` value: "synthetic,random" → ("synthetic", "random"), checked against `kind`."""
    types = tuple(t.strip() for t in value.split(",") if t.strip())
    unknown = [t for t in types if t not in NEGATIVE_TYPES[kind]]
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: choose from {', '.join(NEGATIVE_TYPES[kind])}")
    return types


def train_with_report(config: DETrainConfig, resume: bool = False, overwrite: bool = False,
                      explicit: Collection[str] | None = None) -> tuple[DETrainResult, str]:
    """Train (`train_dual_encoder`) a dual encoder and write the best epoch's dev figures to RUN/dev.md;
    returns the run and them."""
    result = train_dual_encoder(config, resume=resume, overwrite=overwrite, explicit=explicit)
    best = result.best
    title = f"{config.kind} dual encoder {result.run} on {config.data} (dev, best epoch {best.get('epoch')})"
    markdown = to_markdown(best, title)
    (result.run / "dev.md").write_text(markdown, encoding="utf-8")
    return result, markdown


def describe(result: DETrainResult, markdown: str) -> tuple[str, str]:
    """A run's outcome as `tnforge train seq-de|voc-de` print it: a note for stderr, then the dev report
    (`markdown`, from `train_with_report`) and the run's files."""
    note = (f"trained on {result.train_pairs:,} pairs for {result.epochs} epochs ({result.stopped}) in "
            f"{result.seconds:.0f} s")
    if result.advice:
        note += f"\n{result.advice}"
    if not result.dev_pairs:
        note += ("\nno dev pairs: best.pt is the last epoch's weights; no early stopping (build with a dev split "
                 "to have it)")
    return note, f"{markdown.rstrip()}\n\nmodel: {result.run / BEST}  metrics: {result.run / METRICS}"


def sequence_negatives(value: str) -> tuple[str, ...]:
    """`train seq-de --negatives` parsed (`parse_negative_types`)."""
    return parse_negative_types("sequence", value)


def vocabulary_negatives(value: str) -> tuple[str, ...]:
    """`train voc-de --negatives` parsed (`parse_negative_types`)."""
    return parse_negative_types("vocabulary", value)


def sequence_config(**values: Any) -> DETrainConfig:
    """`tnforge train seq-de`'s options → its training config (`config_of`)."""
    return config_of("sequence", **values)


def vocabulary_config(**values: Any) -> DETrainConfig:
    """`tnforge train voc-de`'s options → its training config (`config_of`)."""
    return config_of("vocabulary", **values)


def describe_report(outcome: tuple[DETrainResult, str]) -> tuple[str, str]:
    """`describe` of `train_with_report`'s outcome."""
    return describe(*outcome)
