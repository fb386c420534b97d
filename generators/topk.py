"""Top-k negatives: wrong beam-search hypotheses of a model (schema `tnforge.schemas.HYPOTHESES`).

Every hypothesis that differs from the gold reading (and from every reading the corpus gives as positive
for the input) becomes a negative of type "topk", subtype "rank:N". A hypothesis belongs to the split of
the example it was decoded from (looked up by `key` in DIR/examples); hypotheses whose key is not found
apply to every split in which their input has positives.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple

import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.filesystems import read_parquet
from tnforge.schemas.negative_kinds import TOPK


class Hypothesis(NamedTuple):
    """One hypothesis for an input, with the split of its example (None = unknown)."""

    split: str | None
    semiotic_class: str | None
    gold: str | None
    rank: int
    hypothesis: str


def read_hypotheses(path: str | os.PathLike) -> pa.Table:
    """A hypotheses Parquet file (or a folder of them) checked against the HYPOTHESES schema."""
    from tnforge.filesystems import exists, is_folder, parquet_files

    path = str(path)
    if not exists(path):
        raise FileNotFoundError(f"{path}: no such hypotheses file")
    files = parquet_files(path) if is_folder(path) else [path]
    if not files:
        raise FileNotFoundError(f"{path}: no Parquet files in this folder or its sub-folders")
    tables = []
    for file in files:
        try:
            table = read_parquet(file)
        except (pa.ArrowInvalid, OSError) as error:
            raise ValueError(f"{file}: not a readable Parquet file: {error}") from error
        missing = [name for name in schemas.HYPOTHESES.names if name not in table.column_names]
        if missing:
            raise ValueError(f"{file}: not a hypotheses file: missing column(s) {', '.join(missing)}")
        try:
            tables.append(table.select(schemas.HYPOTHESES.names).cast(schemas.HYPOTHESES))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            raise ValueError(f"{file}: columns do not match the hypotheses schema: {error}") from error
    return pa.concat_tables(tables)


def assign_splits(table: pa.Table, root: str | os.PathLike) -> pa.Table:
    """Add a `split` column: the split of each hypothesis's example in DIR/examples (null when not found)."""
    from tnforge.datasets import dataset_files

    found: dict[int, str] = {}
    wanted = pc.unique(table.column("key"))
    for file in dataset_files(root, "examples"):
        examples = read_parquet(file, columns=["key", "split"])
        examples = examples.filter(pc.is_in(examples.column("key"), value_set=wanted))
        found.update(zip(examples.column("key").to_pylist(), examples.column("split").to_pylist(), strict=True))
    splits = [found.get(key) for key in table.column("key").to_pylist()]
    return table.append_column("split", pa.array(splits, type=pa.string()))


def group_by_before(tables: list[pa.Table]) -> dict[str, list[Hypothesis]]:
    """before → its hypotheses that differ from their gold, best rank first."""
    grouped: dict[str, list[Hypothesis]] = {}
    for table in tables:
        columns = [table.column(c).to_pylist() for c in ("before", "split", "class", "gold", "rank", "hypothesis")]
        for before, split, cls, gold, rank, hypothesis in zip(*columns, strict=True):
            if hypothesis != gold:
                grouped.setdefault(before, []).append(Hypothesis(split, cls, gold, rank, hypothesis))
    for hypotheses in grouped.values():
        hypotheses.sort(key=lambda h: (h.rank, h.hypothesis, h.split or "", h.semiotic_class or "", h.gold or ""))
    return grouped


def topk_candidates(hypotheses: list[Hypothesis], split: str) -> Iterator[tuple[str, str, str, Hypothesis]]:
    """(hypothesis, "topk", "rank:N", the hypothesis) for the hypotheses that apply to a split."""
    for hypothesis in hypotheses:
        if hypothesis.split is None or hypothesis.split == split:
            yield hypothesis.hypothesis, TOPK, f"rank:{hypothesis.rank}", hypothesis
