"""Training the sentence family on the training engine: the build's `sentences` (tokens, classes, readings)
streamed by row-group units, one SentencePiece inventory trained on the train split's written and spoken text
(saved in the run as `pieces.model` and in every checkpoint), a network of `--arch`, teacher-forced
cross-entropy over the target pieces, and a dev evaluation that decodes whole dev sentences (greedy, gold
classes) and counts those whose spoken form comes out exactly right."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.trainers.kernel.teacher_forced import TeacherForcedTask
from tnforge.trainers.kernel.vocab import PAD
from tnforge.trainers.sentence.data import (
    COLUMNS,
    SentenceBatch,
    count_sentences,
    iter_texts,
    make_batch,
    pool_batches,
    read_split,
    sentence_files,
)
from tnforge.trainers.sentence.loading import FORMAT, LoadedSentenceModel, save_sentence
from tnforge.trainers.sentence.model import SentenceModelConfig, build_network
from tnforge.trainers.sentence.pieces import SentencePieces
from tnforge.trainers.training.checkpoints import BEST
from tnforge.trainers.training.distributed import ProcessGroup
from tnforge.trainers.training.engine import fit
from tnforge.trainers.training.engine_config import EngineConfig, option
from tnforge.trainers.training.runs import METRICS, TrainResult
from tnforge.trainers.training.sharding import parquet_units, pooled, read_unit

#: The SentencePiece model's file in the run directory.
PIECES_FILE = "pieces.model"
#: Units of `sharding` for sentences: a sentence is ~16 tokens, so fewer rows per unit than for examples.
UNIT_SENTENCES = 128


@dataclass
class SentenceTrainConfig(EngineConfig):
    """Every training option of the sentence family (the CLI maps onto these names)."""

    batch_size: int = option(32, "Sentences per optimizer step over all ranks (the global batch).", min=1)
    learning_rate: float = option(1e-3, "Adam step size.", min=0, min_open=True, aliases=("--lr",))
    pieces: int = option(2000, "SentencePiece inventory size (upper bound), one for written and spoken text.",
                         min=16)
    max_source_pieces: int = option(256, "Train sentences of more source pieces are left out.", min=1)
    max_output_length: int = option(0, "Longest output decoded, in pieces (0: longest train target + 16).", min=0)
    label_smoothing: float = option(0.0, "Label smoothing.", min=0, max=1, max_open=True)
    dev_limit: int = option(300, "Dev sentences decoded per evaluation (0: all).", min=0)
    train_fraction: float = option(1.0, "Share of the train units read (the first ones in file order; for "
                                        "learning curves).", min=0, max=1, min_open=True)
    pool_size: int = option(2048, "Sentences shuffled and length-bucketed together.", min=1)
    model: SentenceModelConfig = field(default_factory=SentenceModelConfig)


class SentenceTask(TeacherForcedTask):
    """The sentence family on the engine."""

    command, format = "sentence", FORMAT

    def setup(self, group: ProcessGroup, payload: dict[str, Any] | None) -> None:
        config = self.config
        self.features = config.model.feature_names()  # ValueError for an unknown feature, before any work
        self.train_files = sentence_files(config.data, "train")
        self.dev_files = sentence_files(config.data, "dev")
        units = parquet_units(self.train_files, unit_rows=UNIT_SENTENCES)
        self.units = units[: max(1, round(len(units) * config.train_fraction))] if units else units
        if not self.units:
            raise ValueError(f"{config.data}: the train split has no sentences: nothing to train on")
        self.has_dev = bool(count_sentences(self.dev_files))
        if payload is None:
            def made() -> tuple[bytes, int]:
                pieces = SentencePieces.trained(iter_texts(self.train_files), config.pieces)
                longest = max((len(pieces.join_readings(r)) for r in read_split(self.train_files)["readings"]),
                              default=1)
                return pieces.model_proto, longest

            proto, longest = group.agree(made)
            config.max_output_length = config.max_output_length or longest + 16
        else:
            proto = payload["pieces"]
        self.pieces = SentencePieces(proto)
        self.dev_rows = read_split(self.dev_files, config.dev_limit) if self.has_dev else None

    def build_model(self) -> nn.Module:
        return build_network(self.config.model, len(self.pieces))

    def unit_rows(self) -> list[int]:
        return [unit.rows for unit in self.units]

    def unit_groups(self) -> list[int]:
        return [unit.group for unit in self.units]

    def batches(self, units: list[int], seed: list[int], batch_size: int) -> Iterator[tuple[SentenceBatch, int]]:
        config, rng, finished = self.config, np.random.default_rng(seed), 0
        tables = (read_unit(self.units[u], COLUMNS) for u in units)
        for table, done in pooled(tables, config.pool_size):
            rows = {name: table.column(name).to_pylist() for name in COLUMNS}
            made = pool_batches(rows, self.pieces, self.features, batch_size, rng, config.max_source_pieces)
            for index, batch in enumerate(made):
                yield batch, done if index == len(made) - 1 else finished
            finished = done

    def evaluate(self, model: nn.Module, device: torch.device) -> dict[str, Any] | None:
        if not self.has_dev or self.dev_rows is None:
            return None
        return evaluate_dev(model, self.pieces, self.dev_rows, self.config, device)

    def improves(self, metrics: dict[str, Any], best: dict[str, Any]) -> bool:
        """More dev sentences right, or as many with a lower loss (token accuracy is no tie-break: an untrained
        model that leaves every span empty gets every silent token right)."""
        return not best or ((metrics["dev_sentence_accuracy"], -metrics["dev_loss"])
                            > (best["dev_sentence_accuracy"], -best["dev_loss"]))

    def untrained(self, best: dict[str, Any]) -> str | None:
        return "sentence accuracy 0.00%" if best.get("dev_sentence_accuracy") == 0 else None

    def dev_line(self, metrics: dict[str, Any]) -> str:
        return (f"sentences {100 * metrics['dev_sentence_accuracy']:.2f}%  tokens "
                f"{100 * metrics['dev_token_accuracy']:.2f}%  loss {metrics['dev_loss']:.4f}")

    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        from tnforge.filesystems import write_bytes

        save_sentence(path, model, self.pieces, self.config.to_dict(), training, metrics)
        pieces_file = Path(path).parent / PIECES_FILE
        if not pieces_file.exists():
            write_bytes(pieces_file, self.pieces.model_proto)


@torch.no_grad()
def evaluate_dev(model: nn.Module, pieces: SentencePieces, rows: dict[str, list], config: SentenceTrainConfig,
                 device: torch.device) -> dict[str, Any]:
    """Dev loss (teacher forced) and greedy whole-sentence decoding with gold classes: the share of sentences
    whose every token's reading is right, and of tokens right."""
    from tnforge.trainers.decoding.protocol import ReadOptions
    from tnforge.trainers.evaluation.accuracy import is_correct
    from tnforge.trainers.sentence.pieces import corpus_reading
    from tnforge.trainers.sentence.reading import read_whole_sentences

    was_training = model.training
    model.eval()
    loaded = LoadedSentenceModel(model, pieces, config.to_dict(), Path(config.out), device)
    features = config.model.feature_names()
    loss_sum = units = 0.0
    for start in range(0, len(rows["tokens"]), 64):
        chunk = {name: values[start: start + 64] for name, values in rows.items()}
        batch = make_batch(chunk, pieces, features, with_target=True).to(device)
        logits = model(batch.source, batch.source_lengths, batch.target_in)
        loss_sum += float(nn.functional.cross_entropy(logits.float().flatten(0, 1), batch.target_out.flatten(),
                                                      ignore_index=PAD, reduction="sum"))
        units += int((batch.target_out != PAD).sum())
    readings, _ = read_whole_sentences(loaded, rows["tokens"], rows["classes"], None,
                                       ReadOptions(beam=1, batch_size=1024))
    right = tokens = tokens_right = 0
    for reading, gold in zip(readings, rows["readings"], strict=True):
        hits = [is_correct(t, corpus_reading(t, g), r) for t, g, r in zip(reading.tokens, gold, reading.readings,
                                                                           strict=True)]
        right += all(hits)
        tokens += len(hits)
        tokens_right += sum(hits)
    model.train(was_training)
    count = len(rows["tokens"])
    return {"dev_loss": loss_sum / max(units, 1), "dev_sentence_accuracy": right / max(count, 1),
            "dev_token_accuracy": tokens_right / max(tokens, 1), "dev_sentences": count}


def train(config: SentenceTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) a sentence model into `config.out` (the engine's refusals and Ctrl-C)."""
    return fit(SentenceTask(config), resume, overwrite, explicit)


def describe(result: TrainResult) -> tuple[str, str]:
    """A run's outcome as `tnforge train sentence` prints it: how it stopped (stderr), the best dev figures."""
    best, run = result.best, result.run
    lines = [f"best dev (step {best['step']}, gold classes): sentences {100 * best['dev_sentence_accuracy']:.2f}%, "
             f"tokens {100 * best['dev_token_accuracy']:.2f}%, loss {best['dev_loss']:.4f}"
             if "dev_sentence_accuracy" in best else
             f"no dev sentences: best.pt is the last weights (step {best['step']})"] if best else []
    lines.append(f"model: {run / BEST}  pieces: {run / PIECES_FILE}  metrics: {run / METRICS}")
    return result.stop_note, "\n".join(lines)
