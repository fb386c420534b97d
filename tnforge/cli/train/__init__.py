"""`tnforge train …`: one sub-command per train command of the registered model families
(`trainers.families`), built on first use from the family's registration (`cli.train.commands`)."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli.lazy import LazyGroup


class FamilyCommands(LazyGroup):
    """The train commands of every registered family (built-in and plug-in), listed without importing torch."""

    def _table(self) -> dict[str, tuple[Any, Any]]:
        from tnforge.trainers.families import train_commands

        return train_commands()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self._table())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = self._table().get(name)
        if entry is None:
            return None
        from tnforge.cli.train.commands import train_command

        return train_command(*entry)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, command.help) for name, (_family, command) in self._table().items()]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=FamilyCommands, context_settings={"show_default": True})
def train() -> None:
    """Train a model from a dataset directory built by `tnforge build`.

    One command per registered model family (a family is one folder under trainers/, or a plug-in named in
    TNFORGE_PLUGINS); each command's options come from its config dataclasses.

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
