"""`tnforge train seq2seq`: train the attention seq2seq normalizer (`trainers.seq2seq.train.train`); every
default comes from TrainConfig / ModelConfig."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import click

from tnforge.cli import common
from tnforge.trainers.seq2seq.model import ModelConfig
from tnforge.trainers.seq2seq.train import TrainConfig, describe, train

T, M = TrainConfig(), ModelConfig()


@common.command("seq2seq", short_help="The attention seq2seq normalizer: characters in, words out.")
@common.data_option("Dataset directory (examples/train and examples/dev are used).")
@common.out_option(help="Run directory: checkpoints, metrics.jsonl, training.png.")
@common.device_option(T.device)
@common.run_options
@common.epochs_option(T.epochs, "Maximum passes over the train split.")
@common.max_minutes_option(T.max_minutes)
@common.batch_size_option(T.batch_size, "Examples per batch.")
@common.learning_rate_option(T.learning_rate, "Adam step size.")
@click.option("--lr-decay", default=T.lr_decay, type=click.FloatRange(0, 1, min_open=True),
              help="Multiply the learning rate by this when dev loss stops improving.")
@click.option("--clip", default=T.clip, type=click.FloatRange(0, min_open=True), help="Gradient-norm clipping.")
@common.patience_option(T.patience, "Dev evaluations without improvement before stopping.")
@click.option("--eval-every", default=T.eval_every, type=click.IntRange(0),
              help="Steps between dev evaluations (0: each epoch).")
@click.option("--dev-limit", default=T.dev_limit, type=click.IntRange(0), help="Dev rows per evaluation (0: all).")
@click.option("--max-copies", default=T.max_copies, type=click.IntRange(0),
              help="Use only up-sampling copies with index below this (0: all rows).")
@common.seed_option(T.seed, "Seed of weights, dropout and data order.")
@click.option("--input-units", type=click.Choice(["char", "sentencepiece"]), default=T.input_units, help="Input units.")
@click.option("--output-units", type=click.Choice(["word", "sentencepiece"]), default=T.output_units,
              help="Output units.")
@click.option("--sp-size", default=T.sp_size, type=click.IntRange(8), help="SentencePiece inventory size (upper bound).")
@click.option("--min-count", default=T.min_count, type=click.IntRange(1), help="Output words seen fewer times become <unk>.")
@click.option("--label-smoothing", default=T.label_smoothing, type=click.FloatRange(0, 1, max_open=True),
              help="Label smoothing.")
@click.option("--amp/--no-amp", default=T.amp, help="Mixed precision on CUDA (ignored on CPU).")
@common.threads_option(T.threads)
@click.option("--input-embedding", default=M.input_embedding, type=click.IntRange(1), help="Input unit embedding size.")
@click.option("--output-embedding", default=M.output_embedding, type=click.IntRange(1),
              help="Output unit embedding size.")
@click.option("--encoder-hidden", default=M.encoder_hidden, type=click.IntRange(1),
              help="Encoder LSTM size per direction.")
@click.option("--encoder-layers", default=M.encoder_layers, type=click.IntRange(1), help="Encoder LSTM layers.")
@click.option("--decoder-hidden", default=M.decoder_hidden, type=click.IntRange(1), help="Decoder LSTM size.")
@click.option("--attention", default=M.attention, type=click.IntRange(1), help="Attention layer size.")
@click.option("--dropout", default=M.dropout, type=click.FloatRange(0, 1, max_open=True), help="Dropout rate.")
@common.progress_option(T.progress)
def seq2seq(resume: bool, overwrite: bool, **options: Any) -> None:
    """Train the attention seq2seq normalizer (characters of the window in, words of the reading out).

    Streams examples/train of --data, early-stops on examples/dev, writes checkpoint.pt (latest),
    best.pt (best on dev), metrics.jsonl and training.png into --out.

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s --max-minutes 20
      tnforge train seq2seq --data out/sample --out runs/sp --input-units sentencepiece --sp-size 500
      tnforge train seq2seq --data out/sample --out runs/s2s --resume
    """
    model = ModelConfig(**{f.name: options.pop(f.name) for f in fields(ModelConfig)})
    note, summary = describe(train(TrainConfig(**options, model=model), resume=resume, overwrite=overwrite))
    click.echo(note, err=True)
    click.echo(summary)
