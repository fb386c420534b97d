"""Find the Parquet files of each dataset in a directory (local or gs://) and read them chunk by chunk.

Build datasets follow `tnforge.datasets`' layout; others (a decode's DIR/hypotheses/) are every Parquet file
below DIR/NAME. A file that cannot be read, or whose columns cannot be cast to the schema's types, raises a
ValueError naming it; the caller skips its rows and the schema frame reports it as a failed check.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from tnforge import datasets, schemas
from tnforge.filesystems import NotParquet, expand, is_remote, join, matching, parquet_file

_SHARD_NAME = re.compile(r"part-(\d+)-of-(\d+)\.parquet$")


@dataclass(frozen=True)
class DataFile:
    """One Parquet file of a dataset: its path, its path relative to the dataset directory, its size."""

    path: str
    relative: str
    size: int = 0

    @property
    def folder(self) -> str:
        """The name of the folder holding the file (the split folder of split datasets)."""
        return self.relative.rsplit("/", 2)[-2] if "/" in self.relative else ""

    @property
    def shards(self) -> int:
        """The shard count its name states (`part-i-of-N.parquet` → N), 1 for other names."""
        found = _SHARD_NAME.search(self.relative)
        return int(found.group(2)) if found else 1


def relative_path(root: str | os.PathLike, path: str) -> str:
    """`path` relative to `root`, with forward slashes (local paths and URIs alike)."""
    base = str(root).rstrip("/")
    path = str(path)
    if is_remote(base):
        return path[len(base) + 1:] if path.startswith(base + "/") else path
    return os.path.relpath(path, base).replace(os.sep, "/")


def _sized(pattern: str) -> list[tuple[str, int]]:
    try:
        return expand(pattern)
    except FileNotFoundError:
        return []


def dataset_files(root: str | os.PathLike, name: str, split: str | None = None) -> list[DataFile]:
    """The Parquet files of a dataset (one split, or all), sorted by path; outside the build layout
    (hypotheses) every Parquet file below DIR/NAME."""
    root = str(root)
    if name in datasets.DATASET_DIRS:
        folder = join(root, *datasets.DATASET_DIRS[name].split("/"))
        if name in datasets.SPLIT_FREE:
            patterns = [join(folder, "*.parquet")]
        else:
            patterns = [join(folder, s, "*.parquet") for s in ([split] if split else schemas.SPLITS)]
    elif is_remote(root):
        patterns = [join(root, name, "**.parquet")]
    else:
        local = sorted((str(p), p.stat().st_size) for p in Path(root, name).rglob("*.parquet") if p.is_file())
        return [DataFile(path, relative_path(root, path), size) for path, size in local if not _is_temporary(path)]
    found = [item for pattern in patterns for item in _sized(pattern) if not _is_temporary(item[0])]
    return [DataFile(path, relative_path(root, path), size) for path, size in sorted(set(found))]


def _is_temporary(path: str) -> bool:
    return path.rsplit("/", 1)[-1].startswith(".tmp-")


def present_datasets(root: str | os.PathLike) -> dict[str, list[DataFile]]:
    """Every dataset with at least one Parquet file in the directory, with its files."""
    found = {name: dataset_files(root, name) for name in schemas.SCHEMAS}
    return {name: files for name, files in found.items() if files}


def folder_state(root: str | os.PathLike, name: str, split: str | None) -> tuple[str, str]:
    """(folder relative to root, "present" or what is missing) of one dataset (split) folder."""
    parts = [*datasets.DATASET_DIRS[name].split("/"), *([split] if split and name not in datasets.SPLIT_FREE else [])]
    folder = join(str(root), *parts)
    relative = "/".join(parts) + "/"
    if is_remote(folder):
        exists = bool(matching(folder.rstrip("/") + "/**"))
    else:
        exists = os.path.isdir(folder)
    if not exists:
        return relative, "missing: no such folder"
    return relative, "present" if dataset_files(root, name, split) else "missing: no Parquet file in the folder"


def problem(path: str, error: Exception) -> str:
    """`path: first line of the error` (the error's type when it has no message)."""
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{path}: {reason}"


_last_remote: tuple[str, object] | None = None


def _open(path: str):
    """`filesystems.parquet_file` (a remote shard downloaded whole), keeping the last remote file read (its footer, schema and rows are read
    in turn: one download per shard)."""
    global _last_remote
    last = _last_remote
    if last is not None and last[0] == path:
        return last[1]
    parquet = parquet_file(path, download=True)
    if is_remote(path):
        _last_remote = (path, parquet)
    return parquet


def read_schema(path: str) -> pa.Schema:
    """The Arrow schema (with metadata) of a Parquet file."""
    return _open(path).schema_arrow


def row_count(path: str) -> int:
    """Rows of a Parquet file from its footer (0 when it cannot be read: the schema frame reports it)."""
    try:
        return _open(path).metadata.num_rows
    except (OSError, pa.ArrowException, NotParquet):
        return 0


def read_chunks(name: str, path: str, columns: Sequence[str], rows: int) -> Iterator[pa.Table]:
    """`columns` of a file (those it has), `rows` at a time, cast to the schema's types; a ValueError naming
    the file when it cannot be read or cast."""
    schema = schemas.SCHEMAS[name]
    try:
        parquet = _open(path)
        names = parquet.schema_arrow.names
        wanted = [c for c in columns if c in names]
        target = pa.schema([schema.field(c) if c in schema.names else parquet.schema_arrow.field(c) for c in wanted])
        target = pa.schema([pa.field(f.name, f.type) for f in target])
        batches = parquet.iter_batches(batch_size=rows, columns=wanted) if parquet.metadata.num_rows else iter(())
        for batch in batches:
            table = pa.Table.from_batches([batch])
            yield table.cast(target) if table.schema != target else table
    except (OSError, pa.ArrowException, ValueError) as error:
        raise ValueError(problem(path, error)) from error


def read_columns(name: str, path: str, columns: Sequence[str]) -> pa.Table:
    """`columns` of a whole file (those it has), cast to the schema's types; a ValueError naming the file."""
    parts = list(read_chunks(name, path, columns, 1 << 20))
    if parts:
        return pa.concat_tables(parts)
    schema = schemas.SCHEMAS[name]
    try:
        names = read_schema(path).names
    except (OSError, pa.ArrowException, NotParquet) as error:
        raise ValueError(problem(path, error)) from error
    return pa.schema([pa.field(c, schema.field(c).type) for c in columns if c in names]).empty_table()


def read_rows(name: str, files: Sequence[DataFile], columns: Sequence[str] | None = None,
              problems: list[str] | None = None) -> pa.Table:
    """The rows of a dataset's files (`columns`, default the whole schema) + split folder, in memory: for
    small datasets and tests. Unreadable files are skipped, each named in `problems` when given."""
    wanted = list(columns) if columns is not None else schemas.SCHEMAS[name].names
    tables = []
    for item in files:
        try:
            table = read_columns(name, item.path, wanted)
        except ValueError as error:
            if problems is not None:
                problems.append(f"rows not checked: {error}")
            continue
        tables.append(table.append_column("folder", pa.array([item.folder] * table.num_rows, pa.string())))
    return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})

