"""Training a dual encoder from a dataset directory's `pairs` (sequence) or `vocab_pairs` (vocabulary filter).

Pairs are streamed from Parquet record batch by record batch, filtered by negative type, and the negatives
thinned to at most `ratio` per positive by a stable hash of each row's key (so the same rows are kept on every
machine). The loss is class-balanced binary cross-entropy (positives weighted by negatives/positives), so
p = 0.5 is the natural decision point the sequence constraint λ(s − 0.5) assumes. Early stopping on dev ROC
AUC; `checkpoint.pt` (latest) and `best.pt` (best dev AUC); `metrics.jsonl`; seeded.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.checkpoints import BEST, LAST, load_checkpoint
from tnforge.trainers.config_dicts import known_fields
from tnforge.trainers.devices import resolve_device, seed_everything
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.features import Featurizer
from tnforge.trainers.dual_encoders.metrics import nontrivial_mask, pair_metrics
from tnforge.trainers.dual_encoders.model import DualEncoder
from tnforge.trainers.dual_encoders.pairs import SOURCES, PairRows, load_pairs
from tnforge.trainers.dual_encoders.scorer import FORMAT, DualEncoderScorer, save_dual_encoder
from tnforge.trainers.runs import (
    METRICS,
    TrainingInterrupted,
    TrainResult,
    check_not_corpus,
    log_metrics,
    prepare_run_directory,
    resume_command,
)

#: Dev figures that can select the best epoch (`DETrainConfig.select`).
SELECTIONS = ("auc", "auc-nontrivial")
#: Options that a resumed run takes from the new command line instead of the checkpoint.
RESUME_OVERRIDES = ("epochs", "max_minutes", "device", "threads", "progress", "patience")
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
class DETrainConfig:
    """Every training option of a dual encoder."""

    data: str = ""
    out: str = ""
    kind: str = "sequence"
    negatives: tuple[str, ...] = ()  # negative types used for training; () = every type present
    ratio: float | None = None  # negatives kept per positive in training (None = all)
    trivial: bool = True  # train on pairs with trivial readings too (when the data has them)
    device: str = "auto"
    epochs: int = 30
    batch_size: int = 256
    learning_rate: float = 3e-3
    weight_decay: float = 0.0
    patience: int = 4
    select: str = "auc"  # dev figure that picks best.pt and drives early stopping: "auc" or "auc-nontrivial"
    max_minutes: float = 0.0
    seed: int = 13
    threads: int = 0
    progress: bool = True
    model: DualEncoderConfig = field(default_factory=DualEncoderConfig)

    def __post_init__(self) -> None:
        if self.select not in SELECTIONS:
            raise ValueError(f"select={self.select!r}: choose from {', '.join(SELECTIONS)}")
        known = NEGATIVE_TYPES.get(self.kind, ())
        unknown = [t for t in self.negatives if t not in known]
        if unknown:
            raise ValueError(f"{', '.join(unknown)}: not a {self.kind} negative type (choose from {', '.join(known)})")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["negatives"] = list(self.negatives)
        data["model"] = self.model.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DETrainConfig:
        values = known_fields(cls, data, skip=("model",))
        values["negatives"] = tuple(values.get("negatives", ()))
        return cls(**values, model=DualEncoderConfig.from_dict(data.get("model", {})))


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
    """`pair_metrics` of a model on in-memory pairs (the model is put back in train mode)."""
    model.eval()
    scorer = DualEncoderScorer(model, device)
    scores = scorer.score(rows.befores, rows.outputs).numpy() if len(rows) else np.zeros(0)
    model.train()
    return pair_metrics(rows.labels, scores, rows.types, classes=rows.classes,
                        nontrivial=nontrivial_mask(rows.befores, rows.outputs, rows.labels))


def _resumed(config: DETrainConfig, run: Path) -> tuple[DETrainConfig, dict[str, Any]]:
    """The saved run's config (with the new `RESUME_OVERRIDES`, data and out) and its checkpoint payload."""
    payload = load_checkpoint(run / LAST, FORMAT, "cpu")
    if "optimizers" not in payload["training"]:
        raise ValueError(f"{run / LAST}: saved without a training state; train again with --overwrite")
    saved = DETrainConfig.from_dict(payload["config"])
    for name in RESUME_OVERRIDES:
        setattr(saved, name, getattr(config, name))
    saved.data, saved.out = config.data, config.out
    return saved, payload


def train_dual_encoder(config: DETrainConfig, resume: bool = False, overwrite: bool = False) -> DETrainResult:
    """Train (or resume) a dual encoder into `config.out`; returns where it stopped and the best dev figures.

    Refuses, before writing anything, a non-empty `config.out` without `resume` or `overwrite`, a corpus file
    as data and a train split without both labels. Ctrl-C saves a resumable checkpoint and raises
    `TrainingInterrupted`."""
    check_not_corpus(config.data)
    run = prepare_run_directory(config.out, resume, overwrite)
    payload: dict[str, Any] = {}
    if resume:
        config, payload = _resumed(config, run)
    config.model.kind = config.kind
    config.model.check()
    device = resolve_device(config.device)
    if config.threads:
        torch.set_num_threads(config.threads)
    seed_everything(config.seed)
    train_rows = load_pairs(config.data, config.kind, "train", config.negatives, config.ratio, config.seed,
                            config.trivial)
    dev_rows = load_pairs(config.data, config.kind, "dev", config.negatives, None, config.seed, config.trivial)
    dataset = SOURCES[config.kind][0]
    if not len(train_rows) or 0 < sum(train_rows.labels) == len(train_rows) or not sum(train_rows.labels):
        raise ValueError(f"{config.data}: {dataset}/train needs positive and negative pairs "
                         f"(found {len(train_rows)} rows; run `tnforge negatives` first)")
    run.mkdir(parents=True, exist_ok=True)
    if not resume:
        (run / METRICS).unlink(missing_ok=True)
        # A model that saw trivial readings as positives judges them; the constraints then score them too.
        config.model.trivial = any(label and output in TRIVIAL_TARGETS
                                   for output, label in zip(train_rows.outputs, train_rows.labels, strict=True))

    model = DualEncoder(config.model).to(device)
    featurizer = Featurizer(config.model)
    side = featurizer.output_side()
    bags = {id(m.weight) for m in model.modules() if isinstance(m, nn.EmbeddingBag)}
    sparse = [p for p in model.parameters() if id(p) in bags]
    dense = [p for p in model.parameters() if id(p) not in bags]
    optimizers = [torch.optim.SparseAdam(sparse, lr=config.learning_rate),
                  torch.optim.Adam(dense, lr=config.learning_rate, weight_decay=config.weight_decay)]
    positives = sum(train_rows.labels)
    pos_weight = torch.tensor((len(train_rows) - positives) / positives, device=device)
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    labels = torch.tensor(train_rows.labels, dtype=torch.float32)
    generator = torch.Generator().manual_seed(config.seed)
    per_epoch = max(1, math.ceil(len(train_rows) / config.batch_size))
    best: dict[str, Any] = {}
    best_score = math.nan
    bad = step = epoch = first = 0
    loss_sum, elapsed_before = 0.0, 0.0
    epoch_generator = generator.get_state()
    if payload:
        state = payload["training"]
        model.load_state_dict(payload["model"])
        for optimizer, saved in zip(optimizers, state["optimizers"], strict=True):
            optimizer.load_state_dict(saved)
        epoch, first, step, bad, best = state["next_epoch"], state["next_batch"], state["step"], state["bad"], state["best"]
        best_score = state["best_score"] if state["best_score"] is not None else math.nan
        loss_sum, elapsed_before, epoch_generator = state["loss_sum"], state["elapsed"], state["generator"]
        torch.set_rng_state(state["rng"])
    stopped = "epochs"
    started = time.monotonic()
    budget = config.max_minutes * 60 - elapsed_before if config.max_minutes else math.inf

    def training_state(next_epoch: int, next_batch: int) -> dict[str, Any]:
        """Everything a resumed run needs to continue at batch `next_batch` of epoch `next_epoch`."""
        return {"epoch": epoch, "step": step, "best": best, "next_epoch": next_epoch, "next_batch": next_batch,
                "optimizers": [o.state_dict() for o in optimizers], "generator": epoch_generator,
                "rng": torch.get_rng_state(), "bad": bad, "loss_sum": loss_sum,
                "best_score": None if math.isnan(best_score) else best_score,
                "elapsed": elapsed_before + time.monotonic() - started}

    from tnforge.progress import progress_bar

    bar = progress_bar(total=config.epochs * per_epoch, initial=min(step, config.epochs * per_epoch),
                       disable=not config.progress, unit="batch", desc=f"train {config.kind} DE")
    model.train()
    position = -1  # the batch being trained; -1: the state is saved (or nothing was trained yet)
    try:
        while epoch < config.epochs:
            generator.set_state(epoch_generator)
            order = torch.randperm(len(train_rows), generator=generator).tolist()
            for position in range(first, per_epoch):  # noqa: B007 - read when interrupted
                chosen = order[position * config.batch_size: (position + 1) * config.batch_size]
                befores = [train_rows.befores[i] for i in chosen]
                outputs = [train_rows.outputs[i] for i in chosen]
                cross = None
                if config.model.cross_buckets:
                    ids, offsets = featurizer.pack_cross(befores, outputs)
                    cross = (ids.to(device), offsets.to(device))
                logits = model(*_pack(featurizer, "input", befores, device),
                               *_pack(featurizer, side, outputs, device), cross)
                loss = criterion(logits, labels[chosen].to(device))
                for optimizer in optimizers:
                    optimizer.zero_grad(set_to_none=True)
                loss.backward()
                for optimizer in optimizers:
                    optimizer.step()
                loss_sum += float(loss.detach()) * len(chosen)
                step += 1
                bar.update(1)
            position = per_epoch
            metrics = evaluate_rows(model, dev_rows, device) if len(dev_rows) else {"auc": float("nan")}
            auc, score = metrics["auc"], selection_score(metrics, config.select)
            # Without dev pairs nothing can be judged: the latest weights are the best, and no early stopping.
            improved = not len(dev_rows) or not best or (not math.isnan(score) and (math.isnan(best_score)
                                                                                  or score > best_score))
            record = {"event": "dev", "epoch": epoch, "step": step, "loss": loss_sum / len(train_rows),
                      "auc": auc, "auc_nontrivial": metrics.get("nontrivial", {}).get("auc"),
                      "accuracy": metrics.get("accuracy"), "false_accept": metrics.get("false_accept"),
                      "best": improved}
            log_metrics(run / METRICS, record)
            bar.set_postfix(loss=f"{record['loss']:.3f}", auc=f"{auc:.4f}")
            if improved:
                best, best_score = {**metrics, "epoch": epoch, "step": step, "selected_by": config.select}, score
                bad = 0
                save_dual_encoder(str(run / BEST), model, config.to_dict(), metrics={"dev": best})
            else:
                bad += 1
            epoch_generator, loss_sum, first = generator.get_state(), 0.0, 0
            save_dual_encoder(str(run / LAST), model, config.to_dict(), training=training_state(epoch + 1, 0),
                              metrics={"dev": best})
            epoch, position = epoch + 1, -1
            if bad >= config.patience:
                stopped = "early stopping"
                break
            if time.monotonic() - started >= budget:
                stopped = "time limit"
                break
    except KeyboardInterrupt:
        bar.close()
        if position >= 0 or not (run / LAST).is_file():  # per_epoch: the dev evaluation is redone on resume
            save_dual_encoder(str(run / LAST), model, config.to_dict(),
                              training=training_state(epoch, max(position, first)), metrics={"dev": best})
        raise TrainingInterrupted(run / LAST, step, resume_command(TRAINER[config.kind], config.data,
                                                                   config.out)) from None
    bar.close()
    return DETrainResult(run, epoch, step, elapsed_before + time.monotonic() - started, best, stopped,
                         len(train_rows), len(dev_rows))
