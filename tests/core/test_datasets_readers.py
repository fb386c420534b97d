"""Every top-level folder of a dataset directory reads whole, with one schema, in pandas, pyarrow.dataset, duckdb,
polars and Hugging Face `datasets`; uint64 keys keep their values and empty datasets or splits break none of them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from tnforge import schemas
from tnforge.datasets import DATASET_DIRS, SPLIT_FREE, read_dataset, write_sharded

#: dataset → its top-level folder; no dataset's folder lies inside another's.
FOLDERS = {"examples": "examples", "sentences": "sentences", "positive_pairs": "positives", "pairs": "pairs",
           "vocab_pairs": "vocab_pairs", "rejects": "rejects"}
#: Read by each library: (rows, column names, {uint64 column: sorted values}).
Read = tuple[int, list[str], dict[str, list[int]]]


def _uint64_columns(name: str) -> list[str]:
    return [f.name for f in schemas.SCHEMAS[name] if f.type == pa.uint64()]


def _pandas(folder: Path, wide: list[str]) -> Read:
    import pandas as pd

    frame = pd.read_parquet(folder)
    assert all(str(frame[c].dtype) == "uint64" for c in wide), frame.dtypes
    return len(frame), list(frame.columns), {c: sorted(frame[c].tolist()) for c in wide}


def _arrow_dataset(folder: Path, wide: list[str]) -> Read:
    import pyarrow.dataset as ds

    table = ds.dataset(folder, format="parquet").to_table()
    assert all(table.schema.field(c).type == pa.uint64() for c in wide)
    return table.num_rows, table.column_names, {c: sorted(table.column(c).to_pylist()) for c in wide}


def _duckdb(folder: Path, wide: list[str]) -> Read:
    import duckdb

    relation = duckdb.sql(f"SELECT * FROM read_parquet('{folder}/**/*.parquet')")
    types = dict(zip(relation.columns, map(str, relation.types), strict=True))
    assert all(types[c] == "UBIGINT" for c in wide), types
    rows = relation.fetchall()
    index = {c: relation.columns.index(c) for c in wide}
    return len(rows), relation.columns, {c: sorted(row[i] for row in rows) for c, i in index.items()}


def _polars(folder: Path, wide: list[str]) -> Read:
    import polars as pl

    frame = pl.read_parquet(f"{folder}/**/*.parquet")
    assert all(frame.schema[c] == pl.UInt64 for c in wide), frame.schema
    assert pl.scan_parquet(f"{folder}/**/*.parquet").select(pl.len()).collect().item() == frame.height
    return frame.height, frame.columns, {c: sorted(frame[c].to_list()) for c in wide}


def _hugging_face(folder: Path, wide: list[str], cache: Path) -> Read:
    """Streaming reads any folder; the cached (non-streaming) load is checked on folders with rows, since
    `datasets` refuses every zero-row source that way ("corresponds to no data"), whatever the files hold."""
    from datasets import load_dataset

    files = sorted(str(p) for p in folder.rglob("*.parquet"))
    streamed = load_dataset("parquet", data_files=files, split="train", streaming=True)
    assert all(streamed.features[c].dtype == "uint64" for c in wide), streamed.features
    rows = list(streamed)
    read = len(rows), list(streamed.features), {c: sorted(row[c] for row in rows) for c in wide}
    if rows:
        loaded = load_dataset("parquet", data_files=files, split="train", cache_dir=str(cache))
        assert all(loaded.features[c].dtype == "uint64" for c in wide), loaded.features
        assert (loaded.num_rows, loaded.column_names, {c: sorted(loaded[c]) for c in wide}) == read
    return read


@pytest.fixture
def readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Callable[[Path, list[str]], Read]]:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    return {"pandas": _pandas, "pyarrow.dataset": _arrow_dataset, "duckdb": _duckdb, "polars": _polars,
            "datasets": lambda folder, wide: _hugging_face(folder, wide, tmp_path / "hf-cache")}


def _expected(table: pa.Table, name: str) -> Read:
    wide = _uint64_columns(name)
    return table.num_rows, schemas.SCHEMAS[name].names, {c: sorted(table.column(c).to_pylist()) for c in wide}


def test_no_dataset_folder_lies_inside_another() -> None:
    assert {name: folder.split("/")[0] for name, folder in DATASET_DIRS.items()} == FOLDERS
    assert len(set(FOLDERS.values())) == len(FOLDERS)


@pytest.mark.parametrize("name", list(FOLDERS))
def test_every_folder_reads_whole_in_every_reader(bundled_build: Path, readers, name: str) -> None:
    folder = bundled_build / FOLDERS[name]
    expected = _expected(read_dataset(bundled_build, name), name)
    if name == "rejects":
        assert expected[0] == 0  # the bundled sample is clean: a whole dataset with no rows
    else:
        assert expected[0] > 0
    for reader, read in readers.items():
        rows, columns, values = read(folder, _uint64_columns(name))
        assert (rows, columns) == expected[:2], reader
        assert values == expected[2], f"{reader} changed uint64 values"


def test_a_split_without_rows_reads_in_every_reader(bundled_build: Path, readers, tmp_path: Path) -> None:
    folder = tmp_path / "positives"
    shutil.copytree(bundled_build / "positives", folder)
    shutil.rmtree(folder / "test")
    write_sharded(schemas.POSITIVE_PAIRS.empty_table(), folder / "test", schemas.POSITIVE_PAIRS, shards=2)
    rows = [read_dataset(bundled_build, "positive_pairs", split) for split in ("train", "dev")]
    expected = _expected(pa.concat_tables(rows), "positive_pairs")
    for reader, read in readers.items():
        got = read(folder, _uint64_columns("positive_pairs"))
        assert got == expected, reader


@pytest.mark.parametrize("name", list(FOLDERS))
def test_an_empty_dataset_reads_in_every_reader(readers, tmp_path: Path, name: str) -> None:
    schema = schemas.SCHEMAS[name]
    folder = tmp_path / FOLDERS[name]
    for split in [None] if name in SPLIT_FREE else list(schemas.SPLITS):
        write_sharded(schema.empty_table(), folder if split is None else folder / split, schema, shards=2)
    for reader, read in readers.items():
        assert read(folder, _uint64_columns(name)) == (0, schema.names, {c: [] for c in _uint64_columns(name)}), reader
