"""One lazy click group: a table maps each sub-command to "module:attribute" and a one-line help; its module
is imported only when that command runs (or shows its help), so listing commands imports no heavy library."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from collections.abc import Mapping
from typing import Any

import click

from tnforge.errors import report

#: ctx.meta key set by `tnforge --debug` (or TNFORGE_DEBUG=1): tracebacks instead of one-line errors.
DEBUG = "tnforge.debug"

#: Marks a click error whose traceback `--debug` has printed.
_TRACED = "_tnforge_traced"

#: Sub-command name → ("module:attribute" of its click command, one-line help shown in the listing).
CommandTable = Mapping[str, tuple[str, str]]


class LazyGroup(click.Group):
    """A click group whose sub-commands come from a table and are imported on first use.

    Use: `@click.group(cls=LazyGroup, lazy_commands=TABLE)`. Listed in table order, then any commands
    added directly (`@group.command()`) in name order; a table entry whose module is not installed is hidden.
    """

    def __init__(self, *args: Any, lazy_commands: CommandTable | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, tuple[str, str]] = dict(lazy_commands or {})

    def _available(self, name: str) -> bool:
        module = self.lazy_commands[name][0].split(":")[0]
        return importlib.util.find_spec(module) is not None

    def list_commands(self, ctx: click.Context) -> list[str]:
        lazy = [name for name in self.lazy_commands if self._available(name)]
        return lazy + sorted(set(self.commands) - set(self.lazy_commands))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands or name not in self.lazy_commands:
            return super().get_command(ctx, name)
        if not self._available(name):
            return None
        module_name, attribute = self.lazy_commands[name][0].split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the sub-command; user-fixable errors and Ctrl-C end as one line (`tnforge.errors.report`), after
        the traceback with `--debug`: click's refusals too (a bad option, a library error turned into one)."""
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            if ctx.meta.get(DEBUG, False) and not getattr(error, _TRACED, False):
                setattr(error, _TRACED, True)  # nested groups (`train`) print it once
                traceback.print_exception(error, file=sys.stderr)
            raise
        except (click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except BaseException as error:
            ctx.exit(report(error, debug=ctx.meta.get(DEBUG, False)))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The listing, with the table's help lines: lazy commands are not imported for it."""
        rows = [(name, self.lazy_commands[name][1] if name in self.lazy_commands
                 else self.commands[name].get_short_help_str()) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
