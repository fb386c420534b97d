"""The frame builders and readers of `tnforge.validation`, on small hand-made tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tnforge import datasets, schemas
from tnforge.schemas.suites import SuiteParams
from tnforge.validation import frames, reading


def inputs(tmp_path: Path, dataset: str, rows: pa.Table | None = None, **fields) -> frames.FrameInputs:
    tables = {dataset: rows} if rows is not None else {}
    return frames.FrameInputs(tmp_path, None, fields.pop("params", SuiteParams()), dataset, tables=tables, **fields)


def test_equals_positive_flags_a_negative_equal_to_a_positive_reading() -> None:
    pairs = pd.DataFrame({"before": ["12", "12", "12", "3"], "reading": ["twelve", "twelve", "one two", "three"],
                          "label": [1, 0, 0, 0], "negative_type": ["", "random", "synthetic", "random"]})
    positives = pd.DataFrame({"before": ["3"], "after": ["three"]})
    assert frames.equals_positive(pairs, None).tolist() == [False, True, False, False]
    assert frames.equals_positive(pairs, positives).tolist() == [False, True, False, True]


def test_leakage_frame_counts_shared_text_hashes(tmp_path: Path) -> None:
    rows = pa.table({"split": ["train", "train", "dev", "dev", "test"],
                     "text_hash": pa.array([1, 2, 2, 3, 9], pa.uint64())})
    frame = frames.leakage_frame(inputs(tmp_path, "sentences", rows))
    assert frame.to_dict("records") == [{"pair": "dev~train", "shared": 1, "rate": 0.5},
                                        {"pair": "test~train", "shared": 0, "rate": 0.0},
                                        {"pair": "test~dev", "shared": 0, "rate": 0.0}]
    note = frames.leakage_note(frame, SuiteParams(split="standard"))
    assert note == "sentences shared between splits (standard split): dev~train 1 (50.0%), test~train 0 (0.0%), " \
                   "test~dev 0 (0.0%)"


def test_ratios_frame_counts_budgeted_negatives_per_positive(tmp_path: Path) -> None:
    pairs = pd.DataFrame({"split": ["train"] * 6, "label": [1, 1, 0, 0, 0, 1],
                          "negative_type": ["", "", "synthetic", "random", "topk", "random"]})
    params = SuiteParams(negative_ratio=2.0, negative_kinds=("synthetic", "random", "topk"))
    frame = frames.ratios_frame(inputs(tmp_path, "pairs", params=params, frames={"pairs.rows": pairs}))
    [row] = frame.to_dict("records")
    # The licensed random negative (label 1, typed) counts as a negative, topk is not budgeted.
    assert (row["type"], row["negatives"], row["positives"], row["ratio"]) == ("synthetic+random", 3, 2, 1.5)
    assert row["min_ratio"] < 1.8 < 2.0 < row["max_ratio"]
    unbudgeted = SuiteParams(negative_ratio="all")
    assert frames.ratios_frame(inputs(tmp_path, "pairs", params=unbudgeted, frames={"pairs.rows": pairs})).empty


def test_schema_frame_names_missing_columns_and_unreadable_files(tmp_path: Path) -> None:
    rows = {"key": [1], "source": ["a.tsv"], "line": [3], "reason": ["bad"], "raw": ["x"]}
    [path] = datasets.write_sharded(pa.table(rows), datasets.dataset_path(tmp_path, "rejects"), schemas.REJECTS)
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["raw"]).replace_schema_metadata(table.schema.metadata), path)
    broken = Path(path).with_name("broken.parquet")
    broken.write_text("not parquet")
    frame = frames.schema_frame(inputs(tmp_path, "rejects", files=[Path(path), broken]))
    assert "raw: <missing>" in frame["found"].tolist()
    assert frame.loc[frame["expected"] == "a readable Parquet file", "found"].str.startswith("unreadable").all()
    metadata = frame[frame["kind"] == "metadata"]
    assert (metadata["expected"] == metadata["found"]).all()


def test_read_rows_adds_the_split_folder_and_skips_unreadable_files(tmp_path: Path) -> None:
    rows = {"key": [1, 2], "split": ["train", "dev"], "class": ["PLAIN"] * 2, "before": ["a", "b"],
            "after": ["a", "b"], "count": [1, 1]}
    table = pa.table(rows)
    for split in ("train", "dev"):
        part = table.filter(pa.array([s == split for s in rows["split"]]))
        datasets.write_sharded(part, datasets.dataset_path(tmp_path, "positive_pairs", split), schemas.POSITIVE_PAIRS)
    files = reading.present_datasets(tmp_path)["positive_pairs"]
    (tmp_path / "bad.parquet").write_text("nope")
    read = reading.read_rows("positive_pairs", [*files, tmp_path / "bad.parquet"], ["key", "split"])
    assert read.column_names == ["key", "split", "folder"]
    assert sorted(zip(read.column("split").to_pylist(), read.column("folder").to_pylist(), strict=True)) == [
        ("dev", "dev"), ("train", "train")]
