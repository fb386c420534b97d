"""`tnforge train …`: train models from a built dataset directory (one sub-command module each, lazily)."""

from __future__ import annotations

import click

from tnforge.cli.lazy import LazyGroup

#: Trainers: sub-command → ("module:attribute", one-line help), listed in this order. Add new trainers here.
TRAINERS: dict[str, tuple[str, str]] = {
    "dnc": ("tnforge.cli.train.seq2seq:dnc", "The memory-augmented normalizer (a differentiable neural computer)."),
    "seq-de": ("tnforge.cli.train.dual_encoders:seq_de", "The sequence dual encoder (input, reading) → acceptable?"),
    "sentence": ("tnforge.cli.train.seq2seq:sentence", "The whole-sentence normalizer (SentencePiece; LSTM or Transformer)."),
    "seq2seq": ("tnforge.cli.train.seq2seq:seq2seq", "The attention seq2seq normalizer: characters in, words out."),
    "tagger": ("tnforge.cli.train.tagger:tagger", "The semiotic-class tagger (xgboost over context features)."),
    "voc-de": ("tnforge.cli.train.dual_encoders:voc_de", "The vocabulary-filter dual encoder (input, word) → may occur?"),
}


@click.group(cls=LazyGroup, lazy_commands=TRAINERS, context_settings={"show_default": True})
def train() -> None:
    """Train a model from a dataset directory built by `tnforge build`.

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s
      tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
      tnforge train dnc --data out/sample --out runs/dnc --preset laptop
      tnforge train sentence --data out/sample --out runs/sentence --arch transformer
      tnforge train tagger --data out/sample --out runs/tagger
      tnforge train seq-de --data out/sample --out runs/seq-de
      torchrun --standalone --nproc_per_node 8 -m tnforge train seq2seq --data out/en --out runs/8gpu
    """
