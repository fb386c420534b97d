"""The one Beam dataset writer (pipelines/writer.py) on the local runner: shards, sort, empty shards, retries."""

from __future__ import annotations

import json
from pathlib import Path

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tnforge import schemas
from tnforge.datasets import SORT_KEYS, dataset_files, shard_of, split_shards
from tnforge.pipelines.runner import make_pipeline, pipeline_options
from tnforge.pipelines.shard_pieces import load
from tnforge.pipelines.writer import (
    ShardReport,
    WriteDataset,
    expected_shards,
    spill,
    spill_by_shard,
    write_pieces,
)


def pairs(split: str, n: int, start: int = 0) -> pa.Table:
    """n positive pairs of one split, in reverse sort order."""
    befores = [f"{i:04d}" for i in range(start + n - 1, start - 1, -1)]
    return pa.table({
        "key": pa.array([(i * 7919 + 13) ** 3 % (1 << 63) for i in range(start, start + n)], pa.uint64()),
        "split": [split] * n, "class": ["CARDINAL"] * n, "before": befores, "after": ["x"] * n,
        "count": pa.array(np.ones(n, dtype=np.int64)),
    }, schema=schemas.POSITIVE_PAIRS)


def rejects(n: int) -> pa.Table:
    return pa.table({"key": pa.array(range(n), pa.uint64()), "source": ["a.tsv"] * n,
                     "line": pa.array(range(n, 0, -1), pa.int64()), "reason": ["blank_line"] * n,
                     "raw": [""] * n}, schema=schemas.REJECTS)


def run(elements: list, root: Path, layout: dict[str, int], scratch: Path | None = None) -> list[ShardReport]:
    """Run the writer on the local runner; its reports, sorted."""
    record = root.parent / f"{root.name}-reports.json"
    with make_pipeline(pipeline_options([])) as pipeline:
        _ = (pipeline | beam.Create(elements)
             | WriteDataset(str(root), layout, scratch=str(scratch) if scratch else None)
             | beam.combiners.ToList()
             | beam.Map(lambda reports, path: Path(path).write_text(json.dumps(reports)), str(record)))
    return sorted(ShardReport(*r) for r in json.loads(record.read_text()))


def test_rows_go_to_the_shard_of_their_key_sorted(tmp_path):
    elements = [(("positive_pairs", "train"), pairs("train", 40)), (("positive_pairs", "train"), pairs("train", 30, 40)),
                (("positive_pairs", "dev"), pairs("dev", 5))]
    reports = run(elements, tmp_path, {"positive_pairs": 3})
    assert sum(r.rows for r in reports if r.split == "train") == 70
    for path in dataset_files(tmp_path, "positive_pairs", "train"):
        table = pq.read_table(path)
        shard = int(path.name.split("-")[1])
        assert set(shard_of(table.column("key").to_numpy(), 3).tolist()) <= {shard}
        assert table.equals(table.sort_by([(c, "ascending") for c in SORT_KEYS["positive_pairs"]]))
        assert pq.read_schema(path).metadata[schemas.META_DATASET] == b"positive_pairs"


def test_every_expected_shard_is_written_empty_ones_included(tmp_path):
    reports = run([(("positive_pairs", "dev"), pairs("dev", 2))], tmp_path, {"positive_pairs": 4, "rejects": 1})
    assert [(r.dataset, r.split, r.shard) for r in reports] == sorted(expected_shards({"positive_pairs": 4, "rejects": 1}))
    assert len(dataset_files(tmp_path, "positive_pairs")) == 3 * 4
    empty = pq.read_table(dataset_files(tmp_path, "positive_pairs", "test")[0])
    assert empty.num_rows == 0 and empty.schema.equals(schemas.POSITIVE_PAIRS, check_metadata=False)
    assert (tmp_path / "rejects" / "part-00000-of-00001.parquet").exists()
    assert sum(r.rows for r in reports) == 2


def test_split_free_datasets_and_stale_shards(tmp_path):
    stale = tmp_path / "positives" / "train" / "part-00000-of-00007.parquet"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    reports = run([(("rejects", ""), rejects(5))], tmp_path, {"rejects": 1, "positive_pairs": 2})
    assert ShardReport("rejects", "", 0, 5) in reports
    assert pq.read_table(tmp_path / "rejects" / "part-00000-of-00001.parquet").column("line").to_pylist() == [1, 2, 3, 4, 5]
    assert not stale.exists()


def test_spilled_pieces_are_kept_for_a_retry(tmp_path):
    scratch = tmp_path / "scratch"
    run([(("positive_pairs", "train"), pairs("train", 20))], tmp_path / "out", {"positive_pairs": 2}, scratch)
    assert len(list(scratch.glob("*.arrow"))) == 1  # one file per table spilled; the writer deletes none


def test_a_table_spilled_once_gives_each_shard_its_own_batches(tmp_path):
    """A table is spilled to one file, each shard's rows in batches of their own (in their order in the
    table); loading a shard's piece gives exactly the rows `split_shards` gives it, and the files written
    from spilled pieces are those written from the tables themselves."""
    table = pa.concat_tables([pairs("train", 30), pairs("train", 25, 30)])  # two chunks
    pieces = spill_by_shard(str(tmp_path / "scratch"), "positive_pairs", "train", table, 4)
    assert len({path for _, (path, _, _) in pieces}) == 1
    expected = split_shards(table, 4)
    assert [key for key, _ in pieces] == [("positive_pairs", "train", s) for s in sorted(expected)]
    for (_, _, shard), piece in pieces:
        assert load(piece).equals(expected[shard].combine_chunks())
    assert spill_by_shard(str(tmp_path / "scratch"), "positive_pairs", "train", table, 4) == pieces  # a retry
    for (_, _, shard), piece in pieces:
        key = ("positive_pairs", "train", shard)
        write_pieces(str(tmp_path / "spilled"), key, 4, [piece])
        write_pieces(str(tmp_path / "direct"), key, 4, [expected[shard]])
    spilled, direct = (sorted((tmp_path / name / "positives" / "train").iterdir()) for name in ("spilled", "direct"))
    assert [p.read_bytes() for p in spilled] == [p.read_bytes() for p in direct] and len(spilled) == len(expected)


def test_writing_a_shard_twice_gives_the_same_file_and_deletes_nothing(tmp_path):
    key = ("positive_pairs", "train", 0)
    pieces = [spill(str(tmp_path / "scratch"), key, pairs("train", 10)),
              spill(str(tmp_path / "scratch"), key, pairs("train", 10, 10))]
    assert spill(str(tmp_path / "scratch"), key, pairs("train", 10)) == pieces[0]  # named by content
    first = write_pieces(str(tmp_path / "out"), key, 1, pieces)
    path = tmp_path / "out" / "positives" / "train" / "part-00000-of-00001.parquet"
    before = path.read_bytes()
    again = write_pieces(str(tmp_path / "out"), key, 1, list(reversed(pieces)) + [None])
    assert first == again == ShardReport("positive_pairs", "train", 0, 20)
    assert path.read_bytes() == before
    assert all(Path(p).exists() for p in pieces)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left


def test_a_shard_of_many_spilled_pieces_has_the_bytes_of_its_whole_sorted_table(tmp_path, monkeypatch):
    """The writer reads spilled pieces a column at a time and gathers each row group column by column; the file
    is byte for byte the one the whole sorted table gives in one write, over several row groups."""
    from tnforge import datasets

    monkeypatch.setattr(datasets, "ROW_GROUP", 17)
    tables = [pairs("train", 20 + i, 100 * i) for i in range(6)]
    pieces = [piece for i, table in enumerate(tables)
              for _, piece in spill_by_shard(str(tmp_path / "scratch"), "positive_pairs", f"train{i}", table, 1)]
    key = ("positive_pairs", "train", 0)
    report = write_pieces(str(tmp_path / "out"), key, 1, [None, *reversed(pieces), tables[2]])
    whole = datasets.shard_table(pa.concat_tables([*tables, tables[2]]), schemas.POSITIVE_PAIRS)
    pq.write_table(whole, tmp_path / "whole.parquet", compression="zstd", row_group_size=17)
    written = tmp_path / "out" / "positives" / "train" / "part-00000-of-00001.parquet"
    assert report.rows == whole.num_rows == 135 + 22
    assert pq.ParquetFile(written).metadata.num_row_groups == 10
    assert written.read_bytes() == (tmp_path / "whole.parquet").read_bytes()
