"""The window families' training (seq2seq, DNC, plug-ins): examples Parquet (train split; dev for early
stopping) on the training engine (`trainers.training.engine`): the shared config, vocabularies, batches, loss step and
dev evaluation. A family subclasses `WindowTask` with its network."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.trainers.decoding.decode import decode_batch
from tnforge.trainers.kernel.examples import (
    Batch,
    bucketed_batches,
    count_rows,
    example_files,
    iter_texts,
    pool_batches,
)
from tnforge.trainers.kernel.teacher_forced import TeacherForcedTask
from tnforge.trainers.kernel.vocab import (
    PAD,
    Vocabulary,
    input_vocabulary,
    output_vocabulary,
    vocabulary_from_dict,
)
from tnforge.trainers.kernel.window import LoadedWindowModel, save_window
from tnforge.trainers.training.checkpoints import BEST
from tnforge.trainers.training.distributed import ProcessGroup
from tnforge.trainers.training.engine_config import EngineConfig, option
from tnforge.trainers.training.runs import METRICS, TrainResult
from tnforge.trainers.training.sharding import parquet_units, pooled, read_unit

PLOT = "training.png"
#: `--batch-size 0`: each rank's batch on the CPU; on a GPU, the most (a kernel-launch-bound LSTM needs wide
#: batches) unless the data is small: at least STEPS_PER_EPOCH steps an epoch.
CPU_BATCH, GPU_BATCH, STEPS_PER_EPOCH = 64, 2048, 200


@dataclass
class WindowTrainConfig(EngineConfig):
    """The training options every window family shares (a family adds its network as `model`, and its own)."""

    batch_size: int = option(0, "Examples per optimizer step over all ranks (the global batch); 0: "
                                f"{CPU_BATCH} on the CPU; on a GPU up to {GPU_BATCH} per GPU, smaller where "
                                f"that would leave fewer than {STEPS_PER_EPOCH} steps an epoch.", min=0)
    input_units: str = option("char", "Input units.", choices=("char", "sentencepiece"))
    output_units: str = option("word", "Output units.", choices=("word", "sentencepiece"))
    sp_size: int = option(1000, "SentencePiece inventory size (upper bound).", min=8)
    min_count: int = option(1, "Output words seen fewer times become <unk>.", min=1)
    label_smoothing: float = option(0.0, "Label smoothing.", min=0, max=1, max_open=True)
    dev_limit: int = option(0, "Dev rows per evaluation (0: all).", min=0)
    pool_size: int = option(8192, "Rows shuffled and length-bucketed together.", min=1)
    max_copies: int = option(0, "Use only up-sampling copies with index below this (0: all rows).", min=0)
    max_input_length: int = option(256, "Input units kept of each window.", min=1)
    max_output_length: int = option(0, "Longest reading decoded, in output units (0: longest train reading + 8).",
                                    min=0)


def build_vocabularies(config: WindowTrainConfig, train_files: list[Path]) -> tuple[Vocabulary, Vocabulary, int]:
    """Input and output vocabularies from the train split (streamed), and the longest reading in units."""
    def texts(column: str) -> Iterator[str]:
        return iter_texts(train_files, column, max_copies=config.max_copies)

    input_vocab = input_vocabulary(config.input_units, texts("input"), config.sp_size)
    output_vocab = output_vocabulary(config.output_units, texts("after"), config.sp_size, min_count=config.min_count)
    longest = max((len(output_vocab.encode(t)) for t in texts("after")), default=1)
    return input_vocab, output_vocab, longest


@torch.no_grad()
def evaluate_dev(model: nn.Module, files: list[Path], input_vocab: Vocabulary, output_vocab: Vocabulary,
                 config: WindowTrainConfig, device: torch.device) -> dict[str, float]:
    """Dev loss (teacher forced) and greedy exact-match accuracy, overall and on non-trivial rows."""
    was_training = model.training
    model.eval()
    loaded = LoadedWindowModel(model, input_vocab, output_vocab, config.to_dict(), Path(config.out), device)
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
    model.train(was_training)
    return {
        "dev_loss": loss_sum / max(tokens, 1),
        "dev_accuracy": correct / max(seen, 1),
        "dev_nontrivial_accuracy": nontrivial_correct / max(nontrivial, 1),
        "dev_examples": seen,
    }


class WindowTask(TeacherForcedTask):
    """A window family on the engine: the window's input units in, the reading's output units out; the family
    gives its network (`build_model`), its size for the device (`size_network`), `command` and `format`."""

    #: The examples' columns each train batch carries (in `Batch.rows`).
    columns: tuple[str, ...] = ("input", "after")

    def setup(self, group: ProcessGroup, payload: dict[str, Any] | None) -> None:
        config = self.config
        self.train_files = self.split_files("train")
        self.dev_files = self.split_files("dev")
        self.units = parquet_units(self.train_files, config.max_copies)
        if not self.units:
            raise ValueError(f"{config.data}: the train split has no examples: nothing to train on")
        self.has_dev = bool(count_rows(self.dev_files, max_copies=1))
        if payload is None:
            def made() -> tuple[dict, dict, int]:
                inputs, outputs, longest = build_vocabularies(config, self.train_files)
                return inputs.to_dict(), outputs.to_dict(), longest

            inputs, outputs, longest = group.agree(made)
            config.max_output_length = config.max_output_length or longest + 8
            self._size_for(group)
        else:
            inputs, outputs = payload["input_vocab"], payload["output_vocab"]
        self.input_vocab, self.output_vocab = vocabulary_from_dict(inputs), vocabulary_from_dict(outputs)

    def split_files(self, split: str) -> list[Path]:
        """The examples files of a split (default: `--data`'s `examples/<split>`)."""
        return example_files(self.config.data, split)

    def _size_for(self, group: ProcessGroup) -> None:
        """Resolve `--size auto` and `--batch-size 0` for the device the run trains on."""
        config = self.config
        on_gpu = group.device(config.device).type == "cuda"
        self.size_network(on_gpu)
        if not config.batch_size:
            rows = sum(unit.rows for unit in self.units)
            wide = min(GPU_BATCH, max(CPU_BATCH, rows // (STEPS_PER_EPOCH * group.world) // 64 * 64))
            config.batch_size = (wide if on_gpu else CPU_BATCH) * group.world

    def size_network(self, on_gpu: bool) -> None:
        """Resolve the family's network size for the device (default: as configured)."""

    @abstractmethod
    def build_model(self) -> nn.Module:
        """A fresh network of the family (`config.model`) for the vocabularies' sizes."""

    def unit_rows(self) -> list[int]:
        return [unit.rows for unit in self.units]

    def unit_groups(self) -> list[int]:
        return [unit.group for unit in self.units]

    def batches(self, units: list[int], seed: list[int], batch_size: int) -> Iterator[tuple[Batch, int]]:
        config, rng, finished = self.config, np.random.default_rng(seed), 0
        tables = (read_unit(self.units[u], self.columns) for u in units)
        for table, done in pooled(tables, config.pool_size):
            rows = {name: table.column(name).to_pylist() for name in self.columns}
            made = pool_batches(rows, self.input_vocab, self.output_vocab, batch_size, rng, True,
                                config.max_input_length)
            for index, batch in enumerate(made):
                yield batch, done if index == len(made) - 1 else finished
            finished = done

    def evaluate(self, model: nn.Module, device: torch.device) -> dict[str, Any] | None:
        if not self.has_dev:
            return None
        return evaluate_dev(model, self.dev_files, self.input_vocab, self.output_vocab, self.config, device)

    def improves(self, metrics: dict[str, Any], best: dict[str, Any]) -> bool:
        return not best or (metrics["dev_accuracy"], -metrics["dev_loss"]) > (best["dev_accuracy"], -best["dev_loss"])

    def untrained(self, best: dict[str, Any]) -> str | None:
        return "non-trivial accuracy 0.00%" if best.get("dev_nontrivial_accuracy") == 0 else None

    def dev_line(self, metrics: dict[str, Any]) -> str:
        return (f"accuracy {100 * metrics['dev_accuracy']:.2f}%  non-trivial "
                f"{100 * metrics['dev_nontrivial_accuracy']:.2f}%  loss {metrics['dev_loss']:.4f}")

    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        save_window(path, self.format, model, self.input_vocab, self.output_vocab, self.config.to_dict(), training,
                    metrics)


def describe(result: TrainResult) -> tuple[str, str]:
    """A window family run's outcome as `tnforge train` prints it: how it stopped (a note for stderr), then the best
    dev figures and the run's files."""
    best, run = result.best, result.run
    lines = [f"best dev (step {best['step']}): accuracy {100 * best['dev_accuracy']:.2f}%, "
             f"non-trivial {100 * best['dev_nontrivial_accuracy']:.2f}%, loss {best['dev_loss']:.4f}"
             if "dev_accuracy" in best else
             f"no dev examples: best.pt is the last weights (step {best['step']}); no early stopping or "
             "learning-rate schedule (build with a dev split to have them)"] if best else []
    lines.append(f"model: {run / BEST}  metrics: {run / METRICS}  plot: {run / PLOT}")
    return result.stop_note, "\n".join(lines)
