"""`tnforge train seq2seq`: train the attention seq2seq normalizer (`trainers.seq2seq.train.train`); the options
and their defaults are generated from TrainConfig and ModelConfig (`cli.options`)."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli import common, options
from tnforge.trainers.seq2seq.model import ModelConfig
from tnforge.trainers.seq2seq.train import TrainConfig, describe, train


@common.command("seq2seq", short_help="The attention seq2seq normalizer: characters in, words out.")
@common.data_option("Dataset directory (examples/train and examples/dev are used).")
@common.out_option(help="Run directory: checkpoints, metrics.jsonl, timing.jsonl, training.png.")
@common.run_options
@options.dataclass_options(TrainConfig)
@options.dataclass_options(ModelConfig)
def seq2seq(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the attention seq2seq normalizer (characters of the window in, words of the reading out).

    Streams examples/train of --data, early-stops on examples/dev, writes checkpoint.pt, best.pt, metrics.jsonl,
    timing.jsonl and training.png into --out. Several GPUs or machines: torchrun (docs/training-at-scale.md).

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s
      tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
      tnforge train seq2seq --data out/sample --out runs/sp --input-units sentencepiece --sp-size 500
      torchrun --nproc_per_node 8 -m tnforge train seq2seq --data gs://BUCKET/en --out runs/big
    """
    model = ModelConfig(**options.take(ModelConfig, values))
    note, summary = describe(train(TrainConfig(**values, model=model), resume=resume, overwrite=overwrite))
    if common.main_rank():
        click.echo(note, err=True)
        click.echo(summary)
