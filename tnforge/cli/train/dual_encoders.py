"""`tnforge train seq-de` and `tnforge train voc-de`: train a dual encoder (`trainers.dual_encoders.runs`);
defaults come from DETrainConfig and each kind's default model."""

from __future__ import annotations

import functools
from typing import Any

import click

from tnforge.cli import common, options
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders import runs
from tnforge.trainers.dual_encoders.train import DETrainConfig

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
        options.dataclass_options(DETrainConfig),
        click.option("--head", type=click.Choice(["mlp", "dot"]), default=model.head,
                     help="Classifier on the two vectors: MLP on [u, v, |u-v|, u*v], or a weighted dot product."),
        click.option("--dim", default=model.dim, type=click.IntRange(1), help="Size of the two encodings."),
        click.option("--hidden", default=model.hidden, type=click.IntRange(1), help="Hidden size of each tower."),
        click.option("--buckets", default=model.input_buckets, type=click.IntRange(64),
                     help="Hashed feature buckets per tower."),
    ]
    if kind == "sequence":
        listed.append(click.option(
            "--cross-buckets", default=model.cross_buckets, type=click.IntRange(0),
            help="Hashed weights of the interaction term (token key × reading key, and token-reading match "
                 "features); 0: towers only."))
    return common.option_group(*listed)


def _train(kind: str, resume: bool, overwrite: bool, values: dict[str, Any]) -> None:
    """Train one dual encoder from the command's options; prints the dev figures (also in RUN/dev.md)."""
    note, summary = runs.describe(*runs.train_with_report(runs.config_of(kind, **values), resume, overwrite,
                                                          options.explicit_options()))
    click.echo(note, err=True)
    click.echo(summary)


@common.command("seq-de", short_help="Sequence dual encoder: p(reading acceptable for token).")
@_train_options("sequence")
def seq_de(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the sequence dual encoder on DIR/pairs (from `tnforge negatives`), early-stopping on dev AUC.

    \b
    Examples:
      tnforge train seq-de --data out/sample --out runs/seq-de
      tnforge train seq-de --data out/sample --out runs/seq-de-r3 --negatives synthetic,random --ratio 3
    """
    _train("sequence", resume, overwrite, values)


@common.command("voc-de", short_help="Vocabulary-filter dual encoder: p(word may appear in the reading).")
@_train_options("vocabulary")
def voc_de(resume: bool, overwrite: bool, **values: Any) -> None:
    """Train the vocabulary-filter dual encoder on DIR/vocab_pairs, early-stopping on dev AUC.

    \b
    Examples:
      tnforge train voc-de --data out/sample --out runs/voc-de --negatives class,global
      tnforge train voc-de --data out/sample --out runs/voc-de-topk --negatives topk
    """
    _train("vocabulary", resume, overwrite, values)
