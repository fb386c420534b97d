"""Progress lines for long work, written to standard error."""

from __future__ import annotations

import sys
import time

_START = time.monotonic()


def log(message: str) -> None:
    """Print one progress line, prefixed with the seconds since the process started."""
    print(f"[tnforge {time.monotonic() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)
