"""The dataset-wide checks, one key-hash partition at a time: ids unique (a row's id includes its `key`, so
all its duplicates share a partition), label consistency (partitioned by input), and sentence leakage
(partitioned by text hash). Each partition is as large as a dataset's Parquet bytes / the partition count.

`Shuffle` groups pieces by partition in the default in-process run (a Beam GroupByKey does it on a runner):
in memory up to a budget, then spilled to Arrow files in a temporary folder removed afterwards.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from tnforge import schemas
from tnforge.schemas import suites
from tnforge.validation import registry
from tnforge.validation.combine import SHOWN, Partial
from tnforge.validation.engine import Engine
from tnforge.validation.frames import equals_positive
from tnforge.validation.shards import GroupKey, Plan


def combine_pieces(pieces: Iterable[pa.Table]) -> pa.Table:
    tables = [piece for piece in pieces if piece.num_rows]
    return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})


def validate_group(engine: Engine, plan: Plan, key: GroupKey, table: pa.Table) -> Partial:
    """Check one partition of a dataset-wide check; what it contributes."""
    check, dataset, part = key
    partial = Partial()
    tag = (dataset, f"partition {part:05d}", 0)
    if check == "leakage":
        partial.count("sentences.leakage", leakage_counts(table))
        return partial
    frame = registry.DATASETS[dataset].frame(f"{dataset}.{check}")
    try:
        data = labels_frame(table) if check == "labels" else table.to_pandas(split_blocks=True, strings_to_categorical=True)
        partial.add_result(frame.name, engine.validate(frame, data, SHOWN), tag)
    except Exception as error:  # bad data is a failed check, never a crash of the whole run
        partial.error(frame.name, tag, f"error: {type(error).__name__}: {error}")
    return partial


def labels_frame(table: pa.Table):
    """The pairs of one input partition with `equals_positive`: a negative whose (before, reading) is
    accepted (label 1 in pairs, or a positive pair) anywhere in the dataset."""
    frame = table.to_pandas(split_blocks=True)
    accepted = frame.loc[frame["label"] == 1, ["before", "reading"]].rename(columns={"reading": "after"})
    pairs = frame.loc[~frame["positive"]].drop(columns=["positive"]).reset_index(drop=True)
    pairs["equals_positive"] = equals_positive(pairs, accepted)
    return pairs


def leakage_counts(table: pa.Table) -> dict[tuple, int]:
    """Distinct text hashes per split, and how many each split pair shares, in one partition."""
    split = table.column("split").to_numpy(zero_copy_only=False)
    hashes = table.column("text_hash").to_numpy(zero_copy_only=False).astype(np.uint64)
    by_split = {name: np.unique(hashes[split == name]) for name in schemas.SPLITS}
    counts: dict[tuple, int] = {("distinct", name): int(values.size) for name, values in by_split.items()}
    for first, second in suites.LEAK_PAIRS:
        counts[("shared", f"{first}~{second}")] = int(np.intersect1d(by_split[first], by_split[second],
                                                                     assume_unique=True).size)
    return counts


class Shuffle:
    """Pieces grouped by key, in memory up to `budget` bytes, beyond that in Arrow files in a temporary folder."""

    def __init__(self, budget: int = 32 << 20) -> None:
        self.budget = budget
        self._memory: dict[GroupKey, list[pa.Table]] = {}
        self._spilled: dict[GroupKey, list[Path]] = {}
        self._size = 0
        self._folder: Path | None = None

    def add(self, key: GroupKey, table: pa.Table) -> None:
        self._memory.setdefault(key, []).append(table)
        self._size += table.nbytes
        if self._size > self.budget:
            self._spill()

    def _spill(self) -> None:
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="tnforge-validate-"))
        for key, tables in self._memory.items():
            path = self._folder / f"{len(list(self._folder.iterdir())):08d}.arrow"
            table = combine_pieces(tables)
            with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
            self._spilled.setdefault(key, []).append(path)
        self._memory, self._size = {}, 0

    def groups(self) -> Iterator[tuple[GroupKey, pa.Table]]:
        """(key, all its pieces as one table), in key order; each group's memory is freed after it."""
        for key in sorted(set(self._memory) | set(self._spilled)):
            tables = [pa.ipc.open_file(pa.memory_map(str(p))).read_all() for p in self._spilled.pop(key, [])]
            yield key, combine_pieces(tables + self._memory.pop(key, []))

    def close(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
