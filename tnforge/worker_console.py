"""Quiet Beam worker processes on the user's console.

With `--workers N` (N > 1) Beam runs SDK worker processes that share the command's standard error, and a
failing step makes each of them print the failure's whole traceback there (Beam's `sdk_worker._execute`)
before the driver reports it. The driver already reports every failure — one line for an error the user can
fix, the full traceback for anything else — so inside a worker process those printed tracebacks are dropped,
unless `--debug` (`TNFORGE_DEBUG`) asks for them.

A worker process that ends normally also skips the interpreter's tear-down (`fast_worker_exit`): the driver
stops its workers one after the other and waits for each to exit, and freeing a worker's heap object by object
(grammar, context, Beam's state) took ≈ 0.5–1 s per worker of serial wall time at the end of every run.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from typing import Any, TextIO

#: Set in Beam's SDK worker processes (the control channel they are started with), not in the driver.
WORKER_VARIABLE = "CONTROL_API_SERVICE_DESCRIPTOR"
DEBUG_VARIABLE = "TNFORGE_DEBUG"
TRACEBACK = "Traceback (most recent call last):"


class TracebackFilter:
    """A text stream that passes everything on except writes that are a whole printed traceback (and the
    line end `print` adds after one)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._dropped = False

    def write(self, text: str) -> int:
        if text.startswith(TRACEBACK):
            self._dropped = True
            return len(text)
        if self._dropped and text == "\n":
            self._dropped = False
            return len(text)
        self._dropped = False
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def in_worker_process() -> bool:
    """True inside a Beam SDK worker process started for `--workers N`."""
    return WORKER_VARIABLE in os.environ


def quiet_worker_tracebacks() -> None:
    """In a worker process (and without `--debug`), drop the tracebacks Beam prints to standard error."""
    if in_worker_process() and not os.environ.get(DEBUG_VARIABLE) and not isinstance(sys.stderr, TracebackFilter):
        sys.stderr = TracebackFilter(sys.stderr)


#: Whether `fast_worker_exit` is set up in this process, and whether an exception reached the top level.
_EXIT = {"armed": False, "failed": False}


def fast_worker_exit() -> None:
    """In a worker process, end a normal exit right after the exit handlers registered later than this one: the
    standard streams and logging flushed, then `os._exit(0)`, without freeing every object first. An exit
    through an uncaught exception keeps Python's own ending and its exit status (Beam's worker never calls
    `sys.exit`)."""
    if not in_worker_process() or _EXIT["armed"]:
        return
    _EXIT["armed"] = True
    hook = sys.excepthook

    def noting_failure(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        _EXIT["failed"] = True
        hook(kind, error, trace)

    sys.excepthook = noting_failure
    atexit.register(_exit_now)


def _exit_now() -> None:
    """The exit handler of `fast_worker_exit`."""
    if _EXIT["failed"]:
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or replaced streams: nothing left to flush
            pass
    os._exit(0)

