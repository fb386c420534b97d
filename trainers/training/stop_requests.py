"""Ctrl-C and SIGTERM during training: a request to stop at the next step boundary (where a checkpoint can be
exact), not an exception in the middle of an optimizer step."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any


class StopRequest:
    """Ctrl-C (SIGINT) or SIGTERM asks the loop to stop at the next step boundary. A second Ctrl-C more than
    `ABORT_AFTER` seconds later aborts at once (torchrun passes the terminal's Ctrl-C on to its workers, which
    then see two within milliseconds: that is still one request)."""

    ABORT_AFTER = 2.0

    def __init__(self) -> None:
        self.requested = False
        self._first = 0.0
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.requested:
            self.requested, self._first = True, time.monotonic()
        elif signum == signal.SIGINT and time.monotonic() - self._first > self.ABORT_AFTER:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def installed(self) -> Iterator[StopRequest]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        try:
            yield self
        finally:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)
