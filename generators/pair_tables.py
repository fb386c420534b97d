"""Rows → Arrow tables of the PAIRS and VOCAB_PAIRS schemas, with keys and grammar verdicts."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.generators.input_negatives import PairRow, rows_table
from tnforge.generators.pair_keys import array_hashes, compose, group_hashes, type_hash

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
    hashes = group_hashes(*parts)
    return np.repeat(hashes, np.diff(np.append(starts, rows)))


def _keys(splits: pa.Array, classes: pa.Array, befores: pa.Array, value_hashes: np.ndarray,
          types: pa.Array) -> np.ndarray:
    """The composed stable key of (split, class, before, value, type) for every row (see `pair_keys`); each
    run of one group and each type is hashed once."""
    encoded = pc.dictionary_encode(types)
    type_hashes = np.array([type_hash(t) for t in encoded.dictionary.to_pylist()], dtype=np.uint64)
    return compose(_group_hashes(splits, classes, befores), value_hashes,
                   type_hashes[encoded.indices.to_numpy(zero_copy_only=False)])


def _codes(column: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Dictionary codes (int64) and the distinct values of a column."""
    encoded = pc.dictionary_encode(column)
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary


def _verdicts(judge: Judge, befores: pa.Array, readings: pa.Array, classes: pa.Array) -> np.ndarray:
    """The judge's verdicts on columns (its `columns` when it has one, else on (before, reading, class) triples)."""
    columns = getattr(judge, "columns", None)
    if callable(columns):
        return np.asarray(columns(befores, readings, classes), dtype=bool)
    items = list(zip(befores.to_pylist(), readings.to_pylist(), classes.to_pylist(), strict=True))
    return np.array(judge(items) if items else [], dtype=bool)


def _reading_hashes(rows: pa.Table, code: np.ndarray, distinct: pa.Array) -> np.ndarray:
    """H(reading) of every row: from the rows' `reading_hash` column where it is known, else each distinct
    reading hashed once."""
    hashes = np.zeros(len(distinct), dtype=np.uint64)
    have = np.zeros(len(distinct), dtype=bool)
    if "reading_hash" in rows.column_names:
        given = rows.column("reading_hash").combine_chunks()
        known = given.is_valid().to_numpy(zero_copy_only=False)
        hashes[code[known]] = given.filter(pa.array(known)).to_numpy(zero_copy_only=False)
        have[code[known]] = True
    missing = np.flatnonzero(~have)
    hashes[missing] = array_hashes(distinct.take(pa.array(missing)))
    return hashes[code]


def pairs_table(rows: Sequence[PairRow], generator_version: str, judge: Judge | None = None) -> pa.Table:
    """`columns_table` of rows given as `PairRow`s."""
    return columns_table(rows_table(rows), generator_version, judge)


def columns_table(rows: pa.Table, generator_version: str, judge: Judge | None = None) -> pa.Table:
    """A PAIRS table from pair rows as columns (`input_negatives.ROW_SCHEMA`, or `CHUNK_SCHEMA` with the readings'
    hashes where known). With a judge, negatives the
    grammar licenses become label 1, licensed True (their negative_type kept for traceability); judged
    negatives get licensed False; without a judge, null.

    The dual encoders see no class: a negative whose (before, reading) has label 1 in another row (a licence
    for another class or split) is dropped, so no pair is both a positive and a negative. `rows` must hold
    every row of each of its inputs (the pipeline passes whole inputs). The grammar is asked once per batch."""
    count = rows.num_rows
    splits, classes, befores, readings, types = (
        rows.column(name).combine_chunks() for name in ("split", "class", "before", "reading", "negative_type"))
    label = rows.column("label").to_numpy().astype(np.int8)
    licensed = pa.nulls(count, pa.bool_())
    reading_code, distinct_readings = _codes(readings)
    reading_hashes = _reading_hashes(rows, reading_code, distinct_readings)
    keep = None
    if judge is not None:
        negatives = np.flatnonzero(label == 0)
        take = pa.array(negatives)
        verdict = np.zeros(count, dtype=bool)
        verdict[negatives] = _verdicts(judge, befores.take(take), readings.take(take), classes.take(take))
        label[verdict] = 1
        licensed = pa.array(verdict, mask=label_mask(label, verdict))
        accepted = label == 1
        if not accepted.all():
            before_code, _ = _codes(befores)
            pair = before_code * max(len(distinct_readings), 1) + reading_code
            dropped = ~accepted & np.isin(pair, pair[accepted])
            if dropped.any():
                keep = ~dropped
    table = pa.table(
        {
            "key": pa.array(_keys(splits, classes, befores, reading_hashes, types), type=pa.uint64()),
            "split": splits,
            "class": classes,
            "before": befores,
            "reading": readings,
            "label": pa.array(label, type=pa.int8()),
            "negative_type": types,
            "negative_subtype": rows.column("negative_subtype").combine_chunks(),
            "licensed": licensed,
            "generator_version": pa.repeat(pa.scalar(generator_version, pa.string()), count),
            "source_key": rows.column("source_key").combine_chunks(),
        },
        schema=schemas.PAIRS,
    )
    return table if keep is None else table.filter(pa.array(keep))


def label_mask(label: np.ndarray, verdict: np.ndarray) -> np.ndarray:
    """Rows whose `licensed` is null: the corpus positives (label 1 without a licence)."""
    return (label == 1) & ~verdict
