"""The per-shard work of a validation, the same on every runner: read one Parquet file chunk by chunk, run
its rows suite on each chunk, add up the counts the aggregate frames need, and cut out the pieces the
dataset-wide checks group by key hash (ids, label consistency, leakage).

Peak memory is one chunk (`Plan.chunk_rows` rows) plus the pieces, however large the dataset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.datasets import shard_of
from tnforge.schemas import suites
from tnforge.schemas.suites import SuiteParams
from tnforge.validation import registry
from tnforge.validation.combine import SHOWN, Partial
from tnforge.validation.engine import Engine
from tnforge.validation.frames import rows_frame, schema_rows
from tnforge.validation.reading import DataFile, read_chunks, row_count
from tnforge.validation.stats import STATS_COLUMNS, add_counts

#: Rows of a shard validated at a time.
CHUNK_ROWS = 65_536
#: Compressed Parquet bytes per key-hash partition of the dataset-wide checks.
PARTITION_BYTES = 4 << 20
#: (check, dataset, partition): which group a piece of rows belongs to.
GroupKey = tuple[str, str, int]
_LABEL_COLUMNS = ("split", "before", "reading", "label", "negative_type")


@dataclass(frozen=True)
class Unit:
    """One file to validate: its dataset, and "full" (every check), "counts" (only what the manifest and
    the label check need from it) or "footer" (its row count)."""

    dataset: str
    file: DataFile
    mode: str


@dataclass(frozen=True)
class Plan:
    """What every worker needs: the directory, its manifest and parameters, the datasets checked, and the
    number of key-hash partitions of each dataset-wide check."""

    root: str
    manifest: dict[str, Any] | None
    params: SuiteParams
    wanted: tuple[str, ...]
    partitions: dict[str, int] = field(default_factory=dict)  # "ids.DATASET", "labels", "leakage" → count
    chunk_rows: int = CHUNK_ROWS

    def checks(self, name: str) -> bool:
        return name in self.wanted


def partitions(files: list[DataFile]) -> int:
    """Key-hash partitions for files of this total size: each about `PARTITION_BYTES` of Parquet."""
    return max(1, math.ceil(sum(f.size for f in files) / PARTITION_BYTES))


def make_plan(root: str, manifest: dict[str, Any] | None, params: SuiteParams, wanted: list[str],
              present: dict[str, list[DataFile]], chunk_rows: int = CHUNK_ROWS) -> tuple[Plan, list[Unit]]:
    """The plan and the files to read: those of the wanted datasets, and those the manifest's checks count."""
    counts = {"examples", "rejects", "pairs"} if "manifest" in wanted else set()
    if "pairs" in wanted:
        counts.add("positive_pairs")
    units = []
    for name, files in present.items():
        mode = "full" if name in wanted else "counts" if name in counts else "footer"
        if mode == "footer" and "manifest" not in wanted:
            continue
        units += [Unit(name, item, mode) for item in files]
    parts = {f"ids.{name}": partitions(files) for name, files in present.items()}
    parts["labels"] = partitions(present.get("pairs", []) + present.get("positive_pairs", []))
    parts["leakage"] = partitions(present.get("sentences", []))
    return Plan(root, manifest, params, tuple(wanted), parts, chunk_rows), units


def _columns(plan: Plan, unit: Unit) -> list[str]:
    name = unit.dataset
    wanted: list[str] = list(STATS_COLUMNS.get(name, ()))
    if unit.mode == "full":
        wanted += registry.DATASETS[name].columns or schemas.SCHEMAS[name].names
    if name == "positive_pairs" and plan.checks("pairs"):
        wanted += ["split", "before", "after"]
    if name == "pairs" and plan.checks("pairs"):
        wanted += ["licensed"]
    return list(dict.fromkeys(wanted))


def validate_shard(engine: Engine | None, plan: Plan, unit: Unit) -> tuple[Partial, list[tuple[GroupKey, pa.Table]]]:
    """Validate one file: (what it contributes, its pieces for the dataset-wide checks). A file that cannot
    be read contributes a note (and its schema rows, which fail) instead of rows."""
    name, item = unit.dataset, unit.file
    partial = Partial()
    partial.count("files.rows", {(name, item.folder): row_count(item.path)})
    if unit.mode == "footer":
        return partial, []
    if unit.mode == "full":
        partial.schema_rows[name] = schema_rows(name, item)
    found, pieces = Partial(), []
    rows = registry.DATASETS[name].frame(f"{name}.rows")
    try:
        for index, chunk in enumerate(read_chunks(name, item.path, _columns(plan, unit), plan.chunk_rows)):
            if name in suites.SPLIT_DATASETS:
                chunk = chunk.append_column("folder", pa.array([item.folder] * chunk.num_rows, pa.string()))
            add_counts(found, name, chunk, plan.params, plan.manifest)
            pieces += cut_pieces(plan, unit, chunk)
            if unit.mode != "full":
                continue
            found.rows[name] += chunk.num_rows
            tag = (name, item.relative, index)
            try:
                assert engine is not None
                found.add_result(rows.name, engine.validate(rows, rows_frame(name, chunk), SHOWN), tag)
            except Exception as error:  # bad data is a failed check, never a crash of the whole run
                found.error(rows.name, tag, f"error: {type(error).__name__}: {error}")
    except ValueError as error:
        partial.note((name, item.relative, 0), f"{name}: rows not checked: {error}")
        return partial, []
    return partial.merge(found), pieces


def _by_partition(table: pa.Table, part: np.ndarray, check: str, dataset: str) -> list[tuple[GroupKey, pa.Table]]:
    if not table.num_rows:
        return []
    return [((check, dataset, int(p)), table.filter(pa.array(part == p))) for p in np.unique(part)]


def cut_pieces(plan: Plan, unit: Unit, chunk: pa.Table) -> list[tuple[GroupKey, pa.Table]]:
    """The pieces of a chunk for the dataset-wide checks, keyed by (check, dataset, partition)."""
    name, pieces = unit.dataset, []
    if unit.mode == "full" and "key" in chunk.column_names:
        frame = registry.DATASETS[name].frame(f"{name}.ids")
        columns = [c for c in frame.index or () if c in chunk.column_names]
        if set(suites.ID_COLUMNS[name]) <= set(columns):
            keys = pc.fill_null(chunk.column("key").cast(pa.uint64(), safe=False), 0).to_numpy()
            part = shard_of(keys, plan.partitions[f"ids.{name}"])
            pieces += _by_partition(chunk.select(columns), part, "ids", name)
    if plan.checks("pairs") and name in ("pairs", "positive_pairs"):
        labels = label_rows(name, chunk)
        if labels is not None:
            from pandas.util import hash_array

            befores = labels.column("before").to_numpy(zero_copy_only=False)
            part = (hash_array(befores.astype(object)) % np.uint64(plan.partitions["labels"])).astype(np.int64)
            pieces += _by_partition(labels, part, "labels", "pairs")
    if name == "sentences" and unit.mode == "full" and plan.checks("sentences") and {"split", "text_hash"} <= set(
            chunk.column_names) and registry.DATASETS["sentences"].frame("sentences.leakage").applies(plan.params):
        hashes = chunk.select(["split", "text_hash"]).filter(pc.is_valid(chunk.column("text_hash")))
        part = shard_of(hashes.column("text_hash").to_numpy(), plan.partitions["leakage"])
        pieces += _by_partition(hashes, part, "leakage", "sentences")
    return pieces


def label_rows(name: str, chunk: pa.Table) -> pa.Table | None:
    """The rows of pairs (or of positive pairs, as accepted readings) the label-consistency check reads."""
    needed = {"pairs": {"split", "before", "reading", "label"}, "positive_pairs": {"split", "before", "after"}}[name]
    if not needed <= set(chunk.column_names):
        return None
    n = chunk.num_rows
    if name == "positive_pairs":
        columns = [chunk.column("split"), chunk.column("before"), chunk.column("after"),
                   pa.array(np.ones(n, np.int64)), pa.array([""] * n, pa.string()), pa.array(np.ones(n, bool))]
    else:
        kind = chunk.column("negative_type") if "negative_type" in chunk.column_names else pa.nulls(n, pa.string())
        columns = [chunk.column("split"), chunk.column("before"), chunk.column("reading"),
                   chunk.column("label").cast(pa.int64()), pc.fill_null(kind.cast(pa.string()), ""),
                   pa.array(np.zeros(n, bool))]
    return pa.table(columns, names=[*_LABEL_COLUMNS, "positive"])
