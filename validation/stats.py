"""The counts each chunk of a shard contributes to the aggregate frames (shares, up-sampling targets,
standard split, negative ratios, manifest reconciliation): computed with pyarrow, added up over shards.
"""

from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.schemas.suites import SuiteParams
from tnforge.sources import SYNTHESIZED_MARK
from tnforge.validation.combine import Partial

#: Columns the counts of each dataset read (also when only the manifest is checked).
STATS_COLUMNS: dict[str, tuple[str, ...]] = {
    "examples": ("split", "class", "trivial", "copy", "before", "source", "line"),
    "rejects": ("reason",),
    "pairs": ("split", "label", "negative_type"),
}


def count_by(table: pa.Table, keys: list[str]) -> dict[tuple, int]:
    """Rows per distinct value of `keys` ({} when the table is empty or lacks a key column)."""
    if not table.num_rows or any(k not in table.column_names for k in keys):
        return {}
    grouped = table.group_by(keys).aggregate([([], "count_all")])
    columns = [grouped.column(k).to_pylist() for k in keys]
    return dict(zip(zip(*columns, strict=True), grouped.column("count_all").to_pylist(), strict=True))


def _has(table: pa.Table, *columns: str) -> bool:
    return set(columns) <= set(table.column_names)


def add_counts(partial: Partial, dataset: str, table: pa.Table, params: SuiteParams,
               manifest: dict[str, Any] | None) -> None:
    """Add one chunk's counts of `dataset` to `partial` (names "DATASET.what")."""
    if dataset == "examples":
        _examples(partial, table, params, manifest)
    elif dataset == "rejects" and _has(table, "reason"):
        partial.count("rejects.reason", count_by(table, ["reason"]))
    elif dataset == "pairs" and _has(table, "split", "label", "negative_type"):
        typed = table.select(["split", "label", "negative_type"])
        typed = typed.set_column(2, "negative_type", pc.fill_null(typed.column("negative_type"), ""))
        partial.count("pairs.types", count_by(typed, ["split", "label", "negative_type"]))


def _examples(partial: Partial, table: pa.Table, params: SuiteParams, manifest: dict[str, Any] | None) -> None:
    if _has(table, "split", "class"):
        partial.count("examples.split_class", count_by(table, ["split", "class"]))
    if _has(table, "split", "trivial"):
        sampled = _sampled(table)
        partial.count("examples.split_rows", count_by(sampled, ["split"]))
        partial.count("examples.split_trivial", count_by(sampled.filter(pc.fill_null(sampled.column("trivial"),
                                                                                     False)), ["split"]))
    if _has(table, "copy"):
        copy = table.column("copy")
        copied = pc.fill_null(pc.greater(copy, 0), False)
        partial.count("examples.copies", {("kept",): pc.sum(pc.equal(copy, 0)).as_py() or 0,
                                          ("added",): pc.sum(copied).as_py() or 0})
        if _has(table, "split"):
            partial.count("examples.split_copies", count_by(table.filter(copied), ["split"]))
        if _has(table, "split", "source", "line"):
            originals = table.filter(pc.fill_null(pc.equal(copy, 0), False)).select(["split", "source", "line"])
            if originals.num_rows:
                grouped = originals.group_by(["split", "source"]).aggregate(
                    [([], "count_all"), ("line", "min"), ("line", "max")])
                keys = list(zip(grouped.column("split").to_pylist(), grouped.column("source").to_pylist(),
                                strict=True))
                partial.count("examples.standard_rows", dict(zip(keys, grouped.column("count_all").to_pylist(),
                                                                 strict=True)))
                partial.extremes("examples.standard_line",
                                 dict(zip(keys, grouped.column("line_min").to_pylist(), strict=True)),
                                 dict(zip(keys, grouped.column("line_max").to_pylist(), strict=True)))
    if _has(table, "split", "class", "before") and (params.measure_min_count is not None
                                                     or params.cardinal_target is not None):
        _targets(partial, table, params, manifest)


@functools.lru_cache(maxsize=1 << 16)
def measure_unit(before: str) -> str | None:
    from tnforge.tokens import measure_unit

    return measure_unit(before)


@functools.lru_cache(maxsize=1 << 16)
def cardinal_value(before: str) -> int | None:
    from tnforge.tokens import cardinal_value

    return cardinal_value(before)


def _sampled(table: pa.Table) -> pa.Table:
    """The examples the build's sampling decided (synthesized ones are added after it, to rare classes)."""
    if not _has(table, "source"):
        return table
    return table.filter(pc.invert(pc.fill_null(pc.ends_with(table.column("source"), SYNTHESIZED_MARK), False)))


def _targets(partial: Partial, table: pa.Table, params: SuiteParams, manifest: dict[str, Any] | None) -> None:
    """Train examples per MEASURE unit, and of CARDINALs of at least the big-number threshold (the
    functions the build uses, cached: the same tokens recur in every chunk); synthesized examples left out,
    as the build's up-sampling leaves them (their drawn units have no target)."""
    train = _sampled(table.filter(pc.equal(table.column("split"), "train")))
    wanted = [c for c, needed in (("MEASURE", params.measure_min_count), ("CARDINAL", params.cardinal_target))
              if needed is not None]
    train = train.filter(pc.is_in(train.column("class"), value_set=pa.array(wanted)))
    by_before = count_by(train.select(["class", "before"]), ["class", "before"])
    threshold = ((manifest or {}).get("config") or {}).get("cardinal_min_value", 1_000_000)
    units: dict[tuple, int] = {}
    big = 0
    for (cls, before), count in by_before.items():
        if cls == "MEASURE":
            unit = measure_unit(before)
            if unit is not None:
                units[(unit,)] = units.get((unit,), 0) + count
        else:
            value = cardinal_value(before)
            if value is not None and value >= threshold:
                big += count
    partial.count("examples.measure_units", units)
    partial.count("examples.big_cardinals", {(): big})


def trivial_targets() -> pa.Array:
    """The `after` values of trivial examples."""
    return pa.array(sorted(schemas.TRIVIAL_TARGETS))
