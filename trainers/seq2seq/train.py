"""Training the seq2seq normalizer from a dataset directory's `examples` Parquet (train split; dev for
early stopping), on CPU or CUDA (mixed precision), with checkpoints, resume, JSONL metrics and plots.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.trainers.checkpoints import BEST, LAST, load_checkpoint
from tnforge.trainers.config_dicts import known_fields
from tnforge.trainers.decoding.decode import decode_batch
from tnforge.trainers.devices import resolve_device, seed_everything
from tnforge.trainers.runs import (
    METRICS,
    TrainingInterrupted,
    TrainResult,
    log_metrics,
    prepare_run_directory,
    resume_command,
)
from tnforge.trainers.seq2seq.data import bucketed_batches, count_rows, example_files, iter_texts
from tnforge.trainers.seq2seq.loading import FORMAT, LoadedModel, save_seq2seq
from tnforge.trainers.seq2seq.model import ModelConfig, Seq2Seq
from tnforge.trainers.seq2seq.vocab import (
    PAD,
    Vocabulary,
    input_vocabulary,
    output_vocabulary,
    vocabulary_from_dict,
)

PLOT = "training.png"
#: Options that a resumed run takes from the new command line instead of the checkpoint.
RESUME_OVERRIDES = ("epochs", "max_minutes", "device", "threads", "progress", "patience")


@dataclass
class TrainConfig:
    """Every training option (the CLI and TOML config files map onto these names)."""

    data: str = ""
    out: str = ""
    device: str = "auto"
    epochs: int = 40
    batch_size: int = 64
    learning_rate: float = 2e-3
    clip: float = 1.0
    lr_decay: float = 0.5  # factor applied when dev loss stops improving
    patience: int = 6  # evaluations without dev improvement before stopping
    eval_every: int = 0  # steps between dev evaluations; 0 = once per epoch
    max_minutes: float = 12.0  # wall-clock budget (a laptop-sized default: see docs/training.md); 0 = none
    seed: int = 13
    input_units: str = "char"
    output_units: str = "word"
    sp_size: int = 1000
    min_count: int = 1
    label_smoothing: float = 0.0
    amp: bool = True
    threads: int = 0
    dev_limit: int = 0  # dev rows used for evaluation during training; 0 = all
    pool_size: int = 8192
    max_copies: int = 0  # skip up-sampling copies with copy index ≥ this; 0 = use every row
    max_input_length: int = 256
    max_output_length: int = 0  # 0 = longest train reading + 8
    progress: bool = True
    model: ModelConfig = field(default_factory=ModelConfig)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["model"] = self.model.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        values = known_fields(cls, data, skip=("model",))
        return cls(**values, model=ModelConfig.from_dict(data.get("model", {})))


def build_vocabularies(config: TrainConfig, train_files: list[Path]) -> tuple[Vocabulary, Vocabulary, int]:
    """Input and output vocabularies from the train split (streamed), and the longest reading in units."""
    def texts(column: str) -> Iterator[str]:
        return iter_texts(train_files, column, max_copies=config.max_copies)

    input_vocab = input_vocabulary(config.input_units, texts("input"), config.sp_size)
    output_vocab = output_vocabulary(config.output_units, texts("after"), config.sp_size, min_count=config.min_count)
    longest = max((len(output_vocab.encode(t)) for t in texts("after")), default=1)
    return input_vocab, output_vocab, longest


@torch.no_grad()
def evaluate_dev(model: Seq2Seq, files: list[Path], input_vocab: Vocabulary, output_vocab: Vocabulary,
                 config: TrainConfig, device: torch.device) -> dict[str, float]:
    """Dev loss (teacher forced) and greedy exact-match accuracy, overall and on non-trivial rows."""
    model.eval()
    loaded = LoadedModel(model, input_vocab, output_vocab, config.to_dict(), Path(config.out), device)
    loss_sum = tokens = seen = correct = nontrivial = nontrivial_correct = 0
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, reduction="sum")
    for batch in bucketed_batches(files, input_vocab, output_vocab, 256, columns=("input", "after"),
                                  max_input=config.max_input_length):
        if config.dev_limit and seen >= config.dev_limit:
            break
        moved = batch.to(device)
        logits = model(moved.source, moved.source_lengths, moved.target_in)
        loss_sum += float(criterion(logits.float().flatten(0, 1), moved.target_out.flatten()))
        tokens += int((moved.target_out != PAD).sum())
        for gold, ranked in zip(batch.rows["after"], decode_batch(loaded, batch, beam=1, top_k=1)[0], strict=True):
            hit = bool(ranked) and ranked[0][0] == gold
            correct += hit
            if gold not in TRIVIAL_TARGETS:
                nontrivial += 1
                nontrivial_correct += hit
        seen += len(batch)
    model.train()
    return {
        "dev_loss": loss_sum / max(tokens, 1),
        "dev_accuracy": correct / max(seen, 1),
        "dev_nontrivial_accuracy": nontrivial_correct / max(nontrivial, 1),
        "dev_examples": seen,
    }


def _is_better(metrics: dict[str, float], best: dict[str, Any]) -> bool:
    if not best:
        return True
    return (metrics["dev_accuracy"], -metrics["dev_loss"]) > (best["dev_accuracy"], -best["dev_loss"])


def train(config: TrainConfig, resume: bool = False, overwrite: bool = False) -> TrainResult:
    """Train (or resume) a model into `config.out`; returns where it stopped and the best dev figures.

    Refuses, before writing anything, a non-empty `config.out` without `resume` or `overwrite`, a corpus file
    as data and an empty train split. Ctrl-C saves a resumable checkpoint and raises `TrainingInterrupted`."""
    device = resolve_device(config.device)
    train_files = example_files(config.data, "train")
    dev_files = example_files(config.data, "dev")
    if not count_rows(train_files, max_copies=config.max_copies):
        raise ValueError(f"{config.data}: the train split has no examples: nothing to train on")
    has_dev = bool(count_rows(dev_files, max_copies=1))  # none: no early stopping, LR schedule or best choice
    run = prepare_run_directory(config.out, resume, overwrite)
    run.mkdir(parents=True, exist_ok=True)
    if config.threads:
        torch.set_num_threads(config.threads)

    state: dict[str, Any] = {}
    if resume:
        payload = load_checkpoint(run / LAST, FORMAT, "cpu")
        saved = TrainConfig.from_dict(payload["config"])
        for name in RESUME_OVERRIDES:
            setattr(saved, name, getattr(config, name))
        saved.data, saved.out = config.data, config.out
        config = saved
        input_vocab = vocabulary_from_dict(payload["input_vocab"])
        output_vocab = vocabulary_from_dict(payload["output_vocab"])
        state = payload["training"]
    else:
        seed_everything(config.seed)
        input_vocab, output_vocab, longest = build_vocabularies(config, train_files)
        if not config.max_output_length:
            config.max_output_length = longest + 8
        (run / METRICS).unlink(missing_ok=True)

    model = Seq2Seq(config.model, len(input_vocab), len(output_vocab)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=config.lr_decay,
                                                           patience=1)
    use_amp = config.amp and device.type == "cuda"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=config.label_smoothing)
    epoch = step = batch_in_epoch = bad_evals = 0
    elapsed_before = 0.0
    best: dict[str, Any] = {}
    if state:
        model.load_state_dict(payload["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        if state["scaler"]:  # empty when the run so far was on the CPU: a CUDA resume starts a fresh scaler
            scaler.load_state_dict(state["scaler"])
        epoch, step, batch_in_epoch = state["epoch"], state["step"], state["batch_in_epoch"]
        bad_evals, best, elapsed_before = state["bad_evals"], state["best"], state["elapsed"]
        torch.set_rng_state(state["rng"])

    def snapshot() -> dict[str, Any]:
        return {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "scaler": scaler.state_dict(), "epoch": epoch, "step": step, "batch_in_epoch": batch_in_epoch,
                "bad_evals": bad_evals, "best": best, "elapsed": elapsed_before + time.monotonic() - started,
                "rng": torch.get_rng_state()}

    def evaluate_and_save() -> bool:
        """Dev evaluation, LR schedule, checkpoints; True when early stopping says stop."""
        nonlocal best, bad_evals
        if has_dev:
            metrics = evaluate_dev(model, dev_files, input_vocab, output_vocab, config, device)
            scheduler.step(metrics["dev_loss"])
            improved = _is_better(metrics, best)
        else:  # nothing to judge by: the latest weights are the best, and training runs to its end
            metrics, improved = {"dev_examples": 0}, True
        if improved:
            best = {**metrics, "step": step, "epoch": epoch}
            bad_evals = 0
        else:
            bad_evals += 1
        log_metrics(run / METRICS, {"event": "dev", "step": step, "epoch": epoch, **metrics,
                             "lr": optimizer.param_groups[0]["lr"], "best": improved})
        snap = snapshot()
        save_seq2seq(run / LAST, model, input_vocab, output_vocab, config.to_dict(), snap)
        if improved:
            save_seq2seq(run / BEST, model, input_vocab, output_vocab, config.to_dict(), {"best": best})
        return bad_evals >= config.patience

    from tnforge.progress import progress_bar

    rows = count_rows(train_files, max_copies=config.max_copies)
    per_epoch = max(1, math.ceil(rows / config.batch_size))
    started = time.monotonic()
    budget = config.max_minutes * 60 - elapsed_before if config.max_minutes else math.inf
    stopped = "epochs"
    model.train()
    bar = progress_bar(total=config.epochs * per_epoch, initial=step, disable=not config.progress, unit="batch",
                       desc="train")
    window_loss, window_examples, window_start = 0.0, 0, time.monotonic()
    done = False
    try:
        while epoch < config.epochs and not done:
            batches = bucketed_batches(train_files, input_vocab, output_vocab, config.batch_size, shuffle=True,
                                       seed=config.seed * 1_000_003 + epoch, pool_size=config.pool_size,
                                       max_input=config.max_input_length, max_copies=config.max_copies)
            evaluated_at = -1
            for index, batch in enumerate(batches):
                if index < batch_in_epoch:
                    continue  # resuming inside an epoch: the order is the same, skip what was seen
                moved = batch.to(device)
                with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
                    logits = model(moved.source, moved.source_lengths, moved.target_in)
                    loss = criterion(logits.float().flatten(0, 1), moved.target_out.flatten())
                optimizer.zero_grad(set_to_none=True)
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), config.clip)
                scaler.step(optimizer)
                scaler.update()
                step += 1
                batch_in_epoch = index + 1
                window_loss += float(loss.detach()) * len(batch)
                window_examples += len(batch)
                bar.update(1)
                if step % 20 == 0:
                    speed = window_examples / max(time.monotonic() - window_start, 1e-9)
                    record = {"event": "train", "step": step, "epoch": epoch, "loss": window_loss / window_examples,
                              "examples_per_s": speed, "lr": optimizer.param_groups[0]["lr"]}
                    log_metrics(run / METRICS, record)
                    bar.set_postfix(loss=f"{record['loss']:.3f}", ex_s=f"{speed:.0f}")
                    window_loss, window_examples, window_start = 0.0, 0, time.monotonic()
                out_of_time = time.monotonic() - started >= budget
                if (config.eval_every and step % config.eval_every == 0) or out_of_time:
                    evaluated_at = step
                    if evaluate_and_save():
                        stopped, done = "early stopping", True
                    if out_of_time:
                        stopped, done = "time limit", True
                    if done:
                        break
            if done:
                break
            epoch += 1
            batch_in_epoch = 0
            if evaluated_at != step and evaluate_and_save():
                stopped, done = "early stopping", True
    except KeyboardInterrupt:
        bar.close()
        save_seq2seq(run / LAST, model, input_vocab, output_vocab, config.to_dict(), snapshot())
        raise TrainingInterrupted(run / LAST, step, resume_command("seq2seq", config.data, config.out)) from None
    bar.close()
    if not (run / LAST).exists():
        evaluate_and_save()
    from tnforge.trainers.plots import plot_training

    plot_training(run / METRICS, run / PLOT)
    seconds = elapsed_before + time.monotonic() - started
    return TrainResult(run, epoch, step, seconds, best, stopped)


def describe(result: TrainResult) -> tuple[str, str]:
    """A run's outcome as `tnforge train seq2seq` prints it: how it stopped (a note for stderr), then the best
    dev figures and the run's files."""
    best, run = result.best, result.run
    lines = [f"best dev (step {best['step']}): accuracy {100 * best['dev_accuracy']:.2f}%, "
             f"non-trivial {100 * best['dev_nontrivial_accuracy']:.2f}%, loss {best['dev_loss']:.4f}"
             if "dev_accuracy" in best else
             f"no dev examples: best.pt is the last weights (step {best['step']}); no early stopping or "
             "learning-rate schedule (build with a dev split to have them)"] if best else []
    lines.append(f"model: {run / BEST}  metrics: {run / METRICS}  plot: {run / PLOT}")
    note = (f"stopped after {result.steps} steps / {result.epochs} epochs in {result.seconds / 60:.1f} min "
            f"({result.stopped})")
    return note, "\n".join(lines)
