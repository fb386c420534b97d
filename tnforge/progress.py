"""Progress lines for long work, written to standard error."""

from __future__ import annotations

import sys
import time
from typing import Any

_START = time.monotonic()


def log(message: str) -> None:
    """Print one progress line, prefixed with the seconds since the process started."""
    print(f"[tnforge {time.monotonic() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


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
