"""Errors a user can fix (a corrupt input, an unwritable output, an interrupt), and finding them again
behind Beam's wrapping, so the CLI reports each as one line instead of a traceback.

Beam re-raises a worker's error with " [while running 'STEP']" appended (in-process runner), or as a
RuntimeError whose message holds the worker's traceback as text (multi-process and remote runners);
`describe` finds the original in the exception chain or, failing that, in the message.
"""

from __future__ import annotations

import contextlib
import re
import sys
import traceback
from collections.abc import Iterator

_STEP = re.compile(r" \[while running '[^']*'\]")
#: A line of a traceback text naming one of our errors, e.g. "tnforge.errors.InputError: a.gz: …".
_OURS_AS_TEXT = re.compile(r"^tnforge(?:\.\w+)*\.(\w+): (.+)$", re.MULTILINE)
_INTERRUPT_AS_TEXT = re.compile(r"^(?:KeyboardInterrupt|tnforge\.errors\.Interrupted)\b:? ?(.*)$", re.MULTILINE)
INTERRUPT_EXIT = 130


class TnforgeError(Exception):
    """A problem the user can fix: reported as its one-line message, no traceback."""

    exit_code = 1


class InputError(TnforgeError):
    """An input file that cannot be read: corrupt or truncated compression, an I/O error."""


class OutputError(TnforgeError):
    """An output location that cannot be written or reached."""


class RunnerOptionError(TnforgeError, ValueError):
    """Options that do not fit the Beam runner they are given to (e.g. --workers with DataflowRunner)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with what it left behind ("interrupted; DIR left incomplete")."""


def chain(error: BaseException) -> Iterator[BaseException]:
    """The error, then its causes and contexts, each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def without_step(message: str) -> str:
    """A message without Beam's " [while running 'STEP']" annotations."""
    return _STEP.sub("", message).strip()


def interrupted(error: BaseException) -> bool:
    """True when Ctrl-C is behind `error` (also when Beam turned it into a RuntimeError)."""
    return isinstance(describe_original(error), KeyboardInterrupt)


def describe_original(error: BaseException) -> BaseException | None:
    """The TnforgeError or KeyboardInterrupt behind `error` (itself, a cause, or named in Beam's text)."""
    for link in chain(error):
        if isinstance(link, (TnforgeError, KeyboardInterrupt)):
            return link
    for link in chain(error):
        text = str(link)
        if found := _OURS_AS_TEXT.search(text):
            return TnforgeError(found.group(2))
        if found := _INTERRUPT_AS_TEXT.search(text):
            return Interrupted(without_step(found.group(1)))
    return None


@contextlib.contextmanager
def interrupt_says(message: str, replace: bool = False) -> Iterator[None]:
    """Ctrl-C inside the block ends as Interrupted(`message`), which says what is complete and what is not;
    an Interrupted raised inside with a message of its own is kept, unless `replace`."""
    try:
        yield
    except BaseException as error:
        if not interrupted(error):
            raise
        said = describe_original(error)
        if replace or not (isinstance(said, Interrupted) and str(said)):
            raise Interrupted(message) from error
        raise


def describe(error: BaseException) -> tuple[str, int] | None:
    """(one-line message, exit status) for a user-fixable error or an interrupt; None for anything else."""
    original = describe_original(error)
    if isinstance(original, KeyboardInterrupt):
        return without_step(str(original)) or "interrupted", INTERRUPT_EXIT
    if isinstance(original, TnforgeError):
        return without_step(str(original)), original.exit_code
    return None


def report(error: BaseException, debug: bool = False) -> int:
    """Print a user-fixable error or an interrupt as its one line on stderr (after the traceback when
    `debug`) and return its exit status; re-raise anything else (a bug keeps its traceback)."""
    found = describe(error)
    if found is None:
        raise error
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    message, status = found
    print(message if status == INTERRUPT_EXIT else f"Error: {message}", file=sys.stderr, flush=True)
    return status
