"""Taking rows of a chunked Arrow column without concatenating it first.

Arrow's `ChunkedArray.take` concatenates every chunk of a string or list column into one array before it takes
the rows: a shard made of many pieces briefly holds each column twice. `take` takes each run of rows from the
chunk that holds it instead, so only the rows taken are copied.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: Above this many runs per chunk, rows are gathered chunk by chunk and put back in order with one more take.
RUNS_PER_CHUNK = 4


def take(column: pa.ChunkedArray | pa.Array, indices: np.ndarray) -> pa.Array:
    """`column.take(indices)` as one array (the same values and type), copying only the rows taken."""
    indices = np.asarray(indices, dtype=np.int64)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if len(chunks) == 1:
        return chunks[0].take(pa.array(indices))
    if not len(indices):
        return pa.array([], column.type)
    starts = np.cumsum([0] + [len(chunk) for chunk in chunks])
    chunk_of = np.searchsorted(starts, indices, side="right") - 1
    local = indices - starts[chunk_of]
    runs = np.concatenate(([0], np.flatnonzero(np.diff(chunk_of)) + 1, [len(indices)]))
    if len(runs) - 1 <= RUNS_PER_CHUNK * len(chunks):  # rows come in long runs (a shard sorted by source)
        return pa.concat_arrays([chunks[chunk_of[a]].take(pa.array(local[a:b]))
                                 for a, b in zip(runs[:-1], runs[1:], strict=True)])
    grouped = np.argsort(chunk_of, kind="stable")  # rows interleaved across chunks: one take per chunk
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(chunk_of[grouped])) + 1, [len(indices)]))
    gathered = pa.concat_arrays([chunks[chunk_of[grouped[a]]].take(pa.array(local[grouped[a:b]]))
                                 for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    back = np.empty_like(grouped)
    back[grouped] = np.arange(len(grouped))
    return gathered.take(pa.array(back))
