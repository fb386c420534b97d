"""Find the Parquet files of each dataset in a directory and read the columns its frames need.

Build datasets follow `tnforge.datasets`; others (a decode's DIR/hypotheses/) are every Parquet file below
DIR/NAME. Unreadable files are skipped here: the schema frame reports them.
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


def read_rows(name: str, files: list[Path], columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of a dataset (`columns`, default the whole schema, where the files have them) + split folder."""
    wanted = list(columns) if columns is not None else schemas.SCHEMAS[name].names
    tables = []
    for path in files:
        try:
            names = pq.read_schema(path).names
            table = pq.read_table(path, columns=[c for c in wanted if c in names])
        except (OSError, pa.ArrowException):
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
            if set(columns) <= set(pq.read_schema(path).names):
                parts.append(pq.read_table(path, columns=columns))
        except (OSError, pa.ArrowException):
            continue  # reported by the schema frame
    return pa.concat_tables(parts, promote_options="permissive") if parts else None
