"""The one Beam dataset writer: keyed Arrow tables in, every shard file of a dataset directory out.

Rows go to shards by the stable hash of their `key`; each shard is concatenated, sorted and written under
a temporary name, then renamed; shards no row reached are written empty. Works on any Beam filesystem.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import apache_beam as beam
import numpy as np
import pyarrow as pa

from tnforge import schemas
from tnforge.collector import release_memory
from tnforge.datasets import (
    DATASET_DIRS,
    SORT_KEYS,
    SPLIT_FREE,
    shard_name,
    shard_of,
    shard_path,
    shard_table,
    sort_order,
    split_shards,
    write_rows,
    write_shard,
)
from tnforge.filesystems import join, matching, remove, write_atomically
from tnforge.pipelines.shard_pieces import Piece, ShardPieces, SpilledPiece, load

#: (dataset, split, shard): which file a piece of rows belongs to; split is "" for split-free datasets.
ShardKey = tuple[str, str, int]


class ShardReport(NamedTuple):
    """One shard file written, for the manifest."""

    dataset: str
    split: str
    shard: int
    rows: int


def expected_shards(shards: Mapping[str, int], splits: Sequence[str] = schemas.SPLITS) -> list[ShardKey]:
    """Every (dataset, split, shard) a directory holds: split-free datasets have the one split "".

    In the order the local runner's workers should share them out (it deals a grouping's keys round-robin in
    the order they first arrive): split by split (the first, train, is the largest), each dataset's shards in
    turn, so that one split's datasets, of very different sizes, are dealt out evenly between the workers."""
    order = {split: i for i, split in enumerate(["", *splits])}
    found = [(dataset, split, shard) for dataset, count in shards.items()
             for split in ([""] if dataset in SPLIT_FREE else splits) for shard in range(count)]
    return sorted(found, key=lambda key: order[key[1]])  # stable: datasets in the order given, then shards


def piece_digest(table: pa.Table) -> str:
    """A name for a piece of rows that depends on its keys only: a retried step writes the same piece."""
    keys = table.column("key").to_numpy() if table.num_rows else b""
    return hashlib.blake2b(bytes(keys) + table.num_rows.to_bytes(8, "little"), digest_size=10).hexdigest()


class _AssignShards(beam.DoFn):
    """((dataset, split), table) → ((dataset, split, shard), rows) for each shard its rows reach; with scratch
    set, the table is spilled once (`spill_by_shard`) and each shard gets its batches' place in the file."""

    def __init__(self, shards: Mapping[str, int], scratch: str | None) -> None:
        self._shards = dict(shards)
        self._scratch = scratch

    def process(self, element: tuple[tuple[str, str], pa.Table]) -> Iterator[tuple[ShardKey, pa.Table | SpilledPiece]]:
        (dataset, split), table = element
        if self._scratch is not None:
            yield from spill_by_shard(self._scratch, dataset, split or "", table, self._shards[dataset])
            return
        for shard, part in split_shards(table, self._shards[dataset]).items():
            yield (dataset, split or "", shard), part


def spill_by_shard(scratch: str, dataset: str, split: str, table: pa.Table,
                   count: int) -> list[tuple[ShardKey, SpilledPiece]]:
    """Write a table's rows to one Arrow file under scratch (named by its keys), grouped by shard (in their
    order within each shard), each shard's rows in record batches of their own; return each shard's piece."""
    if not table.num_rows:
        return []
    if count > 1:
        index = shard_of(table.column("key").to_numpy(), count)
        # Shard indices are small: as int16 numpy's stable sort is a radix sort (≈ 5× faster than on int64).
        order = np.argsort(index.astype(np.int16) if count <= np.iinfo(np.int16).max else index, kind="stable")
        table = table.take(order)
        bounds = np.concatenate(([0], np.cumsum(np.bincount(index, minlength=count)))).tolist()
    else:
        bounds = [0, table.num_rows]
    path = join(scratch, f"{dataset}-{split or 'all'}-{piece_digest(table)}.arrow")
    pieces = []
    with write_atomically(path) as handle, pa.ipc.new_file(handle, table.schema) as writer:
        batches = 0
        for shard in range(count):
            rows = table.slice(bounds[shard], bounds[shard + 1] - bounds[shard])
            if not rows.num_rows:
                continue
            written = rows.to_batches()
            for batch in written:
                writer.write_batch(batch)
            pieces.append(((dataset, split, shard), (path, batches, batches + len(written))))
            batches += len(written)
    return pieces


def spill(scratch: str, key: ShardKey, table: pa.Table) -> str:
    """Write a piece of one shard to an Arrow file under scratch (named by its keys); return its path."""
    dataset, split, shard = key
    path = join(scratch, f"{dataset}-{split or 'all'}-{shard:05d}-{piece_digest(table)}.arrow")
    with write_atomically(path) as handle, pa.ipc.new_file(handle, table.schema) as writer:
        writer.write_table(table)
    return path


class _WriteShard(beam.DoFn):
    """Concatenate the pieces of one shard (in a fixed order), sort and write its file; deletes nothing."""

    def __init__(self, root: str, shards: Mapping[str, int], release: bool = False,
                 summarize: Summarize | None = None) -> None:
        self._root = root
        self._shards = dict(shards)
        self._release = release
        self._summarize = summarize

    def process(self, element: tuple[ShardKey, Iterable[Piece | None]]) -> Iterator[Any]:
        key, pieces = element
        yield write_pieces(self._root, key, self._shards[key[0]], pieces, self._release, self._summarize)


#: summarize(dataset, the shard's table as written) → a small summary of it (e.g. counts).
Summarize = Callable[[str, pa.Table], Any]


def write_pieces(root: str, key: ShardKey, count: int, pieces: Iterable[Piece | None],
                 release: bool = False, summarize: Summarize | None = None) -> Any:
    """Write shard `key` (of `count`) from its pieces (tables, spilled paths, or None for none); `release`:
    hand the freed memory back to the system after (`collector.release_memory`). Returns its ShardReport, or
    (report, summarize(dataset, table written)) when `summarize` is given.

    Without `summarize`, local pieces are read a column at a time (`ShardPieces`): the writer holds the sort
    key, one row group and one column of the shard, not the whole shard beside its sorted row group."""
    dataset, split, shard = key
    schema = schemas.SCHEMAS[dataset]
    path = shard_path(root, dataset, split or None, shard, count)
    summary = None
    if summarize is not None:  # it sees the rows in their written order, all at once
        table = shard_table(_concatenated(pieces, schema), schema)
        write_shard(table, path, schema, prepared=True)
        rows, summary = table.num_rows, summarize(dataset, table)
        del table
    else:
        source = ShardPieces(pieces, schema, piece_digest)
        rows = source.num_rows
        columns = SORT_KEYS.get(dataset)
        order = None
        if columns and rows:
            order = sort_order(pa.table({name: source.column(name) for name in columns}), columns)
        write_rows(path, schema, rows, order, source.column)
        del source
    if release:  # the shard's sorted copy and Parquet buffers are freed: give them back
        release_memory()
    report = ShardReport(dataset, split, shard, rows)
    return report if summarize is None else (report, summary)


def _concatenated(pieces: Iterable[Piece | None], schema: pa.Schema) -> pa.Table:
    """The rows of a shard's pieces, in a fixed order (by their keys' digest)."""
    tables = [load(p) for p in pieces if p is not None]
    tables.sort(key=piece_digest)
    return pa.concat_tables(tables) if tables else schema.empty_table()


def remove_stale_shards(root: str, dataset: str, split: str, count: int) -> None:
    """Delete shard files of another shard count (an earlier run's) from one (dataset, split) folder."""
    folder = join(root, *DATASET_DIRS[dataset].split("/"), *([split] if split else []))
    expected = {shard_name(i, count) for i in range(count)}
    for path in matching(join(folder, "part-*-of-*.parquet")):
        if path.rsplit("/", 1)[-1] not in expected:
            remove(path)


class WriteDataset(beam.PTransform):
    """Write ((dataset, split), Arrow table) elements as the sharded Parquet files of a dataset directory.

    Input: one PCollection, or a tuple of them (each is split into shard pieces where it is produced, so
    with a scratch folder only paths cross stage boundaries: a runner that buffers a Flatten's inputs in
    memory never holds the tables). shards: shard count of each dataset written (every one of its shards
    is written, empty or not); splits: the splits of split datasets; scratch: a folder for pieces between
    grouping steps (None: the tables travel through the shuffle); release: each shard's writer hands freed
    memory back to the system (for worker processes whose sum of memory counts); summarize: a function of
    (dataset, table written) run on each shard as it is written. Output: a ShardReport per file, or
    (ShardReport, summary) with `summarize`. Nothing here deletes its inputs.
    """

    def __init__(self, root: str, shards: Mapping[str, int], splits: Sequence[str] = schemas.SPLITS,
                 scratch: str | None = None, release: bool = False, summarize: Summarize | None = None) -> None:
        super().__init__()
        self._root = str(root)
        self._shards = dict(shards)
        self._splits = tuple(splits)
        self._scratch = scratch
        self._release = release
        self._summarize = summarize

    def expand(self, tables: beam.PCollection | tuple[beam.PCollection, ...]) -> beam.PCollection:
        inputs = tuple(tables) if isinstance(tables, (tuple, list)) else (tables,)
        pipeline = inputs[0].pipeline
        expected = expected_shards(self._shards, self._splits)
        assign = _AssignShards(self._shards, self._scratch)
        pieces = [pc | f"AssignShards{'' if i == 0 else i}" >> beam.ParDo(assign) for i, pc in enumerate(inputs)]
        # Not reshuffled: the keys reach the grouping first and in this order, which spreads the shards'
        # writing evenly over the local runner's workers (`expected_shards`).
        empty = pipeline | "EveryShard" >> beam.Create([(key, None) for key in expected], reshuffle=False)
        folders = sorted({(dataset, split, self._shards[dataset]) for dataset, split, _ in expected})
        _ = (pipeline | "Folders" >> beam.Create(folders)
             | "RemoveStaleShards" >> beam.Map(lambda folder, root: remove_stale_shards(root, *folder), self._root))
        return ((*pieces, empty) | "WithEmptyShards" >> beam.Flatten() | "ByShard" >> beam.GroupByKey()
                | "WriteShards" >> beam.ParDo(_WriteShard(self._root, self._shards, self._release, self._summarize)))
