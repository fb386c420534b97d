"""`tnforge train seq2seq`, `tnforge train dnc` and `tnforge train sentence`: train the attention seq2seq
normalizer (`trainers.seq2seq.train.train`), the memory-augmented one (`trainers.dnc.train.train`) on the same
data, or the whole-sentence one (`trainers.sentence.train.train`); the options and their defaults are generated
from each family's training and network configs (`cli.options`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from tnforge.cli import common, options
from tnforge.trainers.dnc.model import DNCConfig
from tnforge.trainers.dnc.train import DNCTrainConfig
from tnforge.trainers.dnc.train import train as train_dnc
from tnforge.trainers.sentence import train as sentence_train
from tnforge.trainers.seq2seq.model import ModelConfig
from tnforge.trainers.seq2seq.train import TrainConfig, describe, train


def _options(train_config: type, model_config: type, data: str = "examples") -> common.Decorator:
    return common.option_group(
        common.data_option(f"Dataset directory ({data}/train and {data}/dev are used)."),
        common.out_option(help="Run directory: checkpoints, metrics.jsonl, timing.jsonl, training.png."),
        common.run_options, options.dataclass_options(train_config), options.dataclass_options(model_config))


def _train(trainer: Callable, train_config: type, model_config: type, resume: bool, overwrite: bool,
           values: dict[str, Any], outcome: Callable = describe) -> None:
    model = model_config(**options.take(model_config, values))
    note, summary = outcome(trainer(train_config(**values, model=model), resume=resume, overwrite=overwrite,
                                    explicit=options.explicit_options()))
    if common.main_rank():
        click.echo(note, err=True)
        click.echo(summary)


@common.command("seq2seq", short_help="The attention seq2seq normalizer: characters in, words out.")
@_options(TrainConfig, ModelConfig)
def seq2seq(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the attention seq2seq normalizer (characters of the window in, words of the reading out).

    Streams examples/train of --data, early-stops on examples/dev, writes checkpoint.pt, best.pt, metrics.jsonl,
    timing.jsonl and training.png into --out. Several GPUs or machines: torchrun (docs/guides/train-at-scale.md).

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s
      tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
      tnforge train seq2seq --data out/sample --out runs/sp --input-units sentencepiece --sp-size 500
      torchrun --nproc_per_node 8 -m tnforge train seq2seq --data gs://BUCKET/en --out runs/big
    """
    _train(train, TrainConfig, ModelConfig, resume, overwrite, values)


@common.command("dnc", short_help="The memory-augmented normalizer (a differentiable neural computer).")
@_options(DNCTrainConfig, DNCConfig)
def dnc(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the sequence-to-sequence DNC of Pramanik & Hussain (2018): a DNC reads the window's characters
    into an external memory, a DNC with the same memory writes the reading's words (with attention).

    Same data, dev evaluation and run files as `train seq2seq`; every --model command decodes its runs.

    \b
    Examples:
      tnforge train dnc --data out/sample --out runs/dnc
      tnforge train dnc --data out/en --out runs/dnc-paper --preset paper --device cuda
    """
    _train(train_dnc, DNCTrainConfig, DNCConfig, resume, overwrite, values)


@common.command("sentence", short_help="The whole-sentence normalizer (SentencePiece + features; LSTM or Transformer).")
@_options(sentence_train.SentenceTrainConfig, sentence_train.SentenceModelConfig, data="sentences")
def sentence(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the whole-sentence normalizer of Mansfield et al. (2019): SentencePiece pieces with casing, position
    and class features in, each token's reading out (separated by <sep>). Classes: gold in training, the tagger's
    (--tagger) on raw text. Every --model command decodes its runs; see docs/guides/sentence-models.md.

    \b
    Examples:
      tnforge train sentence --data out/en --out runs/sent-tf --arch transformer --features none
    """
    _train(sentence_train.train, sentence_train.SentenceTrainConfig, sentence_train.SentenceModelConfig, resume,
           overwrite, values, sentence_train.describe)
