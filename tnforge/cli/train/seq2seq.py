"""`tnforge train seq2seq`: train the attention seq2seq normalizer (`trainers.train_seq2seq.train`); every
default comes from TrainConfig / ModelConfig.
"""

from __future__ import annotations

import sys
from dataclasses import fields
from typing import Any

import click

from tnforge.cli import common
from tnforge.config import config_option
from tnforge.trainers.runs import TrainingInterrupted
from tnforge.trainers.seq2seq.model import ModelConfig
from tnforge.trainers.seq2seq.train import TrainConfig, train

T, M = TrainConfig(), ModelConfig()


@click.command("seq2seq", context_settings={"show_default": True},
               short_help="The attention seq2seq normalizer: characters in, words out.")
@config_option
@click.option("--data", "-d", required=True, type=click.Path(exists=True),
              help="Dataset directory (examples/train and examples/dev are used).")
@click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
              help="Run directory: checkpoints, metrics.jsonl, training.png.")
@click.option("--device", default=T.device, help="auto, cpu, cuda or cuda:N (auto picks CUDA when present).")
@click.option("--resume", is_flag=True, help="Continue the run in --out from its last checkpoint.")
@click.option("--overwrite", is_flag=True, help="Replace the run in a non-empty --out (its checkpoints and metrics).")
@click.option("--epochs", default=T.epochs, type=click.IntRange(1), help="Maximum passes over the train split.")
@click.option("--max-minutes", default=T.max_minutes, type=click.FloatRange(0), help="Wall-clock budget (0: none).")
@click.option("--batch-size", default=T.batch_size, type=click.IntRange(1), help="Examples per batch.")
@click.option("--learning-rate", "--lr", default=T.learning_rate, type=click.FloatRange(0, min_open=True),
              help="Adam step size.")
@click.option("--lr-decay", default=T.lr_decay, type=click.FloatRange(0, 1, min_open=True),
              help="Multiply the learning rate by this when dev loss stops improving.")
@click.option("--clip", default=T.clip, type=click.FloatRange(0, min_open=True), help="Gradient-norm clipping.")
@click.option("--patience", default=T.patience, type=click.IntRange(1),
              help="Dev evaluations without improvement before stopping.")
@click.option("--eval-every", default=T.eval_every, type=click.IntRange(0),
              help="Steps between dev evaluations (0: each epoch).")
@click.option("--dev-limit", default=T.dev_limit, type=click.IntRange(0), help="Dev rows per evaluation (0: all).")
@click.option("--max-copies", default=T.max_copies, type=click.IntRange(0),
              help="Use only up-sampling copies with index below this (0: all rows).")
@click.option("--seed", default=T.seed, type=int, help="Seed of weights, dropout and data order.")
@click.option("--input-units", type=click.Choice(["char", "sentencepiece"]), default=T.input_units, help="Input units.")
@click.option("--output-units", type=click.Choice(["word", "sentencepiece"]), default=T.output_units,
              help="Output units.")
@click.option("--sp-size", default=T.sp_size, type=click.IntRange(8), help="SentencePiece inventory size (upper bound).")
@click.option("--min-count", default=T.min_count, type=click.IntRange(1), help="Output words seen fewer times become <unk>.")
@click.option("--label-smoothing", default=T.label_smoothing, type=click.FloatRange(0, 1, max_open=True),
              help="Label smoothing.")
@click.option("--amp/--no-amp", default=T.amp, help="Mixed precision on CUDA (ignored on CPU).")
@click.option("--threads", default=T.threads, type=click.IntRange(0), help="CPU threads for torch (0: torch's default).")
@click.option("--input-embedding", default=M.input_embedding, type=click.IntRange(1), help="Input unit embedding size.")
@click.option("--output-embedding", default=M.output_embedding, type=click.IntRange(1),
              help="Output unit embedding size.")
@click.option("--encoder-hidden", default=M.encoder_hidden, type=click.IntRange(1),
              help="Encoder LSTM size per direction.")
@click.option("--encoder-layers", default=M.encoder_layers, type=click.IntRange(1), help="Encoder LSTM layers.")
@click.option("--decoder-hidden", default=M.decoder_hidden, type=click.IntRange(1), help="Decoder LSTM size.")
@click.option("--attention", default=M.attention, type=click.IntRange(1), help="Attention layer size.")
@click.option("--dropout", default=M.dropout, type=click.FloatRange(0, 1, max_open=True), help="Dropout rate.")
@click.option("--progress/--no-progress", default=T.progress, help="Progress bar on stderr.")
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
    try:
        with common.click_errors():
            result = train(TrainConfig(**options, model=model), resume=resume, overwrite=overwrite)
    except TrainingInterrupted as stop:
        click.echo(str(stop), err=True)
        sys.exit(130)
    best = result.best
    click.echo(f"stopped after {result.steps} steps / {result.epochs} epochs in {result.seconds / 60:.1f} min "
               f"({result.stopped})", err=True)
    if best:
        click.echo(f"best dev (step {best['step']}): accuracy {100 * best['dev_accuracy']:.2f}%, "
                   f"non-trivial {100 * best['dev_nontrivial_accuracy']:.2f}%, loss {best['dev_loss']:.4f}")
    click.echo(f"model: {result.run / 'best.pt'}  metrics: {result.run / 'metrics.jsonl'}  "
               f"plot: {result.run / 'training.png'}")
