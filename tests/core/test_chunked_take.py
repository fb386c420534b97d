"""tnforge/chunked_take.py: rows of a chunked column, taken without concatenating it, equal Arrow's take."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from tnforge.chunked_take import take


def _column() -> pa.ChunkedArray:
    words = [f"w{i}" if i % 7 else None for i in range(100)]
    lists = [[f"t{i}", f"u{i}"][: i % 3] for i in range(100)]
    return pa.chunked_array([pa.array(list(zip(words, lists, strict=True))[a:b], pa.struct(
        [("word", pa.string()), ("tokens", pa.list_(pa.string()))])) for a, b in ((0, 13), (13, 13), (13, 60), (60, 100))])


def test_take_gives_arrows_rows_in_runs_and_interleaved():
    column = _column()
    runs = np.concatenate([np.arange(60, 80), np.arange(0, 13)[::-1], np.arange(20, 30)])  # a few long runs
    interleaved = np.random.default_rng(3).permutation(100)  # rows from every chunk in turn
    for indices in (runs, interleaved, np.array([], dtype=np.int64), np.array([99, 0, 99])):
        taken = take(column, indices)
        assert isinstance(taken, pa.Array) and taken.type == column.type
        assert taken.equals(column.take(pa.array(indices, pa.int64())).combine_chunks())
    single = pa.chunked_array([pa.array(["a", "b", "c"])])
    assert take(single, np.array([2, 0])).equals(pa.array(["c", "a"]))


def test_a_plan_is_shared_by_columns_chunked_alike():
    column = _column()
    other = pa.chunked_array([chunk.field("word") for chunk in column.chunks])
    indices = np.concatenate([np.arange(60, 80), np.arange(0, 13)])
    plans: dict = {}
    assert take(column, indices, plans).equals(column.take(pa.array(indices)).combine_chunks())
    assert list(plans) == [(13, 0, 47, 40)]
    assert take(other, indices, plans).equals(other.take(pa.array(indices)).combine_chunks()) and len(plans) == 1
