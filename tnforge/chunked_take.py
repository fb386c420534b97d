"""Taking rows of a chunked Arrow column without concatenating it first.

Arrow's `ChunkedArray.take` concatenates every chunk of a string or list column into one array before it takes
the rows: a shard made of many pieces briefly holds each column twice. `take` takes each run of rows from the
chunk that holds it instead, so only the rows taken are copied. Where the rows lie (a `TakePlan`) depends only
on the chunks' lengths: the columns of one table share it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: Above this many runs per chunk, rows are gathered chunk by chunk and put back in order with one more take.
RUNS_PER_CHUNK = 4


class TakePlan:
    """Where rows `indices` lie in chunks of `lengths`: each run's chunk and local indices, and (when the rows
    interleave the chunks) the order that puts the rows gathered chunk by chunk back in place."""

    def __init__(self, lengths: tuple[int, ...], indices: np.ndarray) -> None:
        starts = np.cumsum((0, *lengths))
        chunk_of = np.searchsorted(starts, indices, side="right") - 1
        local = indices - starts[chunk_of]
        runs = np.concatenate(([0], np.flatnonzero(np.diff(chunk_of)) + 1, [len(indices)]))
        self.back: pa.Array | None = None
        if len(runs) - 1 > RUNS_PER_CHUNK * max(1, len(lengths)):  # interleaved: one take per chunk, then back
            grouped = np.argsort(chunk_of, kind="stable")
            back = np.empty_like(grouped)
            back[grouped] = np.arange(len(grouped))
            self.back = pa.array(back)
            chunk_of, local = chunk_of[grouped], local[grouped]
            runs = np.concatenate(([0], np.flatnonzero(np.diff(chunk_of)) + 1, [len(indices)]))
        self.runs = [(int(chunk_of[a]), pa.array(local[a:b])) for a, b in zip(runs[:-1], runs[1:], strict=True)]

    def take(self, chunks: list[pa.Array]) -> pa.Array:
        """The planned rows of chunks (of the planned lengths), as one array."""
        gathered = pa.concat_arrays([chunks[chunk].take(local) for chunk, local in self.runs])
        return gathered if self.back is None else gathered.take(self.back)


def take(column: pa.ChunkedArray | pa.Array, indices: np.ndarray,
         plans: dict[tuple[int, ...], TakePlan] | None = None) -> pa.Array:
    """`column.take(indices)` as one array (the same values and type), copying only the rows taken. `plans`: a
    cache of plans by chunk lengths, for several columns taken at the same indices."""
    indices = np.asarray(indices, dtype=np.int64)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if len(chunks) == 1:
        return chunks[0].take(pa.array(indices))
    if not len(indices):
        return pa.array([], column.type)
    lengths = tuple(len(chunk) for chunk in chunks)
    plan = plans.get(lengths) if plans is not None else None
    if plan is None:
        plan = TakePlan(lengths, indices)
        if plans is not None:
            plans[lengths] = plan
    return plan.take(chunks)
