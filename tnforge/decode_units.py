"""Which example rows are decoded together: the same batches whether one process decodes a split or Beam's
workers do (`tnforge.pipelines.inference`), so the hypotheses are the same bytes on any runner.

A batch's composition changes the last bits of its scores (padding and the kernels' summation order depend on
the batch's shape), so batches are never left to a runner's bundling: a *unit* is one row group of one examples
file; its rows (of the split, originals only unless copies are asked for) go in pools of `POOL` rows, each pool
stably sorted by input length (for speed) and cut into batches of `batch_size` rows. Torch-free.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

#: Rows sorted by length together before they are cut into batches (as the single-process decode did).
POOL = 8192
#: Columns of an examples file that decoding carries through when present.
DECODE_COLUMNS = ("key", "source", "sentence_id", "token_index", "copy", "class", "before", "after", "input")

Rows = dict[str, list]


class DecodeUnit(NamedTuple):
    """One row group of one examples file (local path or gs:// URI)."""

    file: str
    row_group: int


def example_files(source: str | os.PathLike, split: str | None = None) -> list[Path] | list[str]:
    """Parquet files of examples: a dataset directory (its `examples/<split>`), a folder of Parquet files (in it
    or its sub-folders: `filesystems.parquet_files`), or one Parquet file, local (Paths) or remote (gs://…
    strings). FileNotFoundError naming the path when nothing is found."""
    from tnforge import datasets
    from tnforge.filesystems import check_path, is_file, is_folder, is_remote, join, parquet_files

    path = check_path(source)
    local = (lambda files: [Path(f) for f in files]) if not is_remote(path) else list
    if is_file(path):
        return local([path])
    if not is_folder(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    if is_folder(join(path, datasets.DATASET_DIRS["examples"])):
        files = datasets.dataset_files(path, "examples", split)
        if not files:
            raise FileNotFoundError(f"{path}: no examples Parquet files for split {split!r}")
        return files
    files = parquet_files(path)
    if not files:
        raise FileNotFoundError(f"{path}: no Parquet files in it or its sub-folders")
    return local(files)


def decode_columns(files: Sequence[object]) -> list[str]:
    """The decode columns present in the first file; ValueError (one line) when it has no `input` column."""
    from tnforge.filesystems import parquet_file

    names = parquet_file(files[0]).schema_arrow.names
    if "input" not in names:  # as `trainers.kernel.examples.iter_rows` says it
        raise ValueError(f"{files[0]}: no column input (it has {', '.join(names) or 'none'}): not an examples file "
                         "of a tnforge dataset")
    return [c for c in DECODE_COLUMNS if c in names]


def decode_units(files: Sequence[object]) -> list[DecodeUnit]:
    """Every row group of the files, in file order."""
    from tnforge.filesystems import parquet_file

    return [DecodeUnit(str(file), group) for file in files
            for group in range(parquet_file(file).metadata.num_row_groups)]


def unit_rows(unit: DecodeUnit, columns: Sequence[str], split: str | None, originals_only: bool) -> Rows:
    """The unit's rows (columns as lists): of `split` when the file has a split column, copy 0 only with
    `originals_only` when it has a copy column."""
    import pyarrow.compute as pc

    from tnforge.filesystems import parquet_file

    parquet = parquet_file(unit.file)
    names = parquet.schema_arrow.names
    use_split = bool(split) and "split" in names
    use_copy = originals_only and "copy" in names
    wanted = list(dict.fromkeys([*columns, *(["split"] if use_split else []), *(["copy"] if use_copy else [])]))
    table = parquet.read_row_group(unit.row_group, columns=wanted)
    if use_split:
        table = table.filter(pc.equal(table.column("split"), split))
    if use_copy:
        table = table.filter(pc.equal(table.column("copy"), 0))
    return {name: table.column(name).to_pylist() for name in columns}


def unit_batches(rows: Rows, batch_size: int, pool: int = POOL) -> Iterator[Rows]:
    """The unit's rows as decode batches: pools of `pool` rows in order, each stably sorted by input length,
    cut into `batch_size` rows."""
    count = len(rows["input"])
    for start in range(0, count, pool):
        order = sorted(range(start, min(start + pool, count)), key=lambda i: len(rows["input"][i]))
        for first in range(0, len(order), batch_size):
            chosen = order[first:first + batch_size]
            yield {name: [values[i] for i in chosen] for name, values in rows.items()}


def batches_of(files: Sequence[object], columns: Sequence[str], split: str | None, batch_size: int,
               originals_only: bool) -> Iterator[Rows]:
    """Every decode batch of the files, unit by unit (what one process decodes in turn)."""
    for unit in decode_units(files):
        yield from unit_batches(unit_rows(unit, columns, split, originals_only), batch_size)


def row_bound(files: Sequence[object]) -> int:
    """Rows of the files, from their footers (no scan): at least the inputs `batches_of` decodes; what the shard
    count of their hypotheses is sized by, the same in one process and on Beam."""
    from tnforge.filesystems import parquet_file

    return sum(parquet_file(file).metadata.num_rows for file in files)


def count_inputs(files: Sequence[object], split: str | None, originals_only: bool) -> int:
    """Rows `batches_of` decodes."""
    return sum(len(unit_rows(unit, ["input"], split, originals_only)["input"]) for unit in decode_units(files))
