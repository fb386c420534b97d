"""Command-line options generated from config dataclasses: each field made with `engine_config.option` (its
help and bounds in the field's metadata) becomes one `--field-name` option with the field's default, so a
trainer's options and defaults live in one place, its config."""

from __future__ import annotations

import dataclasses
from typing import Any

import click
from click.core import ParameterSource

from tnforge.cli.common import Decorator, option_group, parsed_by
from tnforge.trainers.families import resolve

_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    return field.default_factory()  # type: ignore[misc]


def _option(field: dataclasses.Field) -> Decorator:
    meta, default = field.metadata, _default(field)
    kind = _TYPES.get(str(field.type), type(default))
    flag = "--" + field.name.replace("_", "-")
    if kind is bool:
        return click.option(f"{flag}/--no-{field.name.replace('_', '-')}", field.name, default=default,
                            help=meta["help"])
    if "choices" in meta:
        value_type: Any = click.Choice(list(meta["choices"]))
    elif kind in (int, float) and meta.get("min") is None and meta.get("max") is None:
        value_type = kind
    elif kind is int:
        value_type = click.IntRange(meta.get("min"), meta.get("max"), min_open=meta.get("min_open", False))
    elif kind is float:
        value_type = click.FloatRange(meta.get("min"), meta.get("max"), min_open=meta.get("min_open", False),
                                      max_open=meta.get("max_open", False))
    else:
        value_type = str
    parse = meta.get("parse")
    if parse is not None:  # "module:attr" or a callable: the value as the config wants it; errors as bad values
        parse = resolve(parse) if isinstance(parse, str) else parse
        return click.option(flag, *meta.get("aliases", ()), field.name, default=default, type=value_type,
                            callback=parsed_by(parse), help=meta["help"])
    return click.option(flag, *meta.get("aliases", ()), field.name, default=default, type=value_type,
                        help=meta["help"])


def dataclass_options(cls: type, skip: tuple[str, ...] = ()) -> Decorator:
    """The options of a config dataclass's documented fields (those with help, not hidden, not in `skip`)."""
    return option_group(*(_option(field) for field in dataclasses.fields(cls)
                          if field.name not in skip and "help" in field.metadata and not field.metadata.get("hidden")))


#: Options of the train commands that are no part of a run's recorded config.
_NOT_RECORDED = ("resume", "overwrite", "data", "out", "config")


def explicit_options(ctx: click.Context | None = None) -> frozenset[str]:
    """The options of the running command given on its command line (or in --config, or the environment), not
    left at their defaults: what a resumed run takes from the new command line (`engine_config.resumed`)."""
    ctx = ctx or click.get_current_context()
    return frozenset(param.name for param in ctx.command.params if param.name and param.name not in _NOT_RECORDED
                     and ctx.get_parameter_source(param.name) not in (None, ParameterSource.DEFAULT))


def take(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """Remove the values of `cls`'s fields from a command's keyword arguments and return them."""
    return {field.name: values.pop(field.name) for field in dataclasses.fields(cls) if field.name in values}
