"""tnforge/datasets.py: where datasets live, stable sharding, writing one shard, reading a dataset."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tnforge import schemas
from tnforge.datasets import (
    by_split,
    dataset_path,
    read_dataset,
    shard_name,
    shard_of,
    shard_path,
    sort_order,
    split_shards,
    write_shard,
    write_sharded,
)


def sentences(n: int) -> pa.Table:
    ids = list(range(n - 1, -1, -1))
    return pa.table({
        "key": pa.array([i * 1_000_003 + 17 for i in ids], pa.uint64()), "split": ["train"] * n, "source": ["s"] * n,
        "sentence_id": pa.array(ids, pa.int64()), "line": pa.array(ids, pa.int64()),
        "n_tokens": pa.array([1] * n, pa.int32()), "text_hash": pa.array(ids, pa.uint64()),
        "written": ["w"] * n, "spoken": ["w"] * n, "tokens": [["w"]] * n, "classes": [["PLAIN"]] * n,
        "readings": [["w"]] * n,
    })


def test_dataset_path_and_shard_path(tmp_path):
    assert dataset_path(tmp_path, "positive_pairs", "dev") == tmp_path / "positives" / "dev"
    assert dataset_path(tmp_path, "rejects", "dev") == tmp_path / "rejects"
    assert dataset_path(tmp_path, "examples") == tmp_path / "examples"
    assert shard_name(2, 10) == "part-00002-of-00010.parquet"
    assert shard_path(str(tmp_path), "examples", "train", 0, 1) == str(tmp_path / "examples" / "train" / shard_name(0, 1))
    assert shard_path("gs://bucket/ds/", "pairs", "test", 1, 3) == "gs://bucket/ds/pairs/test/part-00001-of-00003.parquet"
    assert shard_path("gs://bucket/ds", "rejects", "", 0, 1) == "gs://bucket/ds/rejects/part-00000-of-00001.parquet"


def test_shard_of_is_stable_and_spread():
    keys = np.arange(10_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    shards = shard_of(keys, 4)
    assert shards.tolist()[:8] == shard_of(keys[:8], 4).tolist()
    assert shard_of(np.array([0, 1, 2**63], dtype=np.uint64), 7).tolist() == [4, 5, 0]  # fixed forever
    assert len(np.bincount(shards)) == 4 and min(np.bincount(shards)) > 2_300
    assert (shard_of(keys, 1) == 0).all()


def test_split_shards_and_by_split_partition_every_row():
    table = sentences(50)
    parts = split_shards(table, 3)
    assert sum(p.num_rows for p in parts.values()) == 50
    for shard, part in parts.items():
        assert set(shard_of(part.column("key").to_numpy(), 3).tolist()) == {shard}
    assert split_shards(table.slice(0, 0), 3) == {}
    mixed = pa.concat_tables([table, table.set_column(1, "split", pa.array(["dev"] * 50))])
    assert [(s, t.num_rows) for s, t in by_split(mixed)] == [("dev", 50), ("train", 50)]


def test_write_shard_sorts_and_records_the_schema(tmp_path):
    path = tmp_path / "deep" / "part.parquet"
    write_shard(sentences(5), path, schemas.SENTENCES)
    table = pq.read_table(path)
    assert table.column("sentence_id").to_pylist() == [0, 1, 2, 3, 4]
    meta = pq.read_schema(path).metadata
    assert meta[schemas.META_DATASET] == b"sentences" and meta[schemas.META_VERSION] == b"3"
    assert [p.name for p in path.parent.iterdir()] == ["part.parquet"]


def test_write_sharded_writes_every_shard(tmp_path):
    paths = write_sharded(sentences(3), tmp_path / "s", schemas.SENTENCES, shards=8)
    assert [p.rsplit("/", 1)[1] for p in paths] == [shard_name(i, 8) for i in range(8)]
    rows = [pq.read_table(p).num_rows for p in paths]
    assert sum(rows) == 3 and rows.count(0) >= 5


def test_read_dataset_of_a_missing_dataset_is_empty_with_its_schema(tmp_path):
    table = read_dataset(tmp_path, "examples", "train")
    assert table.num_rows == 0 and table.schema.equals(schemas.EXAMPLES)
    some = read_dataset(tmp_path, "examples", columns=["key", "before"])
    assert some.column_names == ["key", "before"] and some.num_rows == 0
    write_sharded(sentences(4), dataset_path(tmp_path, "sentences", "dev"), schemas.SENTENCES, shards=2)
    assert read_dataset(tmp_path, "sentences").num_rows == 4
    assert read_dataset(tmp_path, "sentences", "train").num_rows == 0


def _mixed_table(rows: int, seed: int) -> pa.Table:
    """Columns of every kind the sort keys use, with repeats (stability), nulls, non-ASCII text and extremes."""
    rng = np.random.default_rng(seed)
    words = ["", "a", "b", "B", "ab", "a b", "é", "e\u0301", "zz", "😀", "\u00ff", "\u0100", "10", "9"]
    text = [words[i] for i in rng.integers(0, len(words), rows)]
    return pa.table({
        "text": pa.array([None if i % 17 == 3 else t for i, t in enumerate(text)], pa.string()),
        "dense": pa.array(rng.integers(0, 3, rows), pa.int8()),
        "wide": pa.array(rng.choice(np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64), rows), pa.uint64()),
        "signed": pa.array(rng.integers(-(2**40), 2**40, rows), pa.int64()),
        "other": pa.array(rng.integers(-(2**40), 2**40, rows) // 1000, pa.int64()),
        "flag": pa.array(rng.integers(0, 2, rows).astype(bool)),
        "score": pa.array(rng.choice([0.5, -1.0, np.nan], rows)),
        "row": pa.array(np.arange(rows)),
    })


def test_sort_order_is_arrows_stable_sort_for_every_key_kind():
    table = _mixed_table(5_000, seed=7)
    for columns in (["text"], ["dense", "text"], ["text", "flag", "dense"], ["wide", "text"], ["signed"],
                    ["flag", "text", "wide", "dense"], ["text", "score"], ["text", "signed", "wide"],
                    ["signed", "other", "text"]):  # Arrow's own sort, packed key, lexsort of ranks
        expected = pc.sort_indices(table, sort_keys=[(c, "ascending") for c in columns]).to_numpy()
        assert np.array_equal(sort_order(table, columns), expected), columns
    chunked = pa.concat_tables([table.slice(0, 1234), table.slice(1234)])
    assert np.array_equal(sort_order(chunked, ["text", "dense"]),
                          pc.sort_indices(table, sort_keys=[("text", "ascending"), ("dense", "ascending")]).to_numpy())


def test_a_shard_written_a_row_group_at_a_time_has_the_bytes_of_the_whole_sorted_table(tmp_path, monkeypatch):
    """write_shard takes the sorted rows one row group at a time (a shard is never in memory twice); the file is
    byte for byte the one the whole sorted table gives, several row groups included."""
    from tnforge import datasets

    monkeypatch.setattr(datasets, "ROW_GROUP", 7)
    table = sentences(30).set_column(7, "written", pa.array([f"w{i % 4}" for i in range(30)]))
    write_shard(table, tmp_path / "streamed.parquet", schemas.SENTENCES)
    pq.write_table(datasets.shard_table(table, schemas.SENTENCES), tmp_path / "whole.parquet", compression="zstd",
                   row_group_size=7)
    assert pq.ParquetFile(tmp_path / "streamed.parquet").metadata.num_row_groups == 5
    assert (tmp_path / "streamed.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


def test_default_shards_follow_the_input_size():
    from tnforge.pipelines.build_config import INPUT_BYTES_PER_SHARD, auto_shards

    assert auto_shards(0) == auto_shards(100_000) == 1  # the bundled and shared samples: one shard
    assert auto_shards(342_000_000) == 4  # the 10M-token benchmark corpus (docs/results/build.md)
    assert auto_shards(int(INPUT_BYTES_PER_SHARD * 5000)) == 1024
