"""A `tnforge train` command built from a family's registration: --data, --out, --resume/--overwrite, the
documented fields of its training and network config dataclasses (`cli.options`) and the family's own extra
options; it builds the config, calls the family's trainer and prints its summary."""

from __future__ import annotations

from typing import Any

import click

from tnforge.cli import common, options
from tnforge.trainers.families import Family, TrainCommand, resolve

_OVERWRITE = click.option("--overwrite", is_flag=True, help="Replace the run in a non-empty --out.")


def train_command(family: Family, spec: TrainCommand) -> click.Command:
    """The click command of one registered train command."""
    config = resolve(spec.config)
    model_config = resolve(spec.model_config) if spec.model_config else None
    make = resolve(spec.make_config) if spec.make_config else None

    def run(resume: bool = False, overwrite: bool = False, **values: Any) -> None:
        explicit = options.explicit_options()
        if not spec.resumable:  # the config holds --overwrite; there is nothing to resume
            values["overwrite"] = overwrite
        if make is None and model_config is not None:
            values["model"] = model_config(**options.take(model_config, values))
        settings = make(**values) if make is not None else config(**values)
        trainer = resolve(spec.trainer)
        outcome = (trainer(settings, resume=resume, overwrite=overwrite, explicit=explicit) if spec.resumable
                   else trainer(settings))
        note, summary = resolve(spec.describe)(outcome)
        if common.main_rank():
            click.echo(note, err=True)
            click.echo(summary)

    listed = [common.data_option(spec.data_help), common.out_option(help=spec.out_help),
              common.run_options if spec.resumable else _OVERWRITE]
    if spec.options:
        listed.append(options.dataclass_options(resolve(spec.options)))
    listed.append(options.dataclass_options(config))
    if model_config is not None and make is None:
        listed.append(options.dataclass_options(model_config))
    interrupted = None if spec.resumable else common.nothing_written("out", f"the {family.name}")
    run.__doc__ = spec.description
    return common.command(spec.name, interrupted=interrupted, short_help=spec.help)(
        common.option_group(*listed)(run))
