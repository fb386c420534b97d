"""Pausing Python's cyclic garbage collector around work that makes many small objects holding no cycles.

Reading a corpus file, making a chunk of negatives or checking a batch of readings allocates hundreds of
thousands of small acyclic objects; each full collection would rescan the whole heap (30–40% of the time
otherwise). Reference counting still frees everything; the collector resumes afterwards.
"""

from __future__ import annotations

import contextlib
import gc
import os
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


def release_memory() -> None:
    """Hand freed memory back to the operating system: Arrow's pool (mimalloc keeps what tables freed) and the C
    heap (`malloc_trim`, where glibc offers it). A worker process calls this between pieces of work (a file
    read, a chunk of negatives, a shard written), so its resident size follows what it holds, not its peak."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


#: glibc's mallopt parameter for the number of malloc arenas.
_M_ARENA_MAX = -8


@contextlib.contextmanager
def few_malloc_arenas(arenas: int = 2) -> Iterator[None]:
    """Cap glibc's malloc arenas in this process and in the processes it starts meanwhile (MALLOC_ARENA_MAX).

    Beam's local runner decodes and encodes elements on dozens of threads; glibc gives each thread its own
    arena, whose freed memory stays resident (≈ 200 MB more in the driver of a two-worker negatives run).
    A no-op for the allocation limits where glibc is not the C library."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(_M_ARENA_MAX, arenas)
    previous = os.environ.get("MALLOC_ARENA_MAX")
    os.environ["MALLOC_ARENA_MAX"] = str(arenas)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MALLOC_ARENA_MAX", None)
        else:
            os.environ["MALLOC_ARENA_MAX"] = previous


@contextlib.contextmanager
def trimming(interval: float = 1.0) -> Iterator[None]:
    """Hand the C heap's free memory back every `interval` seconds while a block runs (a background thread
    calling `malloc_trim`): a Beam driver decodes and re-encodes elements on its threads and would otherwise
    stay at the peak of those buffers. A no-op where glibc is not the C library."""
    trim = _malloc_trim()
    if trim is None:
        yield
        return
    import threading

    done = threading.Event()

    def run() -> None:
        while not done.wait(interval):
            trim(0)

    thread = threading.Thread(target=run, name="tnforge-trim", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _malloc_trim():  # noqa: ANN202 - a ctypes function or None
    libc = _libc()
    return None if libc is None else libc.malloc_trim


_LIBC: list = []


def _libc():  # noqa: ANN202 - glibc through ctypes, or None
    if not _LIBC:
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            _LIBC.append(libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None)
        except OSError:
            _LIBC.append(None)
    return _LIBC[0]
