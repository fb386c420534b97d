"""Find the Parquet files of each dataset in a directory and read the columns its frames need.

Build datasets follow `tnforge.datasets`; others (a decode's DIR/hypotheses/) are every Parquet file below
DIR/NAME. A file that cannot be read, or whose columns cannot be cast to the schema's types, is skipped
here and said so (`problems`); the schema frame reports it as a failed check naming the file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tnforge import datasets, schemas
from tnforge.schemas import suites


def dataset_files(root: str | os.PathLike, name: str) -> list[Path]:
    """The Parquet files of a dataset in a directory (datasets outside the build layout: DIR/NAME/**)."""
    if name in datasets.DATASET_DIRS:
        return datasets.dataset_files(root, name)
    return sorted((Path(root) / name).rglob("*.parquet"))


def present_datasets(root: str | os.PathLike) -> dict[str, list[Path]]:
    """Every dataset with at least one Parquet file in the directory, with its files."""
    found = {name: dataset_files(root, name) for name in schemas.SCHEMAS}
    return {name: files for name, files in found.items() if files}


def _problem(path: Path, error: Exception) -> str:
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{path}: {reason}"


def read_file(name: str, path: Path, columns: Sequence[str]) -> pa.Table:
    """`columns` of one file (those it has), cast to the schema's types; raises ValueError naming the file."""
    schema = schemas.SCHEMAS[name]
    try:
        names = pq.read_schema(path).names
        table = pq.read_table(path, columns=[c for c in columns if c in names])
        target = pa.schema([pa.field(c, schema.field(c).type) if c in schema.names else table.schema.field(c)
                            for c in table.column_names])
        return table.cast(target) if target != table.schema else table
    except (OSError, pa.ArrowException, ValueError) as error:
        raise ValueError(_problem(path, error)) from error


def row_count(path: Path) -> int:
    """Rows of a Parquet file from its footer (0 when it cannot be read: the schema frame reports it)."""
    try:
        return pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException):
        return 0


def read_rows(name: str, files: list[Path], columns: Sequence[str] | None = None,
              problems: list[str] | None = None) -> pa.Table:
    """The rows of a dataset (`columns`, default the whole schema, where the files have them) + split folder.

    Files that cannot be read are skipped; a line naming each is appended to `problems` when given."""
    wanted = list(columns) if columns is not None else schemas.SCHEMAS[name].names
    tables = []
    for path in files:
        try:
            table = read_file(name, path, wanted)
        except ValueError as error:
            if problems is not None:
                problems.append(f"rows not checked: {error}")
            continue  # reported by the schema frame
        if name in suites.SPLIT_DATASETS:
            table = table.append_column("folder", pa.array([path.parent.name] * table.num_rows, pa.string()))
        tables.append(table)
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="permissive")


def read_columns(root: Path, tables: dict[str, pa.Table], name: str, columns: list[str]) -> pa.Table | None:
    """Some columns of a dataset: from the rows already read when they have them, else from the files."""
    table = tables.get(name)
    if table is not None and set(columns) <= set(table.column_names):
        return table.select(columns)
    parts = []
    for path in dataset_files(root, name):
        try:
            part = read_file(name, path, columns)
        except ValueError:
            continue  # reported by the schema frame
        if set(columns) <= set(part.column_names):
            parts.append(part.select(columns))
    return pa.concat_tables(parts, promote_options="permissive") if parts else None
