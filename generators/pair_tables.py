"""Rows → Arrow tables of the PAIRS and VOCAB_PAIRS schemas, with keys and grammar verdicts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.generators.input_negatives import PairRow
from tnforge.generators.pair_keys import column_hashes, compose, group_hash, type_hash

#: Judges (before, reading, class) triples; see `tnforge.generators.licensing.Licenser`.
Judge = Callable[[Sequence[tuple[str, str, str]]], list[bool]]


def _group_hashes(splits: pa.Array, classes: pa.Array, befores: pa.Array) -> np.ndarray:
    """H(split, class, before) of every row, hashed once per run of equal groups (rows come input by input)."""
    rows = len(befores)
    if rows == 0:
        return np.zeros(0, dtype=np.uint64)
    changed = np.zeros(rows, dtype=bool)
    changed[0] = True
    for column in (splits, classes, befores):
        changed[1:] |= pc.not_equal(column.slice(1), column.slice(0, rows - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(changed)
    parts = [column.take(pa.array(starts)).to_pylist() for column in (splits, classes, befores)]
    hashes = np.fromiter((group_hash(*g) for g in zip(*parts, strict=True)), dtype=np.uint64, count=len(starts))
    return np.repeat(hashes, np.diff(np.append(starts, rows)))


def _keys(splits: pa.Array, classes: pa.Array, befores: pa.Array, values: pa.Array, types: pa.Array) -> np.ndarray:
    """The composed stable key of (split, class, before, value, type) for every row (see `pair_keys`); each
    run of one group, each distinct value and each type is hashed once."""
    encoded = pc.dictionary_encode(types)
    type_hashes = np.array([type_hash(t) for t in encoded.dictionary.to_pylist()], dtype=np.uint64)
    return compose(_group_hashes(splits, classes, befores), column_hashes(values),
                   type_hashes[encoded.indices.to_numpy(zero_copy_only=False)])


def pairs_table(rows: Sequence[PairRow], generator_version: str, judge: Judge | None = None) -> pa.Table:
    """A PAIRS table. With a judge, negatives the grammar licenses become label 1, licensed True (their
    negative_type kept for traceability); judged negatives get licensed False; without a judge, null.

    The dual encoders see no class: a negative whose (before, reading) has label 1 in another row (a licence
    for another class or split) is dropped, so no pair is both a positive and a negative. `rows` must hold
    every row of each of its inputs (the pipeline passes whole inputs). The grammar is asked once per batch."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(PairRow._fields)
    splits, classes, befores, readings, labels, types, subtypes, sources = (list(c) for c in columns)
    label = np.array(labels, dtype=np.int8)
    licensed = pa.nulls(len(rows), pa.bool_())
    keep = None
    if judge is not None:
        negatives = np.flatnonzero(label == 0)
        verdicts = np.array(judge([(befores[i], readings[i], classes[i]) for i in negatives.tolist()]), dtype=bool)
        verdict = np.zeros(len(rows), dtype=bool)
        verdict[negatives] = verdicts
        label[verdict] = 1
        licensed = pa.array(verdict, mask=label_mask(label, verdict))
        accepted = {(befores[i], readings[i]) for i in np.flatnonzero(label == 1).tolist()}
        dropped = [i for i in np.flatnonzero(label == 0).tolist() if (befores[i], readings[i]) in accepted]
        if dropped:
            keep = np.ones(len(rows), dtype=bool)
            keep[dropped] = False
    strings = {name: pa.array(values, type=pa.string()) for name, values in
               (("split", splits), ("class", classes), ("before", befores), ("reading", readings),
                ("negative_type", types))}
    table = pa.table(
        {
            "key": pa.array(_keys(strings["split"], strings["class"], strings["before"], strings["reading"],
                                  strings["negative_type"]), type=pa.uint64()),
            "split": strings["split"],
            "class": strings["class"],
            "before": strings["before"],
            "reading": strings["reading"],
            "label": pa.array(label, type=pa.int8()),
            "negative_type": strings["negative_type"],
            "negative_subtype": pa.array(subtypes, type=pa.string()),
            "licensed": licensed,
            "generator_version": pa.repeat(pa.scalar(generator_version, pa.string()), len(rows)),
            "source_key": pa.array(sources, type=pa.uint64()),
        },
        schema=schemas.PAIRS,
    )
    return table if keep is None else table.filter(pa.array(keep))


def label_mask(label: np.ndarray, verdict: np.ndarray) -> np.ndarray:
    """Rows whose `licensed` is null: the corpus positives (label 1 without a licence)."""
    return (label == 1) & ~verdict
