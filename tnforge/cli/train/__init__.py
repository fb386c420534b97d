"""`tnforge train …`: train models from a built dataset directory (each model a sub-command in a module of
this package, imported only when used)."""

from __future__ import annotations

import importlib

import click

#: Trainers defined in other modules: sub-command → ("module:attribute", one-line help); each is imported
#: only when used. Add new trainers here.
LAZY_TRAINERS: dict[str, tuple[str, str]] = {
    "seq2seq": ("tnforge.cli.train.seq2seq:seq2seq", "The attention seq2seq normalizer: characters in, words out."),
    "seq-de": ("tnforge.cli.train.dual_encoders:seq_de", "The sequence dual encoder (input, reading) → acceptable?"),
    "voc-de": ("tnforge.cli.train.dual_encoders:voc_de", "The vocabulary-filter dual encoder (input, word) → may occur?"),
}


class TrainGroup(click.Group):
    """The `train` group: commands defined here plus lazily imported ones from LAZY_TRAINERS."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY_TRAINERS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_TRAINERS and name not in self.commands:
            module, attribute = LAZY_TRAINERS[name][0].split(":")
            return getattr(importlib.import_module(module), attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.commands[name].get_short_help_str() if name in self.commands else LAZY_TRAINERS[name][1])
                for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=TrainGroup, context_settings={"show_default": True})
def train() -> None:
    """Train a model from a dataset directory built by `tnforge build`.

    \b
    Examples:
      tnforge train seq2seq --data out/sample --out runs/s2s
      tnforge train seq2seq --data out/sample --out runs/s2s --resume --epochs 60
    """
