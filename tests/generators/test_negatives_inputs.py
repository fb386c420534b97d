"""The negatives pipeline's scratch input files: every row reaches exactly the unit of its input, reading only
the batches a unit needs, locally and on gs:// (the GCS emulator)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tnforge import datasets
from tnforge.pipelines import negative_inputs
from tnforge.pipelines.negative_inputs import HASH, read_unit_rows, spill_input, unit_pieces
from tnforge.pipelines.negative_units import POSITIVE_COLUMNS, unit_of, unit_range


@pytest.fixture(scope="module")
def positives(bundled_build) -> pa.Table:
    table = datasets.read_dataset(bundled_build, "positive_pairs", columns=POSITIVE_COLUMNS)
    # An input with many rows, so that equal hashes straddle batch boundaries.
    many = pa.table({"key": pa.array(range(10**6, 10**6 + 40), pa.uint64()), "split": ["train"] * 40,
                     "class": ["PLAIN"] * 40, "before": ["same"] * 40, "after": [f"w{i}" for i in range(40)]})
    return pa.concat_tables([table, many.cast(table.schema)])


def _rows(table: pa.Table) -> list[tuple]:
    return sorted(zip(*(table.column(c).to_pylist() for c in POSITIVE_COLUMNS), strict=True))


@pytest.mark.parametrize("units", [1, 3, 64])
def test_each_unit_reads_exactly_its_rows(positives, tmp_path, monkeypatch, units):
    monkeypatch.setattr(negative_inputs, "BATCH_ROWS", 7)
    monkeypatch.setattr(negative_inputs, "MIN_BATCH_ROWS", 7)
    path = spill_input(str(tmp_path), "positives", "source.parquet", positives.slice(0, positives.num_rows))
    assert spill_input(str(tmp_path), "positives", "source.parquet", positives) == path  # named by its source
    expected = unit_of(positives.column("before"), units)
    found = []
    for unit in range(units):
        low, high = unit_range(unit, units)
        table = read_unit_rows(path, low, high)
        assert table.column_names == POSITIVE_COLUMNS and HASH not in table.column_names
        assert set(unit_of(table.column("before"), units).tolist()) <= {unit}
        assert table.num_rows == int((expected == unit).sum())
        found += _rows(table)
    assert sorted(found) == _rows(positives)
    opened = pa.ipc.open_file(pa.memory_map(path))  # batches of 7 rows: a unit reads those overlapping its range
    assert opened.num_record_batches == -(-positives.num_rows // 7)


def test_batches_follow_the_file_size(positives, tmp_path):
    """About BATCHES_PER_FILE batches per file, at least MIN_BATCH_ROWS rows each."""
    big = pa.concat_tables([positives] * (1 + 512 * 256 // positives.num_rows))  # ≥ 512 × 256 rows
    for table, batches in ((positives, 1 + (positives.num_rows - 1) // negative_inputs.MIN_BATCH_ROWS), (big, None)):
        path = spill_input(str(tmp_path), "positives", f"{table.num_rows}", table)
        found = pa.ipc.open_file(pa.memory_map(path)).num_record_batches
        expected = [batches] if batches else range(negative_inputs.BATCHES_PER_FILE - 1, negative_inputs.BATCHES_PER_FILE + 1)
        assert found in expected, (table.num_rows, found)


def test_unit_pieces_from_several_files_on_gcs(gcs, positives, monkeypatch):
    monkeypatch.setattr(negative_inputs, "MIN_BATCH_ROWS", 50)
    scratch = f"{gcs.bucket('neg-inputs')}/scratch"
    half = positives.num_rows // 2
    files = [negative_inputs.InputFile("positives", spill_input(scratch, "positives", name, part), 0)
             for name, part in (("a", positives.slice(0, half)), ("b", positives.slice(half)))]
    files.append(negative_inputs.InputFile("positives", None, 0))  # a file without rows
    files.append(negative_inputs.InputFile("positives", spill_input(scratch, "positives", "c", positives.slice(0, 0)), 0))
    found = []
    for unit in range(5):
        got, pieces = unit_pieces(unit, files, 5)
        assert got == unit and all(kind == "positives" for kind, _ in pieces)
        for _, table in pieces:
            assert set(unit_of(table.column("before"), 5).tolist()) == {unit}
            found += _rows(table)
    assert sorted(found) == _rows(positives)


def test_context_tasks_make_the_whole_context(bundled_build):
    """The context's parts, one task per (split, part), each reading its split's files only, put together in any
    order: the same tables as the context built from every positive file at once; the first split's parts
    come first among the tasks (dealt to different workers)."""
    from tnforge.generators.negative_context import CONTEXT_PARTS, assemble_context, build_context
    from tnforge.pipelines.negative_inputs import CONTEXT, context_part, input_tasks

    tasks = input_tasks(str(bundled_build), trivial=True, topk_from=None)
    contexts = [path for kind, path in tasks if kind == CONTEXT]
    assert [path for _, path in tasks[:len(CONTEXT_PARTS)]] == [f"train {part}" for part in CONTEXT_PARTS]
    parts = [found for task in reversed(contexts) for found in context_part(str(bundled_build), task, 0)]
    assert {(split, part) for split, part, _ in parts} == {tuple(task.split(" ")) for task in contexts}
    tables = [datasets.read_dataset(bundled_build, "positive_pairs", columns=POSITIVE_COLUMNS)]
    whole = build_context(tables, 0)
    assembled = assemble_context(parts)
    assert sorted(assembled) == sorted(whole) and len(whole) >= 2
    for split, context in whole.items():
        for name in ("suffix_table", "global_pool", "class_pools", "global_vocab", "class_vocab"):
            assert getattr(assembled[split], name) == getattr(context, name), (split, name)
        assert assembled[split].vocab_hashes.tolist() == context.vocab_hashes.tolist()
        assert {c: v.tolist() for c, v in assembled[split].class_vocab_ids.items()} == \
            {c: v.tolist() for c, v in context.class_vocab_ids.items()}
