"""`tnforge train seq-de` and `tnforge train voc-de`: train a dual encoder (`trainers.dual_encoders.runs`);
defaults come from DETrainConfig and each kind's default model."""

from __future__ import annotations

import functools
from typing import Any

import click

from tnforge.cli import common
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders import runs
from tnforge.trainers.dual_encoders.train import SELECTIONS, DETrainConfig

T = DETrainConfig()


def _train_options(kind: str) -> Any:
    model = runs.default_model(kind)
    listed = [
        common.data_option("Dataset directory with pairs/ (sequence) or vocab_pairs/ (vocabulary) from "
                           "`tnforge negatives`."),
        common.out_option(help="Run directory: best.pt, checkpoint.pt, metrics.jsonl, dev.md."),
        common.run_options,
        click.option("--negatives", default=",".join(T.negatives),
                     callback=common.parsed_by(functools.partial(runs.parse_negative_types, kind)),
                     help=f"Negative types used for training, comma-separated "
                          f"(of {','.join(NEGATIVE_TYPES[kind])}; default: every type present)."),
        common.ratio_option("all" if T.ratio is None else f"{T.ratio:g}",
                            "Negatives kept per positive in training: a number or 'all'."),
        click.option("--trivial/--no-trivial", default=T.trivial,
                     help="Train on the pairs with trivial readings (<self>/sil) too, when `tnforge negatives` "
                          "made them: the model then judges trivial outputs in constrained decoding."),
        common.device_option(T.device),
        common.epochs_option(T.epochs, "Maximum passes over the train pairs."),
        common.batch_size_option(T.batch_size, "Pairs per batch."),
        common.learning_rate_option(T.learning_rate),
        common.patience_option(T.patience, "Epochs without dev AUC gain before stopping."),
        click.option("--select", type=click.Choice(SELECTIONS), default=T.select,
                     help="Dev figure that picks best.pt and drives early stopping: ROC AUC on all dev pairs, or "
                          "on the non-trivial ones (no <self>/sil reading or input)."),
        common.max_minutes_option(T.max_minutes),
        common.seed_option(T.seed, "Seed of weights and data order."),
        common.threads_option(T.threads),
        click.option("--head", type=click.Choice(["mlp", "dot"]), default=model.head,
                     help="Classifier on the two vectors: MLP on [u, v, |u-v|, u*v], or a weighted dot product."),
        click.option("--dim", default=model.dim, type=click.IntRange(1), help="Size of the two encodings."),
        click.option("--hidden", default=model.hidden, type=click.IntRange(1), help="Hidden size of each tower."),
        click.option("--buckets", default=model.input_buckets, type=click.IntRange(64),
                     help="Hashed feature buckets per tower."),
        common.progress_option(T.progress),
    ]
    if kind == "sequence":
        listed.insert(-1, click.option(
            "--cross-buckets", default=model.cross_buckets, type=click.IntRange(0),
            help="Hashed weights of the interaction term (token key × reading key, and token-reading match "
                 "features); 0: towers only."))
    return common.option_group(*listed)


def _train(kind: str, resume: bool, overwrite: bool, options: dict[str, Any]) -> None:
    """Train one dual encoder from the command's options; prints the dev figures (also in RUN/dev.md)."""
    note, summary = runs.describe(*runs.train_with_report(runs.config_of(kind, **options), resume, overwrite))
    click.echo(note, err=True)
    click.echo(summary)


@common.command("seq-de", short_help="Sequence dual encoder: p(reading acceptable for token).")
@_train_options("sequence")
def seq_de(resume: bool, overwrite: bool, **options: Any) -> None:
    """Train the sequence dual encoder on DIR/pairs (from `tnforge negatives`), early-stopping on dev AUC.

    \b
    Examples:
      tnforge train seq-de --data out/sample --out runs/seq-de
      tnforge train seq-de --data out/sample --out runs/seq-de-r3 --negatives synthetic,random --ratio 3
    """
    _train("sequence", resume, overwrite, options)


@common.command("voc-de", short_help="Vocabulary-filter dual encoder: p(word may appear in the reading).")
@_train_options("vocabulary")
def voc_de(resume: bool, overwrite: bool, **options: Any) -> None:
    """Train the vocabulary-filter dual encoder on DIR/vocab_pairs, early-stopping on dev AUC.

    \b
    Examples:
      tnforge train voc-de --data out/sample --out runs/voc-de --negatives class,global
      tnforge train voc-de --data out/sample --out runs/voc-de-topk --negatives topk
    """
    _train("vocabulary", resume, overwrite, options)
