"""The dual encoders' own options of `tnforge train seq-de|voc-de` (registered in trainers/dual_encoders/family.py):
the negative types and ratio, and the network options with each kind's default model (`runs.default_model`)."""

from __future__ import annotations

import functools
from typing import Any

import click

from tnforge.cli import common
from tnforge.schemas.negative_kinds import NEGATIVE_TYPES
from tnforge.trainers.dual_encoders import runs
from tnforge.trainers.dual_encoders.train import DETrainConfig

T = DETrainConfig()


def _train_options(kind: str) -> Any:
    model = runs.default_model(kind)
    listed = [
        click.option("--negatives", default=",".join(T.negatives),
                     callback=common.parsed_by(functools.partial(runs.parse_negative_types, kind)),
                     help=f"Negative types used for training, comma-separated "
                          f"(of {','.join(NEGATIVE_TYPES[kind])}; default: every type present)."),
        common.ratio_option("all" if T.ratio is None else f"{T.ratio:g}",
                            "Negatives kept per positive in training: a number or 'all'."),
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


#: The extra options of `train seq-de` and of `train voc-de`.
sequence_options = _train_options("sequence")
vocabulary_options = _train_options("vocabulary")
