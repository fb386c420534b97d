"""Progress lines for long work, written to standard error."""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from typing import Any

_START = time.monotonic()


def log(message: str) -> None:
    """Print one progress line, prefixed with the seconds since the process started."""
    print(f"[tnforge {time.monotonic() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


#: Libraries whose INFO/DEBUG log lines are noise on tnforge's console (their warnings still show).
LIBRARY_LOGGERS = ("great_expectations", "apache_beam", "absl", "urllib3", "google", "fsspec", "numexpr")


@contextlib.contextmanager
def quiet_library_logs(names: tuple[str, ...] = LIBRARY_LOGGERS) -> Iterator[None]:
    """Raise the library loggers (and their existing descendants that set a level of their own, like
    great_expectations' `data_context.types.base` at INFO) to WARNING while the block runs; restore after.
    Loggers a module creates inside the block inherit from their library's logger, unless they set a
    level themselves on import: import such modules before the block."""
    prefixes = tuple(f"{name}." for name in names)
    existing = [name for name in logging.root.manager.loggerDict if name.startswith(prefixes)]
    loggers = [logging.getLogger(name) for name in (*names, *existing)]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def progress_bar(total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0,
                 disable: bool = False, leave: bool = True) -> Any:
    """A tqdm bar on standard error; when stderr is not a terminal (a log file, CI) it redraws at most every
    30 s, so logs get a line now and then instead of one per update."""
    from tqdm import tqdm

    terminal = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit=unit, initial=initial, disable=disable, file=sys.stderr,
                dynamic_ncols=terminal, mininterval=0.1 if terminal else 30.0, leave=leave if terminal else True)


def token_progress(label: str, total: int) -> Any:
    """The progress bar of a decoding command: `total` tokens, cleared when done."""
    return progress_bar(total=total, unit="tok", desc=label, leave=False)
