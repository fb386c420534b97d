"""Progress lines for long work, written to standard error."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

#: Environment variable holding the command's start (Unix time), so worker processes started by a local
#: multi-process runner (`--workers N`) count their progress lines' seconds from the same moment.
START_VARIABLE = "TNFORGE_STARTED_AT"
_START = float(os.environ.get(START_VARIABLE) or time.time())


def start_clock() -> None:
    """Count progress seconds from now, in this process and in the worker processes it starts."""
    global _START
    _START = time.time()
    os.environ[START_VARIABLE] = repr(_START)


def log(message: str) -> None:
    """Print one progress line, prefixed with the seconds since the command started."""
    print(f"[tnforge {time.time() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


#: Libraries whose INFO/DEBUG log lines are noise on tnforge's console (their warnings still show).
LIBRARY_LOGGERS = ("great_expectations", "apache_beam", "absl", "urllib3", "google", "fsspec", "numexpr")


#: The logger through which Beam's local job service relays its worker processes' log lines.
WORKER_RELAY_LOGGER = "apache_beam.runners.portability.local_job_service"


def _drop_worker_chatter(record: logging.LogRecord) -> bool:
    """Drop worker processes' relayed lines below ERROR (start-up warnings such as "No semi_persistent_directory
    found"); a worker's failure still reaches the driver as the job's error."""
    return not (record.msg == "Worker: %s" and record.levelno < logging.ERROR)


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
    relay = logging.getLogger(WORKER_RELAY_LOGGER)
    relay.addFilter(_drop_worker_chatter)
    try:
        yield
    finally:
        relay.removeFilter(_drop_worker_chatter)
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


#: Lines a summary shows of a long list before folding the rest into one "… and N more" line.
FOLD_AFTER = 5


def folded(lines: list[str], what: str, where: str, keep: int = FOLD_AFTER) -> list[str]:
    """`lines` as a summary shows them: the first `keep`, then "… and N more WHAT (all in WHERE)" when there are
    more than `keep` + 1 (one hidden line is shown instead of its fold)."""
    if len(lines) <= keep + 1:
        return lines
    indent = lines[keep][: len(lines[keep]) - len(lines[keep].lstrip())]
    return [*lines[:keep], f"{indent}… and {len(lines) - keep} more {what} (all in {where})"]


#: Seconds between two progress lines when standard error is not a terminal.
LOG_INTERVAL = 30.0


def progress_bar(total: int | None = None, desc: str = "", unit: str = "it", initial: int = 0,
                 disable: bool = False, leave: bool = True) -> Any:
    """A tqdm bar on standard error. On a terminal it redraws in place; when stderr is not a terminal (a log
    file, CI, a pipe) it writes a whole line (ending in a newline, no carriage returns) at most every
    `LOG_INTERVAL` seconds, plus one when it closes, so logs read as a few progress lines."""
    from tqdm import tqdm

    if sys.stderr.isatty():
        return tqdm(total=total, desc=desc, unit=unit, initial=initial, disable=disable, file=sys.stderr,
                    dynamic_ncols=True, mininterval=0.1, leave=leave)
    return _log_lines_class(tqdm)(total=total, desc=desc, unit=unit, initial=initial, disable=disable,
                                  file=_Discard(), mininterval=LOG_INTERVAL, maxinterval=LOG_INTERVAL,
                                  leave=True, ascii=True)


class _Discard:
    """Where tqdm's own carriage returns and newlines go for a logged bar (its lines are written by `display`)."""

    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass


def _log_lines_class(tqdm: type) -> type:
    """A tqdm subclass for logs: each display is one newline-terminated line; postfix changes wait for the
    next timed line instead of forcing a redraw."""

    class LogLines(tqdm):  # type: ignore[misc, valid-type]
        _last = ""

        def set_postfix(self, ordered_dict: Any = None, refresh: bool = False, **kwargs: Any) -> None:
            super().set_postfix(ordered_dict, refresh=False, **kwargs)

        def display(self, msg: str | None = None, pos: int | None = None) -> bool:
            line = (self.__str__() if msg is None else msg).strip()
            if line and line != self._last:  # closing repeats the last timed line: write it once
                self._last = line
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
            return True

    return LogLines


def token_progress(label: str, total: int) -> Any:
    """The progress bar of a decoding command: `total` tokens, cleared when done."""
    return progress_bar(total=total, unit="tok", desc=label, leave=False)
