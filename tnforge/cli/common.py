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


def parse_ratio(value: str) -> float | None:
    """A `--ratio` value: "10" → 10.0, "all" → None (every candidate)."""
    if str(value).strip().lower() == "all":
        return None
    try:
        number = float(value)
    except ValueError as error:
        raise click.BadParameter(f"{value!r}: a number such as 3 or 10, or 'all'", param_hint="--ratio") from error
    if not number > 0:
        raise click.BadParameter(f"{value!r}: must be positive", param_hint="--ratio")
    return number
