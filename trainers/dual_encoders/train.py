"""Training a dual encoder from a dataset directory's `pairs` (sequence) or `vocab_pairs` (vocabulary filter)
on the training engine (`trainers.training.engine`).

Pairs are streamed from Parquet record batch by record batch, filtered by negative type, and the negatives
thinned to at most `ratio` per positive by a stable hash of each row's key (so the same rows are kept on every
machine). The loss is class-balanced binary cross-entropy (positives weighted by negatives/positives), so
p = 0.5 is the natural decision point the sequence constraint λ(s − 0.5) assumes. Early stopping on dev ROC
AUC; `checkpoint.pt` (latest) and `best.pt` (best dev AUC); `metrics.jsonl`; seeded. One process only: the
hashed embedding bags train with sparse gradients.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.features import Featurizer
from tnforge.trainers.dual_encoders.metrics import nontrivial_mask, pair_metrics
from tnforge.trainers.dual_encoders.model import DualEncoder
from tnforge.trainers.dual_encoders.pairs import SOURCES, PairRows, load_pairs
from tnforge.trainers.dual_encoders.scorer import FORMAT, DualEncoderScorer, save_dual_encoder
from tnforge.trainers.training.distributed import ProcessGroup
from tnforge.trainers.training.engine import TrainingTask, fit
from tnforge.trainers.training.engine_config import EngineConfig, option
from tnforge.trainers.training.runs import TrainResult, check_not_corpus
from tnforge.trainers.training.sharding import UNIT_ROWS

#: Dev figures that can select the best epoch (`DETrainConfig.select`).
SELECTIONS = ("auc", "auc-nontrivial")
#: The `tnforge train` sub-command of each kind (for the resume command).
TRAINER = {"sequence": "seq-de", "vocabulary": "voc-de"}


def selection_score(metrics: dict[str, Any], select: str) -> float:
    """The dev figure `select` names: ROC AUC on all dev pairs, or on the non-trivial ones (all pairs when the
    dev split has no trivial pairs to leave out)."""
    if select not in SELECTIONS:
        raise ValueError(f"select={select!r}: choose from {', '.join(SELECTIONS)}")
    if select == "auc-nontrivial" and "nontrivial" in metrics:
        return float(metrics["nontrivial"]["auc"])
    return float(metrics["auc"])


@dataclass
class DETrainConfig(EngineConfig):
    """Every training option of a dual encoder (the engine's, with the dual encoders' defaults, and its own)."""

    kind: str = option("sequence", "sequence (input, reading) or vocabulary (input, word).", hidden=True)
    negatives: tuple[str, ...] = option((), "Negative types used for training (default: every type present).",
                                        hidden=True)
    ratio: float | None = option(None, "Negatives kept per positive in training (None: all).", hidden=True)
    trivial: bool = option(True, "Train on the pairs with trivial readings (<self>/sil) too, when `tnforge "
                                 "negatives` made them: the model then judges trivial outputs in constrained "
                                 "decoding.")
    epochs: int = option(30, "Maximum passes over the train pairs.", min=1)
    batch_size: int = option(256, "Pairs per batch.", min=1)
    learning_rate: float = option(3e-3, "Adam step size.", min=0, min_open=True, aliases=("--lr",))
    clip: float = option(0.0, "Gradient-norm clipping of the dense weights (0: none).", min=0)
    lr_decay: float = option(1.0, "Multiply the learning rate by this when dev AUC stops improving (1: no decay).",
                             min=0, max=1, min_open=True)
    weight_decay: float = option(0.0, "Weight decay of the dense weights.", min=0)
    patience: int = option(4, "Epochs without dev gain before stopping.", min=1)
    select: str = option("auc", "Dev figure that picks best.pt and drives early stopping: ROC AUC on all dev "
                                "pairs, or on the non-trivial ones (no <self>/sil reading or input).",
                         choices=SELECTIONS)
    max_minutes: float = option(0.0, "Wall-clock budget in minutes (0: none).", min=0)
    amp: bool = option(False, "Mixed precision on CUDA.")
    model: DualEncoderConfig = field(default_factory=DualEncoderConfig)

    def __post_init__(self) -> None:
        if self.select not in SELECTIONS:
            raise ValueError(f"select={self.select!r}: choose from {', '.join(SELECTIONS)}")
        known = NEGATIVE_TYPES.get(self.kind, ())
        unknown = [t for t in self.negatives if t not in known]
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: not a {self.kind} negative type (choose from {', '.join(known)})")

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "negatives": list(self.negatives)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DETrainConfig:
        return super().from_dict({**data, "negatives": tuple(data.get("negatives", ()))})


@dataclass
class DETrainResult(TrainResult):
    """A training run's outcome (see `TrainResult`) and how many train and dev pairs it used."""

    train_pairs: int
    dev_pairs: int


def _pack(featurizer: Featurizer, side: str, texts: list[str], device: torch.device) -> tuple[torch.Tensor,
                                                                                               torch.Tensor]:
    ids, offsets = featurizer.pack(side, texts)
    return ids.to(device), offsets.to(device)


@torch.no_grad()
def evaluate_rows(model: DualEncoder, rows: PairRows, device: torch.device) -> dict[str, Any]:
    """`pair_metrics` of a model on in-memory pairs (the model is put back in the mode it was in)."""
    was_training = model.training
    model.eval()
    scorer = DualEncoderScorer(model, device)
    scores = scorer.score(rows.befores, rows.outputs).numpy() if len(rows) else np.zeros(0)
    model.train(was_training)
    return pair_metrics(rows.labels, scores, rows.types, classes=rows.classes,
                        nontrivial=nontrivial_mask(rows.befores, rows.outputs, rows.labels))


class DualEncoderTask(TrainingTask):
    """A dual encoder on the engine: pairs in memory, dealt as units of UNIT_ROWS rows."""

    format = FORMAT
    distributed = False

    def __init__(self, config: DETrainConfig) -> None:
        super().__init__(config)
        self.command = TRAINER[config.kind]

    def setup(self, group: ProcessGroup, payload: dict[str, Any] | None) -> None:
        config = self.config
        check_not_corpus(config.data)
        require_finished_pairs(config.data)
        config.model.kind = config.kind
        config.model.check()
        self.train_rows = load_pairs(config.data, config.kind, "train", config.negatives, config.ratio, config.seed,
                                     config.trivial)
        self.dev_rows = load_pairs(config.data, config.kind, "dev", config.negatives, None, config.seed,
                                   config.trivial)
        rows, labels = self.train_rows, self.train_rows.labels
        if not len(rows) or 0 < sum(labels) == len(rows) or not sum(labels):
            raise ValueError(f"{config.data}: {SOURCES[config.kind][0]}/train needs positive and negative pairs "
                             f"(found {len(rows)} rows; run `tnforge negatives` first)")
        if payload is None:  # a model that saw trivial readings as positives judges them (and is asked to)
            config.model.trivial = any(label and output in TRIVIAL_TARGETS
                                       for output, label in zip(rows.outputs, labels, strict=True))
        self.featurizer = Featurizer(config.model)
        self.labels = torch.tensor(labels, dtype=torch.float32)
        positives = sum(labels)
        self.pos_weight = torch.tensor((len(rows) - positives) / positives)

    def build_model(self) -> nn.Module:
        return DualEncoder(self.config.model)

    def optimizers(self, model: nn.Module) -> list[torch.optim.Optimizer]:
        bags = {id(m.weight) for m in model.modules() if isinstance(m, nn.EmbeddingBag)}
        sparse = [p for p in model.parameters() if id(p) in bags]
        dense = [p for p in model.parameters() if id(p) not in bags]
        config = self.config
        return [torch.optim.SparseAdam(sparse, lr=config.learning_rate),
                torch.optim.Adam(dense, lr=config.learning_rate, weight_decay=config.weight_decay)]

    def unit_rows(self) -> list[int]:
        total = len(self.train_rows)
        return [min(UNIT_ROWS, total - start) for start in range(0, total, UNIT_ROWS)]

    def batches(self, units: list[int], seed: list[int], batch_size: int) -> Iterator[tuple[list[int], int]]:
        total = len(self.train_rows)
        rows = np.concatenate([np.arange(u * UNIT_ROWS, min((u + 1) * UNIT_ROWS, total)) for u in units] or
                              [np.zeros(0, dtype=np.int64)])
        order = np.random.default_rng(seed).permutation(rows).tolist()
        count = math.ceil(len(order) / batch_size)
        for index in range(count):
            yield order[index * batch_size: (index + 1) * batch_size], len(units) if index == count - 1 else 0

    def loss(self, model: nn.Module, batch: list[int], device: torch.device) -> tuple[torch.Tensor, int, int]:
        rows, featurizer = self.train_rows, self.featurizer
        befores = [rows.befores[i] for i in batch]
        outputs = [rows.outputs[i] for i in batch]
        cross = None
        if self.config.model.cross_buckets:
            ids, offsets = featurizer.pack_cross(befores, outputs)
            cross = (ids.to(device), offsets.to(device))
        logits = model(*_pack(featurizer, "input", befores, device),
                       *_pack(featurizer, featurizer.output_side(), outputs, device), cross)
        loss = nn.functional.binary_cross_entropy_with_logits(
            logits.float(), self.labels[batch].to(device), pos_weight=self.pos_weight.to(device), reduction="sum")
        return loss, len(batch), len(batch)

    def evaluate(self, model: nn.Module, device: torch.device) -> dict[str, Any] | None:
        if not len(self.dev_rows):
            return None
        return {**evaluate_rows(model, self.dev_rows, device), "selected_by": self.config.select}

    def improves(self, metrics: dict[str, Any], best: dict[str, Any]) -> bool:
        score = selection_score(metrics, self.config.select)
        if not best:
            return True
        previous = selection_score(best, self.config.select)
        return not math.isnan(score) and (math.isnan(previous) or score > previous)

    def dev_line(self, metrics: dict[str, Any]) -> str:
        nontrivial = metrics.get("nontrivial", {}).get("auc")
        return f"AUC {metrics['auc']:.4f}" + (f"  non-trivial AUC {nontrivial:.4f}" if nontrivial is not None else "")

    def dev_record(self, metrics: dict[str, Any]) -> dict[str, Any]:
        return {"auc": metrics["auc"], "auc_nontrivial": metrics.get("nontrivial", {}).get("auc"),
                "accuracy": metrics.get("accuracy"), "false_accept": metrics.get("false_accept")}

    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        save_dual_encoder(str(path), model, self.config.to_dict(), training=training, metrics=metrics)


def require_finished_pairs(data: str) -> None:
    """A dataset (or pairs folder) whose manifest has no "negatives" section holds no finished pairs: `tnforge
    negatives` records it last, so pairs without it are what an interrupted or failed run left (one line).
    Parquet files without a manifest are taken as they are."""
    from tnforge.manifest import has_manifest, read_manifest

    if has_manifest(data) and "negatives" not in (read_manifest(data) or {}):
        raise ValueError(f"{data}: no finished pairs (manifest.json has no negatives section: `tnforge negatives` "
                         "was interrupted, failed or never run there); run `tnforge negatives` first")


def train_dual_encoder(config: DETrainConfig, resume: bool = False, overwrite: bool = False,
                       explicit: Collection[str] | None = None) -> DETrainResult:
    """Train (or resume) a dual encoder into `config.out`; returns where it stopped and the best dev figures.

    Refuses, before writing anything, a non-empty `config.out` without `resume` or `overwrite`, a corpus file
    as data and a train split without both labels. Ctrl-C saves a resumable checkpoint and raises
    `TrainingInterrupted`."""
    check_not_corpus(config.data)
    require_finished_pairs(config.data)
    task = DualEncoderTask(config)
    result = fit(task, resume, overwrite, explicit)
    return DETrainResult(result.run, result.epochs, result.steps, result.seconds, result.best, result.stopped,
                         len(task.train_rows), len(task.dev_rows), advice=result.advice)
