"""The one training loop of every model family.

A family supplies a `TrainingTask`: its model, optimizers, train batches for a list of data units, a loss
step, a dev evaluation and how to compare evaluations, and its checkpoint writer. The engine owns the rest:
device and mixed precision (bfloat16 where the GPU has it, else float16 with a gradient scaler, none on the
CPU), gradient clipping, the learning-rate schedule (decay on a dev plateau), the evaluation cadence, early
stopping, `best.pt` and `checkpoint.pt`, the time budget, Ctrl-C (a resumable checkpoint at the next step
boundary), `metrics.jsonl` (reproducible records only) and `timing.jsonl` (wall-clock), the plot, and the
progress bar with one line per dev evaluation.

Under `torchrun` every rank runs this loop on its own part of the data (`trainers.training.sharding`) with the model
wrapped in DistributedDataParallel; `--batch-size` is the global batch. Rank 0 alone evaluates, writes and
prints. A resumed run continues bit for bit on the same world size and device (every RNG, the data
position, optimizer, schedule and scaler states are in the checkpoint); see docs/guides/train-at-scale.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge.trainers.training.budget import budget_advice, steps_within
from tnforge.trainers.training.checkpoints import BEST, LAST, load_checkpoint
from tnforge.trainers.training.devices import autocast_dtype, peak_memory_mb, rng_state, set_rng_state
from tnforge.trainers.training.distributed import ProcessGroup, from_environment, shut_down
from tnforge.trainers.training.engine_config import resumed
from tnforge.trainers.training.prefetch import prefetched
from tnforge.trainers.training.run_record import finish_run_record, write_run_record
from tnforge.trainers.training.runs import (
    METRICS,
    TIMING,
    TrainingInterrupted,
    TrainResult,
    file_size,
    log_metrics,
    prepare_run_directory,
    resume_command,
    truncate,
)
from tnforge.trainers.training.sharding import epoch_plan, stream_seed
from tnforge.trainers.training.stop_requests import StopRequest
from tnforge.trainers.training.training_state import Saved, TrainingState, capture, zero_window
from tnforge.trainers.training.training_state import check_version as check_state_version
from tnforge.trainers.training.training_state import restore as restore_state

#: Steps between the train records of metrics.jsonl.
LOG_EVERY = 20


class TrainingTask(ABC):
    """What a model family gives the engine. `config` has the engine's fields (`EngineConfig`)."""

    #: `tnforge train COMMAND` (for the resume line) and the checkpoint format.
    command: str = ""
    format: str = ""
    #: False: the family trains on one process only (torchrun with several is refused).
    distributed: bool = True

    def __init__(self, config: Any) -> None:
        self.config = config

    def restore_config(self, payload: dict[str, Any], explicit: Collection[str] | None = None) -> list[str]:
        """Take the saved run's config (resuming): every option it recorded, but the new data and out and the
        runtime options named in `explicit` (`engine_config.resumed`); returns the lines saying what changed."""
        saved = type(self.config).from_dict(payload["config"])
        lines = resumed(saved, self.config, explicit)
        self.config = saved
        return lines

    @abstractmethod
    def setup(self, group: ProcessGroup, payload: dict[str, Any] | None) -> None:
        """Read what the model is made from (vocabularies …): from `payload` when resuming."""

    @abstractmethod
    def build_model(self) -> nn.Module:
        """A fresh model (weights from the global torch RNG)."""

    def optimizers(self, model: nn.Module) -> list[torch.optim.Optimizer]:
        """The optimizers (default: one Adam at the configured learning rate)."""
        return [torch.optim.Adam(model.parameters(), lr=self.config.learning_rate)]

    @abstractmethod
    def unit_rows(self) -> list[int]:
        """The train data as units (`trainers.training.sharding`): the rows of each."""

    def unit_groups(self) -> list[int]:
        """The row group of each unit (a group's units are consecutive; default: a group each)."""
        return list(range(len(self.unit_rows())))

    @abstractmethod
    def batches(self, units: list[int], seed: list[int], batch_size: int) -> Iterator[tuple[Any, int]]:
        """Batches of `batch_size` examples from `units` (in that order), shuffled by `seed`; each with the
        number of those units finished once it is trained."""

    @abstractmethod
    def loss(self, model: nn.Module, batch: Any, device: torch.device) -> tuple[torch.Tensor, int, int]:
        """(summed loss, loss units — tokens or examples — it sums over, examples) of one batch."""

    @abstractmethod
    def evaluate(self, model: nn.Module, device: torch.device) -> dict[str, Any] | None:
        """Dev metrics of the (unwrapped, eval-mode) model; None when there is no dev data."""

    @abstractmethod
    def improves(self, metrics: dict[str, Any], best: dict[str, Any]) -> bool:
        """Whether `metrics` beat the best so far (`best` is empty before the first evaluation)."""

    def loss_units(self, batch: Any) -> float:
        """The loss units of a batch, known before its loss (ranks agree on the global count first)."""
        return float(len(batch))

    def plateau_value(self, metrics: dict[str, Any]) -> float | None:
        """The dev figure whose plateau decays the learning rate (lower is better); None: no schedule."""
        return None

    def untrained(self, best: dict[str, Any]) -> str | None:
        """Why the best dev figures show a model that has learnt nothing yet ("non-trivial accuracy 0.00%"), or None."""
        return None

    @abstractmethod
    def dev_line(self, metrics: dict[str, Any]) -> str:
        """The dev figures as the progress line prints them."""

    def dev_record(self, metrics: dict[str, Any]) -> dict[str, Any]:
        """The dev figures as metrics.jsonl records them."""
        return metrics

    @abstractmethod
    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        """Write a checkpoint (atomically) with the family's extras."""


@dataclass
class _Window:
    """Train loss summed since the last train record (float64 on the device: no sync per step)."""

    loss: torch.Tensor
    units: float = 0.0
    examples: float = 0.0


class _Stop(Exception):
    """Every rank saw a stop request at the same step boundary: save and stop."""


class Engine:
    """One training run of a task (construct, then `fit`). The run's position is one `TrainingState`
    (`self.state`), saved and restored through `trainers.training.training_state`."""

    def __init__(self, task: TrainingTask, resume: bool = False, overwrite: bool = False,
                 explicit: Collection[str] | None = None) -> None:
        self.task, self.resume, self._stepped = task, resume, False
        config = task.config
        self.group = from_environment(config.device)
        group = self.group
        if group.distributed and not task.distributed:
            raise ValueError(f"tnforge train {task.command} trains on one process: run it without torchrun "
                             f"(started with {group.world})")
        self.device = group.device(config.device)
        self.run = group.agree(lambda: prepare_run_directory(config.out, resume, overwrite))
        self.payload = group.agree(lambda: load_checkpoint(self.run / LAST, task.format, "cpu")) if resume else None
        if self.payload is not None:
            state = self.payload.get("training") or {}
            check_state_version(state, self.run / LAST)
            changes = task.restore_config(self.payload, explicit)
            if group.main:
                spent = state.get("elapsed", 0.0) / 60
                budget = f" of its {task.config.max_minutes:g}-minute budget" if task.config.max_minutes else ""
                print("\n".join([f"resuming {self.run} at step {state.get('step', 0)} ({spent:.1f} minutes{budget} "
                                 "spent) with the options it was started with", *changes]), file=sys.stderr)
        config = task.config
        if config.batch_size % group.world:
            raise ValueError(f"--batch-size {config.batch_size} is the global batch: it must divide among the "
                             f"{group.world} ranks")
        if config.threads:
            torch.set_num_threads(config.threads)
        if self.payload is None:
            torch.manual_seed(config.seed)
            if torch.cuda.is_available():
                torch.cuda.manual_seed_all(config.seed)
        task.setup(group, self.payload)
        if group.main:
            self.run.mkdir(parents=True, exist_ok=True)
            write_run_record(self.run, task, group.world, resumed=self.payload is not None)

    # -- the run ---------------------------------------------------------------------------------------------
    def fit(self) -> TrainResult:
        """Train to the end (epochs, early stopping or the time budget); Ctrl-C raises TrainingInterrupted
        after saving a resumable checkpoint."""
        try:
            with StopRequest().installed() as stop:
                return self._fit(stop)
        finally:
            shut_down()

    def _fit(self, stop: StopRequest) -> TrainResult:
        config = self.task.config
        self._build()
        self._restore()
        self.started = time.monotonic()
        self.budget = config.max_minutes * 60 - self.state.elapsed if config.max_minutes else math.inf
        self.per_epoch = max(1, math.ceil(sum(self.unit_rows) / config.batch_size))
        self.bar, self.first_step = self._bar(config.epochs * self.per_epoch, self.state.step), self.state.step
        self.timing_start = time.monotonic()
        try:
            stopped = self._epochs(stop)
        except _Stop:
            self.bar.close()
            self._save_last()
            raise TrainingInterrupted(self.run / LAST, self.state.step, resume_command(
                self.task.command, config.data, config.out)) from None
        except KeyboardInterrupt:  # a second Ctrl-C: stop now, keep the last checkpoint as it is
            self.bar.close()
            raise
        return self._finish(stopped)

    def _build(self) -> None:
        """The model (wrapped in DDP under torchrun), its optimizers, schedules and precision."""
        task, config, group, device = self.task, self.task.config, self.group, self.device
        self.model = task.build_model().to(device)
        if group.distributed:
            torch.manual_seed(config.seed * 1_000_003 + group.rank)  # dropout differs between ranks
        self.wrapped: nn.Module = self.model
        if group.distributed:
            self.wrapped = nn.parallel.DistributedDataParallel(
                self.model, device_ids=[device.index] if device.type == "cuda" else None)
        self.optimizers = task.optimizers(self.model)
        self.schedulers = ([torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=config.lr_decay,
                                                                       patience=1)
                            for o in self.optimizers] if 0 < config.lr_decay < 1 else [])
        self.amp = autocast_dtype(device, config.amp)
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.amp == torch.float16)
        self.unit_rows = task.unit_rows()
        self.local_batch = config.batch_size // group.world
        self.has_dev: bool | None = None  # known after the first evaluation
        self.state = TrainingState()
        self.window = _Window(zero_window(device))

    def _restore(self) -> None:
        """A resumed run's weights and state from its checkpoint (the rest of an epoch re-dealt when the world
        size changed); a fresh run clears the logs."""
        config, group, run = self.task.config, self.group, self.run
        if self.payload is None:
            if group.main:
                for name in (METRICS, TIMING):
                    (run / name).unlink(missing_ok=True)
            return
        self.model.load_state_dict(self.payload["model"])
        state, saved = restore_state(self.payload["training"])
        for optimizer, kept in zip(self.optimizers, saved.optimizers, strict=True):
            optimizer.load_state_dict(kept)
        for scheduler, kept in zip(self.schedulers, saved.schedulers, strict=False):
            scheduler.load_state_dict(kept)
        if saved.scaler and self.amp is not None:  # float16 with a scaler (perhaps after bfloat16 failed)
            self.amp, self.scaler = torch.float16, torch.amp.GradScaler("cuda")
            self.scaler.load_state_dict(saved.scaler)
        self.window.loss.fill_(state.window[0])
        self.window.units, self.window.examples = state.window[1], state.window[2]
        if saved.world == group.world:
            set_rng_state(saved.rng[group.rank], self.device)
        else:
            torch.manual_seed(config.seed * 1_000_003 + state.step * 7919 + group.rank)
            if state.plan is not None and state.steps_in_plan:
                state.plan = state.plan.remaining(saved.units_done, group.world)
                if group.main:
                    print(f"resuming on {group.world} rank(s) a run saved on {saved.world}: the rest of epoch "
                          f"{state.epoch} ({len(state.plan.order)} of {len(self.unit_rows)} data units) is dealt "
                          "anew", file=sys.stderr)
                state.steps_in_plan, state.generation = 0, state.generation + 1
        state.units_done = 0
        self.state = state
        if group.main:
            truncate(run / METRICS, saved.metrics_bytes)
            truncate(run / TIMING, saved.timing_bytes)

    def _elapsed(self) -> float:
        return self.state.elapsed + time.monotonic() - self.started

    def _save_last(self) -> None:
        """checkpoint.pt at the current step (every rank takes part: RNG states are gathered)."""
        group, state = self.group, self.state
        saved = Saved(world=group.world, global_batch=self.task.config.batch_size,
                      rng=group.gather(rng_state(self.device)), units_done=group.gather(state.units_done),
                      optimizers=[o.state_dict() for o in self.optimizers],
                      schedulers=[s.state_dict() for s in self.schedulers],
                      scaler=self.scaler.state_dict() if self.scaler.is_enabled() else {},
                      metrics_bytes=file_size(self.run / METRICS), timing_bytes=file_size(self.run / TIMING))
        window = (float(self.window.loss), self.window.units, self.window.examples)
        training = capture(dataclasses.replace(state, elapsed=self._elapsed(), window=window), saved)
        if group.main:
            self.task.save(self.run / LAST, self.model, training, {"dev": state.best})

    def _evaluate(self, at_epoch: int) -> bool:
        """Dev evaluation, LR schedule, checkpoints, the dev line; True when early stopping says stop."""
        task, config, group, model, state = self.task, self.task.config, self.group, self.model, self.state
        metrics = None
        if group.main:
            model.eval()
            with torch.no_grad():
                metrics = task.evaluate(model, self.device)
            model.train()
        metrics = group.broadcast(metrics)
        self.has_dev = metrics is not None
        if metrics is None:  # nothing to judge by: the latest weights are the best; no early stopping
            improved, record = True, {"dev_examples": 0}
            metrics = {}
        else:
            improved = task.improves(metrics, state.best)
            value = task.plateau_value(metrics)
            if value is not None:
                for scheduler in self.schedulers:
                    scheduler.step(value)
            record = task.dev_record(metrics)
        if improved:
            state.best = {**metrics, "step": state.step, "epoch": at_epoch}
            state.bad_evals = 0
        else:
            state.bad_evals += 1
        state.evaluated_at = state.step
        if group.main:
            log_metrics(self.run / METRICS, {"event": "dev", "step": state.step, "epoch": at_epoch, **record,
                                             "lr": self.optimizers[0].param_groups[0]["lr"], "best": improved})
            if config.progress and metrics:
                self.bar.write(f"dev step {state.step} (epoch {at_epoch}): {task.dev_line(metrics)}"
                               f"{' (best)' if improved else ''}", file=sys.stderr)
        self._save_last()
        if improved and group.main:
            task.save(self.run / BEST, model, None, {"dev": state.best})
        return self.has_dev and state.bad_evals >= config.patience

    def _log_window(self) -> None:
        """The train record (metrics.jsonl) and the timing record of the loss window; a new window."""
        group, window, state = self.group, self.window, self.state
        loss, units, examples = group.sum_counts([float(window.loss), window.units, window.examples], self.device)
        if group.main and units:
            log_metrics(self.run / METRICS, {"event": "train", "step": state.step, "epoch": state.epoch,
                                             "loss": loss / units, "examples": int(examples),
                                             "lr": self.optimizers[0].param_groups[0]["lr"]})
            seconds = max(time.monotonic() - self.timing_start, 1e-9)
            speed = examples / seconds
            log_metrics(self.run / TIMING, {"step": state.step, "seconds": self._elapsed(),
                                            "examples_per_s": speed, "units_per_s": units / seconds,
                                            "peak_memory_mb": peak_memory_mb(self.device)})
            self.bar.set_postfix(loss=f"{loss / units:.3f}", ex_s=f"{speed:.0f}")
        self.window = _Window(zero_window(self.device))
        self.timing_start = time.monotonic()

    def _epochs(self, stop: StopRequest) -> str:
        """Train epoch after epoch; returns why training stopped ("epochs", "early stopping", "time limit")."""
        config, state = self.task.config, self.state
        self.model.train()
        while state.epoch < config.epochs:
            stopped = self._epoch(stop)
            if stopped is not None:
                return stopped
            state.epoch += 1
            state.plan, state.steps_in_plan, state.units_done, state.generation = None, 0, 0, 0
            if state.evaluated_at != state.step and self._evaluate(state.epoch - 1):
                return "early stopping"
        return "epochs"

    def _epoch(self, stop: StopRequest) -> str | None:
        """The rest of the current epoch on this rank's units; None when it ran to its end, else why it stopped."""
        task, config, group, state = self.task, self.task.config, self.group, self.state
        if state.plan is None:
            state.plan = epoch_plan(task.unit_groups(), config.seed, state.epoch, group.world)
        stream = task.batches(state.plan.units_of(group.rank),
                              stream_seed(config.seed, state.epoch, group.rank, group.world, state.generation),
                              self.local_batch)
        state.units_done = 0
        for _ in range(state.steps_in_plan):  # resuming inside an epoch: the same order, skip what was trained
            item = next(stream, None)
            if item is not None:
                state.units_done = item[1]
        spare: Any = None  # a batch to run with weight 0 on a rank whose data ran out before the others'
        with prefetched(stream) as items:
            while True:
                item = next(items, None)
                out_of_time = time.monotonic() - self.started >= self.budget
                units = 0.0 if item is None or not group.distributed else task.loss_units(item[0])
                counts = group.sum_counts([item is not None, stop.requested, out_of_time, units], self.device)
                if counts[1]:
                    raise _Stop
                if not counts[0]:
                    return None
                if counts[2]:
                    if state.evaluated_at != state.step:
                        self._evaluate(state.epoch)
                    return "time limit"
                if item is not None:
                    batch, weight = item[0], 1.0
                    spare = batch
                else:
                    if spare is None:  # this rank's part of a re-dealt epoch is empty
                        spare = next(task.batches([0], [config.seed], self.local_batch))[0]
                    batch, weight = spare, 0.0
                self._step(self.wrapped, self.model, batch, weight, counts[3] if group.distributed else None,
                           self.optimizers, self.window)
                state.step += 1
                state.steps_in_plan += 1
                if item is not None:
                    state.units_done = item[1]
                self.bar.total = steps_within(config.epochs * self.per_epoch, self.first_step,
                                              state.step - self.first_step, time.monotonic() - self.started,
                                              self.budget)  # the budget binds: its end
                self.bar.update(1)
                if state.step % LOG_EVERY == 0:
                    self._log_window()
                if config.eval_every and state.step % config.eval_every == 0 and self._evaluate(state.epoch):
                    return "early stopping"

    def _finish(self, stopped: str) -> TrainResult:
        """The last evaluation, the plot, run.json's outcome and the budget advice."""
        task, config, group, state = self.task, self.task.config, self.group, self.state
        if stopped == "time limit":
            self.bar.total = state.step
        self.bar.close()
        if state.evaluated_at != state.step:
            self._evaluate(max(state.epoch - 1, 0) if stopped == "epochs" else state.epoch)
        advice = ""
        result = TrainResult(self.run, state.epoch, state.step, self._elapsed(), state.best, stopped)
        if group.main:
            from tnforge.trainers.training.plots import plot_training

            plot_training(self.run / METRICS, self.run / "training.png")
            finish_run_record(self.run, result)
            if stopped == "time limit":
                advice = budget_advice(config.max_minutes, state.epoch,
                                       self.has_dev is True and state.bad_evals == 0, task.untrained(state.best),
                                       resume_command(task.command, config.data, config.out),
                                       self.device.type == "cpu" and config.threads != 1)
        result.advice = advice
        return result

    # -- pieces ------------------------------------------------------------------------------------------------
    def _step(self, wrapped: nn.Module, model: nn.Module, batch: Any, weight: float, global_units: float | None,
              optimizers: list[torch.optim.Optimizer], window: _Window) -> None:
        """One optimizer step on the global batch: this rank's summed loss over the global loss units (times the
        world size, which DDP's gradient averaging divides out). Where a kernel of the model has no bfloat16
        version, the first step says so and the run goes on in float16 with a gradient scaler."""
        config, device = self.task.config, self.device
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        try:
            with torch.autocast(device_type=device.type, dtype=self.amp) if self.amp else contextlib.nullcontext():
                loss_sum, units, examples = self.task.loss(wrapped, batch, device)
            total = units if global_units is None else global_units
            loss = loss_sum.float() * (weight * self.group.world / max(total, 1.0))
            self.scaler.scale(loss).backward()
        except RuntimeError as error:
            if self.amp != torch.bfloat16 or self._stepped:
                raise
            if self.group.main:
                print(f"bfloat16 is not usable here ({str(error).splitlines()[0]}): training in float16 with a "
                      "gradient scaler", file=sys.stderr)
            self.amp, self.scaler = torch.float16, torch.amp.GradScaler("cuda")
            return self._step(wrapped, model, batch, weight, global_units, optimizers, window)
        self._stepped = True
        if config.clip:
            for optimizer in optimizers:
                self.scaler.unscale_(optimizer)
            dense = [p for p in model.parameters() if p.grad is not None and not p.grad.is_sparse]
            nn.utils.clip_grad_norm_(dense, config.clip)
        for optimizer in optimizers:
            self.scaler.step(optimizer)
        self.scaler.update()
        if weight:
            window.loss += loss_sum.detach().double()
            window.units += units
            window.examples += examples

    def _bar(self, total: int, initial: int) -> Any:
        from tnforge.progress import progress_bar

        return progress_bar(total=total, initial=min(initial, total), unit="batch", desc=f"train {self.task.command}",
                            disable=not (self.task.config.progress and self.group.main))


def fit(task: TrainingTask, resume: bool = False, overwrite: bool = False,
        explicit: Collection[str] | None = None) -> TrainResult:
    """Train `task` into its config's `out` (see `Engine`); resuming, the options the run recorded apply but
    the runtime options named in `explicit` (None: all of the config's; `engine_config.resumed`)."""
    return Engine(task, resume, overwrite, explicit).fit()
