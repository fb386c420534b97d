"""`tnforge train tagger`: train the semiotic-class tagger (`trainers.tagger.train.train_tagger`); every
default comes from TaggerConfig."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli import common
from tnforge.trainers.tagger.train import TaggerConfig, describe, train_tagger

T = TaggerConfig()


@common.command("tagger", interrupted=common.nothing_written("out", "the tagger"),
                short_help="The semiotic-class tagger (xgboost over context features).")
@common.data_option("Dataset directory (sentences/train; examples/dev and examples/test for the figures).")
@common.out_option(help="Run directory: model.json (xgboost), tagger.json (what the model is, its calibration), dev.md, reliability.png.")
@click.option("--overwrite", is_flag=True, help="Replace the tagger run in a non-empty --out.")
@click.option("--rounds", default=T.rounds, type=click.IntRange(1), help="Boosting rounds at most.")
@common.learning_rate_option(T.learning_rate, "Boosting step size (eta).")
@click.option("--max-depth", default=T.max_depth, type=click.IntRange(1), help="Depth of each tree.")
@click.option("--colsample", default=T.colsample, type=click.FloatRange(0, 1, min_open=True),
              help="Share of the features each tree may use.")
@click.option("--patience", default=T.patience, type=click.IntRange(0),
              help="Rounds without dev improvement before stopping (0: no early stopping).")
@click.option("--class-weight", default=T.class_weight, type=click.FloatRange(0),
              help="Weight of class c: (count of the commonest class / count of c) ** this (0: unweighted).")
@click.option("--max-weight", default=T.max_weight, type=click.FloatRange(1), help="Largest class weight.")
@click.option("--folds", default=T.folds, type=click.IntRange(2),
              help="Folds of the train sentences: each sees the token statistics of the others only.")
@click.option("--max-words", default=T.max_words, type=click.IntRange(0), help="Frequent words with their own feature.")
@common.seed_option(T.seed, "Seed of the trees and the folds.")
@click.option("--threads", default=T.threads, type=click.IntRange(1), help="CPU threads of xgboost.")
@common.device_option(T.device, "cpu (default), cuda or cuda:N: xgboost's device.")
def tagger(**options: Any) -> None:
    """Train the semiotic-class tagger on every token of the train split; report per-class figures on dev.

    \b
    Example:
      tnforge train tagger --data out/sample --out runs/tagger
    """
    note, summary = describe(train_tagger(TaggerConfig(**options)))
    click.echo(note, err=True)
    click.echo(summary)
