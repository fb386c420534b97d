"""Batches made ahead in a background thread (reading Parquet, encoding text), so the device never waits for
them; the order is the stream's own, so training stays reproducible."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from typing import Any, TypeVar

T = TypeVar("T")
_END = object()


@contextlib.contextmanager
def prefetched(stream: Iterator[T], depth: int = 4) -> Iterator[Iterator[T]]:
    """`stream`'s items, produced up to `depth` ahead by a thread; its errors are raised in the reader. Leaving
    the block stops the thread (items made ahead and not taken are dropped)."""
    items: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in stream:
                while not stop.is_set():
                    try:
                        items.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            items.put(_END)
        except BaseException as error:  # noqa: BLE001 - handed to the reader
            items.put(error)

    def consume() -> Iterator[T]:
        while True:
            item = items.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    thread = threading.Thread(target=produce, name="tnforge-batches", daemon=True)
    thread.start()
    try:
        yield consume()
    finally:
        stop.set()
        thread.join(timeout=5)
