"""Which rank reads what, each epoch: the train data as numbered *units* (up to `UNIT_ROWS` rows of one
Parquet row group, or of rows held in memory), dealt to the ranks in a seeded order.

An epoch's `EpochPlan` lists the units in an order drawn from (seed, epoch) alone — the row groups shuffled,
each one's units kept together — and deals it in contiguous blocks: rank r of W reads the r-th W-th of the
list. Ranks read disjoint parts, every unit once, mostly whole row groups (each row group is read by at most
two ranks), the same way on any machine; the units of a rank differ in number by one at most. A rank's
stream says after each batch how many of its units are finished (`units_done`); a run stopped mid-epoch and
resumed on another world size continues the epoch with the units no rank had finished
(`EpochPlan.remaining`), dealt to the new ranks.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Rows of a unit at most: the grain of dealing data to ranks (and of resuming on another world size).
UNIT_ROWS = 512


@dataclass(frozen=True)
class EpochPlan:
    """The units of one epoch in dealing order, and how many ranks they are dealt to."""

    epoch: int
    order: tuple[int, ...]
    world: int

    def units_of(self, rank: int) -> list[int]:
        """The units rank `rank` reads, in order: its contiguous block of the plan."""
        count = len(self.order)
        return list(self.order[rank * count // self.world: (rank + 1) * count // self.world])

    def remaining(self, units_done: Sequence[int], world: int) -> EpochPlan:
        """The plan of the rest of this epoch for `world` ranks: the units not finished by any rank (rank r
        finished the first `units_done[r]` of its units), in their dealing order."""
        if len(units_done) != self.world:
            raise ValueError(f"{len(units_done)} ranks' progress for a plan dealt to {self.world}")
        finished = {u for r in range(self.world) for u in self.units_of(r)[: units_done[r]]}
        return EpochPlan(self.epoch, tuple(u for u in self.order if u not in finished), world)

    def to_dict(self) -> dict:
        return {"epoch": self.epoch, "order": list(self.order), "world": self.world}

    @classmethod
    def from_dict(cls, data: dict) -> EpochPlan:
        return cls(int(data["epoch"]), tuple(int(u) for u in data["order"]), int(data["world"]))


def epoch_plan(groups: Sequence[int], seed: int, epoch: int, world: int) -> EpochPlan:
    """The seeded plan of a whole epoch for units whose row groups are `groups` (a unit's group number, units
    of a group consecutive): the groups in an order that depends on (seed, epoch) only, each with its units."""
    members: dict[int, list[int]] = {}
    for unit, group in enumerate(groups):
        members.setdefault(group, []).append(unit)
    names = list(members)
    shuffled = np.random.default_rng([seed & 0xFFFFFFFF, epoch, 0x5EED]).permutation(len(names))
    return EpochPlan(epoch, tuple(u for index in shuffled for u in members[names[int(index)]]), world)


def stream_seed(seed: int, epoch: int, rank: int, world: int, resumed: int = 0) -> list[int]:
    """The seed of one rank's shuffling in one epoch (`resumed`: how often the epoch was re-dealt)."""
    return [seed & 0xFFFFFFFF, epoch, rank, world, resumed]


@dataclass(frozen=True)
class ParquetUnit:
    """Rows [start, stop) of one row group of one Parquet file, and how many of them training reads."""

    file: str
    row_group: int
    start: int
    stop: int
    rows: int
    group: int  # the row group's number among all files'
    max_copies: int = 0  # > 0: only rows whose `copy` is below it (the file has the column)


def parquet_units(files: Sequence[str | os.PathLike], max_copies: int = 0,
                  unit_rows: int | None = None) -> list[ParquetUnit]:
    """The units of `files` (each row group cut into slices of `unit_rows`, default UNIT_ROWS) that hold rows to
    train on (with `max_copies` > 0: rows whose `copy` index is below it), in file order."""
    from tnforge.filesystems import parquet_file

    unit_rows = unit_rows or UNIT_ROWS
    units, group_number = [], 0
    for path in files:
        parquet = parquet_file(path)
        counted = max_copies > 0 and "copy" in parquet.schema_arrow.names
        for group in range(parquet.metadata.num_row_groups):
            total = parquet.metadata.row_group(group).num_rows
            keep = None
            if counted and total:
                keep = pc.less(parquet.read_row_group(group, columns=["copy"]).column(0), max_copies)
            for start in range(0, total, unit_rows):
                stop = min(start + unit_rows, total)
                rows = stop - start if keep is None else int(pc.sum(keep.slice(start, stop - start)).as_py() or 0)
                if rows:
                    units.append(ParquetUnit(str(path), group, start, stop, rows, group_number,
                                             max_copies if counted else 0))
            group_number += 1
    return units


@functools.lru_cache(maxsize=2)
def _row_group(file: str, row_group: int, columns: tuple[str, ...]) -> pa.Table:
    from tnforge.filesystems import parquet_file

    return parquet_file(file).read_row_group(row_group, columns=list(columns))


def read_unit(unit: ParquetUnit, columns: Sequence[str]) -> pa.Table:
    """The rows of one unit (only `columns`) that `parquet_units` counted; the last two row groups read are
    kept, so the units of one row group read it once."""
    wanted = tuple(dict.fromkeys([*columns, *(["copy"] if unit.max_copies else [])]))
    table = _row_group(unit.file, unit.row_group, wanted).slice(unit.start, unit.stop - unit.start)
    if unit.max_copies:
        table = table.filter(pc.less(table.column("copy"), unit.max_copies))
    return table.select(list(columns))


def pooled(unit_tables: Iterator[pa.Table], pool_size: int) -> Iterator[tuple[pa.Table, int]]:
    """Whole units gathered into pools of at least `pool_size` rows (the last may be smaller): each pool
    with the number of units finished once it is used up."""
    parts: list[pa.Table] = []
    rows = done = 0
    for table in unit_tables:
        parts.append(table)
        rows += table.num_rows
        done += 1
        if rows >= pool_size:
            yield pa.concat_tables(parts), done
            parts, rows = [], 0
    if parts:
        yield pa.concat_tables(parts), done
