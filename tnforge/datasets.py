"""Where each dataset lives in a dataset directory, and how its sharded Parquet files are written and read.

Layout (relative to a dataset directory DIR):
  manifest.json
  examples/{train,dev,test}/part-NNNNN-of-MMMMM.parquet
  sentences/{train,dev,test}/…
  positives/{train,dev,test}/…          positive (class, before, after) pairs with counts
  pairs/{train,dev,test}/…              labelled pairs for the sequence dual encoder
  vocab_pairs/{train,dev,test}/…        labelled (input, word) pairs for the vocabulary filter
  rejects/…                             bad input lines with reasons
Writing follows hash → shard → sort → write to a temporary name → rename.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tnforge import schemas
from tnforge.hashing import mix64

#: Sub-directory of each dataset under DIR; split sub-directories go below it (except rejects).
DATASET_DIRS: dict[str, str] = {
    "examples": "examples",
    "sentences": "sentences",
    "positive_pairs": "positives",
    "pairs": "pairs",
    "vocab_pairs": "vocab_pairs",
    "rejects": "rejects",
}
SPLIT_FREE = frozenset({"rejects"})
#: Columns each dataset is sorted by within a shard.
SORT_KEYS: dict[str, list[str]] = {
    "examples": ["source", "sentence_id", "token_index", "copy"],
    "sentences": ["source", "sentence_id"],
    "positive_pairs": ["class", "before", "after"],
    "pairs": ["class", "before", "label", "reading", "negative_type"],
    "vocab_pairs": ["class", "before", "label", "word", "negative_type"],
    "rejects": ["source", "line"],
    "hypotheses": ["key", "rank"],
}
_SHARD_SALT = 0x5EED5EED5EED5EED


def dataset_path(root: str | os.PathLike, name: str, split: str | None = None) -> Path | str:
    """The folder holding one dataset's (and one split's) Parquet shards: a Path under a local `root`, a
    URI string under a remote one (gs://…)."""
    from tnforge.filesystems import is_remote, join

    parts = [*DATASET_DIRS[name].split("/"), *([split] if split and name not in SPLIT_FREE else [])]
    return join(root, *parts) if is_remote(root) else Path(root).joinpath(*parts)


def shard_name(index: int, count: int) -> str:
    """File name of shard `index` of `count`."""
    return f"part-{index:05d}-of-{count:05d}.parquet"


def shard_of(keys: np.ndarray, count: int) -> np.ndarray:
    """Shard index for each 64-bit key: a stable hash, spread evenly over `count` shards."""
    keys = np.asarray(keys, dtype=np.uint64)
    return (mix64(keys ^ np.uint64(_SHARD_SALT)) % np.uint64(count)).astype(np.int64)


def shard_path(root: str | os.PathLike, name: str, split: str | None, shard: int, count: int) -> str:
    """Path of one shard file of a dataset (and split); `root` may be a gs:// URI."""
    from tnforge.filesystems import join

    parts = DATASET_DIRS[name].split("/")
    if name not in SPLIT_FREE and split:
        parts.append(split)
    return join(root, *parts, shard_name(shard, count))


def split_shards(table: pa.Table, count: int) -> dict[int, pa.Table]:
    """The rows of each non-empty shard of a table, by the stable hash of its `key` column."""
    if not table.num_rows:
        return {}
    if count == 1:
        return {0: table}
    index = shard_of(table.column("key").to_numpy(), count)
    return {int(s): table.filter(pa.array(index == s)) for s in np.unique(index)}


def by_split(table: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """(split, rows) for every split present in a table's `split` column, in split-name order."""
    import pyarrow.compute as pc

    column = table.column("split")
    for split in sorted(pc.unique(column).to_pylist()):
        yield split, table.filter(pc.equal(column, split))


def _ranks(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int] | None:
    """Each value's dense rank in ascending order (nulls last) and the number of ranks, or None for a type
    ranked here only by Arrow's own sort (floating point, nested)."""
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind):
        encoded = pc.dictionary_encode(column)  # distinct values, ranked by Arrow's own (byte-wise) order
        order = pc.sort_indices(encoded.dictionary).to_numpy()
        rank = np.empty(len(order) + 1, dtype=np.int64)
        rank[order] = np.arange(len(order))
        rank[-1] = len(order)  # nulls
        indices = encoded.indices.fill_null(len(order)) if encoded.indices.null_count else encoded.indices
        return rank[indices.to_numpy(zero_copy_only=False)], len(order) + 1
    if not (pa.types.is_integer(kind) or pa.types.is_boolean(kind)) or column.null_count:
        return None
    values = column.to_numpy(zero_copy_only=False)
    if values.dtype == bool:
        return values.astype(np.int64), 2
    low, high = int(values.min()), int(values.max())
    if high - low >= 1 << 62:
        return None
    return (values - values.dtype.type(low)).astype(np.int64), high - low + 1


def sort_order(table: pa.Table, columns: Sequence[str]) -> np.ndarray:
    """Row order of a stable ascending sort by `columns` (nulls last): the order `Table.sort_by` gives, found
    on integer ranks (strings ranked through their distinct values), packed into one int64 key when the
    ranks fit (one radix-friendly argsort instead of a comparison sort over several string columns)."""
    ranks = [_ranks(table.column(c)) for c in columns]
    if any(r is None for r in ranks):
        import pyarrow.compute as pc

        return pc.sort_indices(table, sort_keys=[(c, "ascending") for c in columns]).to_numpy()
    size = 1
    for _, count in ranks:
        size *= count
    if size >= 1 << 63:
        return np.lexsort([rank for rank, _ in reversed(ranks)])
    key = np.zeros(table.num_rows, dtype=np.int64)
    for rank, count in ranks:
        key *= count
        key += rank
    return np.argsort(key, kind="stable")


def shard_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table as its shard file holds it: the schema's columns and types, sorted by the dataset's sort key."""
    name = schemas.dataset_name(schema) or ""
    table = table.select(schema.names).cast(schema)
    if name in SORT_KEYS and table.num_rows:
        table = table.take(sort_order(table, SORT_KEYS[name]))
    return table


#: Rows per Parquet row group of a shard file.
ROW_GROUP = 256_000


def write_shard(table: pa.Table, path: str | os.PathLike, schema: pa.Schema, prepared: bool = False) -> None:
    """Sort a table by its dataset's sort key and write it to `path` atomically (temporary name, rename); an
    empty table becomes a file with the schema and no row group, which every Parquet reader takes as 0 rows.
    The sorted rows are taken one row group at a time, so the shard is never held twice (the bytes are those
    of writing the whole sorted table at once). prepared: the table is already `shard_table(table, schema)`."""
    if prepared:
        write_rows(path, schema, table.num_rows, None, table.column, table)
        return
    name = schemas.dataset_name(schema) or ""
    table = table.select(schema.names).cast(schema)
    order = sort_order(table, SORT_KEYS[name]) if name in SORT_KEYS and table.num_rows else None
    write_rows(path, schema, table.num_rows, order, table.column, table)


#: column(name) → one column of a shard's rows, of its schema's type (chunked or not).
ColumnSource = Callable[[str], "pa.ChunkedArray | pa.Array"]


def write_rows(path: str | os.PathLike, schema: pa.Schema, rows: int, order: np.ndarray | None,
               column: ColumnSource, table: pa.Table | None = None) -> None:
    """Write a shard of `rows` rows atomically, `order` (None: as they are) one row group at a time; each row
    group is gathered column by column from `column(name)`, so a source that reads columns on demand holds
    one column of the shard at a time, beside the row group. `table`: the rows as a table, sliced when
    `order` is None. The bytes are those of `pq.write_table` on the sorted rows (row groups of ROW_GROUP)."""
    from tnforge.chunked_take import take
    from tnforge.filesystems import write_atomically

    with write_atomically(str(path)) as handle:
        if not rows:  # schema only, no row group: a 0-row row group breaks Hugging Face `datasets`
            pq.ParquetWriter(handle, schema, compression="zstd").close()
            return
        with pq.ParquetWriter(handle, schema, compression="zstd") as writer:
            for start in range(0, rows, ROW_GROUP):
                if order is None and table is not None:
                    group = table.slice(start, ROW_GROUP)
                else:
                    chosen = np.arange(start, min(rows, start + ROW_GROUP)) if order is None else order[start:start + ROW_GROUP]
                    plans: dict = {}  # where the rows lie, shared by the columns chunked alike
                    group = pa.Table.from_arrays([take(column(name), chosen, plans) for name in schema.names],
                                                 schema=schema)
                writer.write_table(group, row_group_size=ROW_GROUP)
                del group


def write_sharded(table: pa.Table, folder: str | os.PathLike, schema: pa.Schema, shards: int = 1) -> list[str]:
    """Write a whole table as `shards` files under folder, empty shards included (without Beam; the same
    sharding, sorting and writing as `tnforge.pipelines.writer.WriteDataset`)."""
    from tnforge.filesystems import join

    parts = split_shards(table.select(schema.names).cast(schema), shards)
    paths = []
    for shard in range(shards):
        path = join(folder, shard_name(shard, shards))
        write_shard(parts.get(shard, schema.empty_table()), path, schema)
        paths.append(path)
    return paths


def dataset_files(root: str | os.PathLike, name: str, split: str | None = None) -> list[Path] | list[str]:
    """The Parquet files of a dataset (all splits when split is None), sorted by path: Paths under a local
    `root`, URI strings under a remote one. Temporary files of unfinished writes are left out."""
    from tnforge.filesystems import is_remote, list_files

    splits = [None] if name in SPLIT_FREE else [split] if split else list(schemas.SPLITS)
    files = [p for s in splits for p in list_files(dataset_path(root, name, s), "*.parquet")]
    return sorted(files) if is_remote(root) else sorted(Path(p) for p in files)


def read_dataset(
    root: str | os.PathLike, name: str, split: str | None = None, columns: Sequence[str] | None = None
) -> pa.Table:
    """Read one dataset (optionally one split, some columns) of a dataset directory into memory."""
    files = dataset_files(root, name, split)
    schema = schemas.SCHEMAS[name]
    if not files:
        empty = schema if columns is None else pa.schema([schema.field(c) for c in columns])
        return empty.empty_table()
    from tnforge.filesystems import read_parquet

    return pa.concat_tables([read_parquet(f, columns=list(columns) if columns else None) for f in files])


def iter_batches(
    root: str | os.PathLike,
    name: str,
    split: str | None = None,
    columns: Sequence[str] | None = None,
    batch_size: int = 65_536,
) -> Iterator[pa.RecordBatch]:
    """Stream a dataset's rows as record batches without loading it all into memory."""
    from tnforge.filesystems import parquet_file

    for path in dataset_files(root, name, split):
        parquet = parquet_file(path)
        yield from parquet.iter_batches(batch_size=batch_size, columns=list(columns) if columns else None)
