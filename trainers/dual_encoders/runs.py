"""A dual-encoder training run as the `train seq-de|voc-de` commands, the loop and the benchmarks start it:
the default model of each kind, and a run that leaves its dev report (dev.md) beside best.pt.
"""

from __future__ import annotations

from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.metrics import to_markdown
from tnforge.trainers.dual_encoders.train import DETrainConfig, DETrainResult, train_dual_encoder

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


def train_with_report(config: DETrainConfig, resume: bool = False,
                      overwrite: bool = False) -> tuple[DETrainResult, str]:
    """Train (`train_dual_encoder`) a dual encoder and write the best epoch's dev figures to RUN/dev.md;
    returns the run and them."""
    result = train_dual_encoder(config, resume=resume, overwrite=overwrite)
    best = result.best
    title = f"{config.kind} dual encoder {result.run} on {config.data} (dev, best epoch {best.get('epoch')})"
    markdown = to_markdown(best, title)
    (result.run / "dev.md").write_text(markdown, encoding="utf-8")
    return result, markdown
