"""Pausing Python's cyclic garbage collector around work that makes many small objects holding no cycles.

Reading a corpus file, making a chunk of negatives or checking a batch of readings allocates hundreds of
thousands of small acyclic objects; each full collection would rescan the whole heap (30–40% of the time
otherwise). Reference counting still frees everything; the collector resumes afterwards.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector for a block (re-enabled after, if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
