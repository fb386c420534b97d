"""Pieces shared by several tnforge commands."""

from __future__ import annotations

import click


class PassThroughCommand(click.Command):
    """A command whose arguments after `--` go to Beam untouched (kept in ctx.meta['pipeline_args'])."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            args, ctx.meta["pipeline_args"] = args[:cut], args[cut + 1:]
        return super().parse_args(ctx, args)
