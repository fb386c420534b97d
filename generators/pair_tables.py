"""Rows → Arrow tables of the PAIRS and VOCAB_PAIRS schemas, with keys and grammar verdicts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from tnforge import schemas
from tnforge.generators.input_negatives import PairRow
from tnforge.generators.pair_keys import compose, group_hash, string_hashes, type_hash

#: Judges (before, reading, class) triples; see `tnforge.generators.licensing.Licenser`.
Judge = Callable[[Sequence[tuple[str, str, str]]], list[bool]]


def _keys(splits: list[str], classes: list[str], befores: list[str], values: list[str], types: list[str]) -> np.ndarray:
    """The composed stable key of (split, class, before, value, type) for every row (see `pair_keys`)."""
    groups: dict[tuple[str, str, str], int] = {}
    group_hashes = np.fromiter(
        (groups.get(g) or groups.setdefault(g, group_hash(*g)) for g in zip(splits, classes, befores, strict=True)),
        dtype=np.uint64, count=len(values),
    )
    type_hashes = np.fromiter((type_hash(t) for t in types), dtype=np.uint64, count=len(types))
    return compose(group_hashes, string_hashes(values), type_hashes)


def pairs_table(rows: Sequence[PairRow], generator_version: str, judge: Judge | None = None) -> pa.Table:
    """A PAIRS table. With a judge, negatives the grammar licenses become label 1, licensed True (their
    negative_type kept for traceability); judged negatives get licensed False; without a judge, null.

    The dual encoders see no class: a negative whose (before, reading) has label 1 in another row (a licence
    for another class or split) is dropped, so no pair is both a positive and a negative. `rows` must hold
    every row of each of its inputs (the pipeline passes one bucket of inputs)."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(PairRow._fields)
    splits, classes, befores, readings, labels, types, subtypes, sources = (list(c) for c in columns)
    licensed: list[bool | None] = [None] * len(rows)
    if judge is not None:
        negatives = [i for i, label in enumerate(labels) if label == 0]
        verdicts = judge([(befores[i], readings[i], classes[i]) for i in negatives])
        for index, verdict in zip(negatives, verdicts, strict=True):
            licensed[index] = verdict
            if verdict:
                labels[index] = 1
        accepted = {(befores[i], readings[i]) for i, label in enumerate(labels) if label == 1}
        kept = [i for i, label in enumerate(labels) if label == 1 or (befores[i], readings[i]) not in accepted]
        if len(kept) < len(labels):
            splits, classes, befores, readings, labels, types, subtypes, sources, licensed = (
                [values[i] for i in kept] for values in
                (splits, classes, befores, readings, labels, types, subtypes, sources, licensed))
    return pa.table(
        {
            "key": pa.array(_keys(splits, classes, befores, readings, types), type=pa.uint64()),
            "split": pa.array(splits, type=pa.string()),
            "class": pa.array(classes, type=pa.string()),
            "before": pa.array(befores, type=pa.string()),
            "reading": pa.array(readings, type=pa.string()),
            "label": pa.array(labels, type=pa.int8()),
            "negative_type": pa.array(types, type=pa.string()),
            "negative_subtype": pa.array(subtypes, type=pa.string()),
            "licensed": pa.array(licensed, type=pa.bool_()),
            "generator_version": pa.array([generator_version] * len(labels), type=pa.string()),
            "source_key": pa.array(sources, type=pa.uint64()),
        },
        schema=schemas.PAIRS,
    )
