"""`tnforge train seq-de` and `tnforge train voc-de`: train a dual encoder
(`trainers.dual_encoder_runs.train_with_report`); defaults come from DETrainConfig and each kind's default model.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from tnforge.cli import common
from tnforge.config import config_option
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.runs import default_model, train_with_report
from tnforge.trainers.dual_encoders.train import DETrainConfig
from tnforge.trainers.runs import TrainingInterrupted

T = DETrainConfig()
FROM_TYPES = {"sequence": "synthetic,random,topk", "vocabulary": "class,global,topk,unread"}


def _train_options(kind: str) -> Any:
    model = default_model(kind)
    listed = [
        config_option,
        click.option("--data", "-d", required=True, type=click.Path(exists=True),
                     help="Dataset directory with pairs/ (sequence) or vocab_pairs/ (vocabulary) from `tnforge negatives`."),
        click.option("--out", "-o", required=True, type=click.Path(file_okay=False),
                     help="Run directory: best.pt, checkpoint.pt, metrics.jsonl, dev.md."),
        click.option("--resume", is_flag=True, help="Continue the run in --out from its last checkpoint."),
        click.option("--overwrite", is_flag=True, help="Replace the run in a non-empty --out."),
        click.option("--negatives", default=",".join(T.negatives), help=f"Negative types used for training, "
                     f"comma-separated (of {FROM_TYPES[kind]}; default: every type present)."),
        click.option("--ratio", default="all" if T.ratio is None else f"{T.ratio:g}",
                     help="Negatives kept per positive in training: a number or 'all'."),
        click.option("--trivial/--no-trivial", default=T.trivial,
                     help="Train on the pairs with trivial readings (<self>/sil) too, when `tnforge negatives` "
                          "made them: the model then judges trivial outputs in constrained decoding."),
        click.option("--device", default=T.device, help="auto, cpu, cuda or cuda:N."),
        click.option("--epochs", default=T.epochs, type=click.IntRange(1), help="Maximum passes over the train pairs."),
        click.option("--batch-size", default=T.batch_size, type=click.IntRange(1), help="Pairs per batch."),
        click.option("--learning-rate", "--lr", default=T.learning_rate, type=click.FloatRange(0, min_open=True)),
        click.option("--patience", default=T.patience, type=click.IntRange(1),
                     help="Epochs without dev AUC gain before stopping."),
        click.option("--select", type=click.Choice(["auc", "auc-nontrivial"]), default=T.select,
                     help="Dev figure that picks best.pt and drives early stopping: ROC AUC on all dev pairs, or "
                          "on the non-trivial ones (no <self>/sil reading or input)."),
        click.option("--max-minutes", default=T.max_minutes, type=click.FloatRange(0), help="Wall-clock budget (0: none)."),
        click.option("--seed", default=T.seed, type=int, help="Seed of weights and data order."),
        click.option("--threads", default=T.threads, type=click.IntRange(0), help="CPU threads for torch (0: default)."),
        click.option("--head", type=click.Choice(["mlp", "dot"]), default=model.head,
                     help="Classifier on the two vectors: MLP on [u, v, |u-v|, u*v], or a weighted dot product."),
        click.option("--dim", default=model.dim, type=click.IntRange(1), help="Size of the two encodings."),
        click.option("--hidden", default=model.hidden, type=click.IntRange(1), help="Hidden size of each tower."),
        click.option("--buckets", default=model.input_buckets, type=click.IntRange(64),
                     help="Hashed feature buckets per tower."),
        click.option("--progress/--no-progress", default=T.progress, help="Progress bar on stderr."),
    ]
    if kind == "sequence":
        listed.insert(-1, click.option(
            "--cross-buckets", default=model.cross_buckets, type=click.IntRange(0),
            help="Hashed weights of the interaction term (token key × reading key, and token-reading match "
                 "features); 0: towers only."))
    return common.option_group(*listed)


def _negative_types(kind: str, value: str) -> tuple[str, ...]:
    types = tuple(t.strip() for t in value.split(",") if t.strip())
    unknown = [t for t in types if t not in NEGATIVE_TYPES[kind]]
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)}: choose from {', '.join(NEGATIVE_TYPES[kind])}",
                                 param_hint="--negatives")
    return types


def _train(kind: str, options: dict[str, Any]) -> None:
    """Train one dual encoder from the command's options; prints the dev figures (also in RUN/dev.md)."""
    buckets = options.pop("buckets")
    model = DualEncoderConfig(kind=kind, head=options.pop("head"), dim=options.pop("dim"), hidden=options.pop("hidden"),
                              input_buckets=buckets, output_buckets=buckets,
                              cross_buckets=options.pop("cross_buckets", 0))
    options.update(negatives=_negative_types(kind, options["negatives"]), ratio=common.parse_ratio(options["ratio"]))
    flags = {"resume": options.pop("resume"), "overwrite": options.pop("overwrite")}
    try:
        with common.click_errors():
            result, markdown = train_with_report(DETrainConfig(kind=kind, model=model, **options), **flags)
    except TrainingInterrupted as stop:
        click.echo(str(stop), err=True)
        sys.exit(130)
    click.echo(f"trained on {result.train_pairs:,} pairs for {result.epochs} epochs ({result.stopped}) in "
               f"{result.seconds:.0f} s", err=True)
    click.echo(markdown.rstrip())
    click.echo(f"\nmodel: {result.run / 'best.pt'}  metrics: {result.run / 'metrics.jsonl'}")


@click.command("seq-de", context_settings={"show_default": True},
               short_help="Sequence dual encoder: p(reading acceptable for token).")
@_train_options("sequence")
def seq_de(**options: Any) -> None:
    """Train the sequence dual encoder on DIR/pairs (from `tnforge negatives`), early-stopping on dev AUC.

    \b
    Examples:
      tnforge train seq-de --data out/sample --out runs/seq-de
      tnforge train seq-de --data out/sample --out runs/seq-de-r3 --negatives synthetic,random --ratio 3
    """
    _train("sequence", options)


@click.command("voc-de", context_settings={"show_default": True},
               short_help="Vocabulary-filter dual encoder: p(word may appear in the reading).")
@_train_options("vocabulary")
def voc_de(**options: Any) -> None:
    """Train the vocabulary-filter dual encoder on DIR/vocab_pairs, early-stopping on dev AUC.

    \b
    Examples:
      tnforge train voc-de --data out/sample --out runs/voc-de --negatives class,global
      tnforge train voc-de --data out/sample --out runs/voc-de-topk --negatives topk
    """
    _train("vocabulary", options)
