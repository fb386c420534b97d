"""Command configuration: option defaults read from the config dataclasses, and TOML `--config` files.

A config file holds option names (dashes or underscores) at the top level or in a table named after the
command (`[build]`, `[train.seq2seq]`, …); command-line flags win over the file.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import click


def load_config(path: str | Path, command_path: list[str]) -> dict[str, Any]:
    """Options for one command from a TOML file: top-level keys, overridden by the command's table."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as error:
        raise click.BadParameter(f"{path}: no such config file") from error
    except tomllib.TOMLDecodeError as error:
        raise click.BadParameter(f"{path}: not valid TOML: {error}") from error
    options = {k: v for k, v in data.items() if not isinstance(v, dict)}
    table: Any = data
    for part in command_path:
        table = table.get(part, {}) if isinstance(table, dict) else {}
    if isinstance(table, dict) and table is not data:
        options.update({k: v for k, v in table.items() if not isinstance(v, dict)})
    return {key.replace("-", "_"): value for key, value in options.items()}


def _apply_config(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value:
        names = ctx.command_path.split()[1:]
        options = load_config(value, names)
        known = {p.name for p in ctx.command.params}
        unknown = sorted(set(options) - known)
        if unknown:
            raise click.BadParameter(f"{value}: unknown option(s) for {' '.join(names)}: {', '.join(unknown)}")
        ctx.default_map = {**(ctx.default_map or {}), **options}
    return value


def config_option(function: Any) -> Any:
    """Decorator adding `--config FILE` (TOML) to a click command; it must come before other options."""
    return click.option(
        "--config",
        type=click.Path(dir_okay=False),
        is_eager=True,
        expose_value=False,
        callback=_apply_config,
        help="TOML file with option values (top level or a table named after the command).",
    )(function)


def field_default(config_class: type, name: str) -> Any:
    """The default of field `name` of a config dataclass: command options take their defaults from here."""
    for item in dataclasses.fields(config_class):
        if item.name == name:
            if item.default is not dataclasses.MISSING:
                return item.default
            if item.default_factory is not dataclasses.MISSING:
                return item.default_factory()
            raise ValueError(f"{config_class.__name__}.{name} has no default")
    raise ValueError(f"{config_class.__name__} has no field {name!r}")


def parse_ratio(value: str | float) -> float | None:
    """A `--ratio` value (negatives per positive): "10" → 10.0, "all" → None (every candidate)."""
    if str(value).strip().lower() == "all":
        return None
    try:
        number = float(value)
    except ValueError as error:
        raise ValueError(f"{value!r}: a number such as 3 or 10, or 'all'") from error
    if not number > 0:
        raise ValueError(f"{value!r}: must be positive")
    return number
