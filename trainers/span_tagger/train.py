"""Training the span tagger on the engine: a built dataset's sentences turned around (`tnforge.itn_sentences`:
spoken words as ASR writes them) with their gold tags (`tnforge.itn_tags.span_tags`) and the lexicon's tags
(`tnforge.itn_tags.Lexicon`: of a train sentence, the lexicon of the other folds; of a dev sentence, the whole
train split's, saved in the checkpoint), held in memory as units of `UNIT_SENTENCES`, word cross-entropy, and a dev evaluation that tags the dev sentences (constrained
decoding, as the inverse normalizer tags them) and counts those whose every tag is right."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.itn_tags import Lexicon, held_out_tags, span_tags, tagged_spans
from tnforge.trainers.span_tagger.data import TagBatch, Vocabularies, make_batch
from tnforge.trainers.span_tagger.loading import FORMAT, LoadedSpanTagger, save_span_tagger
from tnforge.trainers.span_tagger.model import SpanTagger, SpanTaggerConfig
from tnforge.trainers.training.checkpoints import BEST
from tnforge.trainers.training.distributed import ProcessGroup
from tnforge.trainers.training.engine import TrainingTask, fit
from tnforge.trainers.training.engine_config import EngineConfig, option
from tnforge.trainers.training.runs import METRICS, TrainResult

#: Sentences of a data unit (`trainers.training.sharding`).
UNIT_SENTENCES = 64


@dataclass
class SpanTaggerTrainConfig(EngineConfig):
    """Every training option of the span tagger (the CLI maps onto these names)."""

    batch_size: int = option(32, "Sentences per optimizer step.", min=1)
    learning_rate: float = option(2e-3, "Adam step size.", min=0, min_open=True, aliases=("--lr",))
    min_count: int = option(2, "Train words seen fewer times are unknown words (their characters still read).",
                            min=1)
    word_dropout: float = option(0.05, "Share of train words read as unknown (so that characters are learnt).",
                                 min=0, max=1, max_open=True)
    folds: int = option(4, "Folds of the train split: a train sentence's lexicon tags come from the lexicon of the "
                           "other folds.", min=2)
    model: SpanTaggerConfig = field(default_factory=SpanTaggerConfig)


@dataclass
class Tagged:
    """A split's sentences (with spoken words): their words, the lexicon's tags and the gold tags."""

    words: list[tuple[str, ...]]
    lexicon: list[list[str]]
    tags: list[list[str]]


def tagged(data: str, folds: int) -> tuple[Tagged, Tagged, Lexicon]:
    """The train and dev splits of a dataset, tagged (the module's rules), and the train split's lexicon."""
    from tnforge.itn_sentences import read_itn

    train, dev = ([s for s in read_itn(data, split) if s.words] for split in ("train", "dev"))
    lexicon = Lexicon.learned(train)
    return (Tagged([s.words for s in train], held_out_tags(train, folds), [span_tags(s) for s in train]),
            Tagged([s.words for s in dev], [lexicon.tags(s.words) for s in dev], [span_tags(s) for s in dev]), lexicon)


class SpanTaggerTask(TrainingTask):
    """The span tagger on the engine."""

    command, format = "span-tagger", FORMAT
    distributed = False

    def setup(self, group: ProcessGroup, payload: dict[str, Any] | None) -> None:
        config = self.config
        self.train, self.dev, self.lexicon = tagged(config.data, config.folds)
        if not self.train.words:
            raise ValueError(f"{config.data}: the train split has no spoken sentences: nothing to train on")
        self.vocab = (Vocabularies.from_dict(payload) if payload is not None
                      else Vocabularies.counted(self.train.words, self.train.tags, config.min_count))

    def build_model(self) -> nn.Module:
        v = self.vocab
        return SpanTagger(self.config.model, len(v.words), len(v.chars), len(v.tags))

    def unit_rows(self) -> list[int]:
        count = len(self.train.words)
        return [min(UNIT_SENTENCES, count - first) for first in range(0, count, UNIT_SENTENCES)]

    def batches(self, units: list[int], seed: list[int], batch_size: int) -> Iterator[tuple[TagBatch, int]]:
        rng = np.random.default_rng(seed)
        train = self.train
        rows = [i for u in units for i in range(u * UNIT_SENTENCES, min((u + 1) * UNIT_SENTENCES, len(train.words)))]
        rows = [rows[i] for i in rng.permutation(len(rows))]
        dropout = self.config.word_dropout
        for first in range(0, len(rows), batch_size):
            chunk = rows[first:first + batch_size]
            unknown = [list(rng.random(len(train.words[i])) < dropout) for i in chunk]
            done = len(units) if first + batch_size >= len(rows) else 0
            yield make_batch(self.vocab, [train.words[i] for i in chunk], [train.lexicon[i] for i in chunk],
                             [train.tags[i] for i in chunk], unknown), done

    def loss(self, model: nn.Module, batch: TagBatch, device: torch.device) -> tuple[torch.Tensor, int, int]:
        moved = batch.to(device)
        logits = model(*moved.inputs())
        loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), moved.tags.flatten(), ignore_index=-100,
                                           reduction="sum")
        return loss, int(moved.lengths.sum()), len(batch)

    def loss_units(self, batch: TagBatch) -> float:
        return float(batch.lengths.sum())

    def evaluate(self, model: nn.Module, device: torch.device) -> dict[str, Any] | None:
        if not self.dev.words:
            return None
        return evaluate_dev(model, self.vocab, self.lexicon, self.dev, self.config, device)

    def improves(self, metrics: dict[str, Any], best: dict[str, Any]) -> bool:
        """More dev sentences tagged right, or as many with a lower loss."""
        return not best or ((metrics["dev_sentence_accuracy"], -metrics["dev_loss"])
                            > (best["dev_sentence_accuracy"], -best["dev_loss"]))

    def plateau_value(self, metrics: dict[str, Any]) -> float | None:
        return metrics["dev_loss"]

    def dev_line(self, metrics: dict[str, Any]) -> str:
        return (f"sentences {100 * metrics['dev_sentence_accuracy']:.2f}%  spans F1 {100 * metrics['dev_span_f1']:.2f}%"
                f"  words {100 * metrics['dev_word_accuracy']:.2f}%  loss {metrics['dev_loss']:.4f}")

    def save(self, path: Path, model: nn.Module, training: dict[str, Any] | None,
             metrics: dict[str, Any] | None) -> None:
        save_span_tagger(path, model, self.vocab, self.lexicon, self.config.to_dict(), training, metrics)


@torch.no_grad()
def evaluate_dev(model: nn.Module, vocab: Vocabularies, lexicon: Lexicon, dev: Tagged,
                 config: SpanTaggerTrainConfig, device: torch.device) -> dict[str, Any]:
    """Dev loss, and the dev sentences tagged as the inverse normalizer tags them: the share of sentences and of
    words whose tags are all right, and the F1 of the tagged spans (start, end and class right)."""
    words, hints, tags = dev.words, dev.lexicon, dev.tags
    was_training = model.training
    model.eval()
    loss = 0.0
    for first in range(0, len(words), 256):
        batch = make_batch(vocab, words[first:first + 256], hints[first:first + 256], tags[first:first + 256]).to(device)
        logits = model(*batch.inputs()).float()
        loss += float(nn.functional.cross_entropy(logits.flatten(0, 1), batch.tags.flatten(), ignore_index=-100,
                                                  reduction="sum"))
    found = LoadedSpanTagger(model, vocab, lexicon, config.to_dict(), Path(config.out), device).tag(words)
    model.train(was_training)
    right = sum(f == g for f, g in zip(found, tags, strict=True))
    word_right = sum(a == b for f, g in zip(found, tags, strict=True) for a, b in zip(f, g, strict=True))
    count = sum(len(g) for g in tags)
    predicted = [set(tagged_spans(f)) for f in found]
    gold = [set(tagged_spans(g)) for g in tags]
    hits = sum(len(p & g) for p, g in zip(predicted, gold, strict=True))
    guessed, wanted = sum(map(len, predicted)), sum(map(len, gold))
    f1 = 2 * hits / max(guessed + wanted, 1)
    return {"dev_loss": loss / max(count, 1), "dev_sentence_accuracy": right / len(tags),
            "dev_word_accuracy": word_right / max(count, 1), "dev_span_f1": f1, "dev_sentences": len(tags)}


def train(config: SpanTaggerTrainConfig, resume: bool = False, overwrite: bool = False,
          explicit: Collection[str] | None = None) -> TrainResult:
    """Train (or resume) a span tagger into `config.out` (the engine's refusals and Ctrl-C)."""
    return fit(SpanTaggerTask(config), resume, overwrite, explicit)


def describe(result: TrainResult) -> tuple[str, str]:
    """A run's outcome as `tnforge train span-tagger` prints it: how it stopped (stderr), the best dev figures."""
    best, run = result.best, result.run
    lines = [f"best dev (step {best['step']}): sentences tagged right {100 * best['dev_sentence_accuracy']:.2f}%, "
             f"spans F1 {100 * best['dev_span_f1']:.2f}%, words {100 * best['dev_word_accuracy']:.2f}%"
             if "dev_sentence_accuracy" in best else
             f"no dev sentences: best.pt is the last weights (step {best['step']})"] if best else []
    lines.append(f"model: {run / BEST}  metrics: {run / METRICS}")
    return result.stop_note, "\n".join(lines)
