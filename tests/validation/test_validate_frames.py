"""The frame builders, readers and the combining of partial results of `tnforge.validation`, on small
hand-made tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tnforge import datasets, schemas
from tnforge.schemas.suites import SuiteParams
from tnforge.validation import frames, groups, reading
from tnforge.validation.combine import Partial, merge_outcomes, outcome


def inputs(tmp_path: Path, dataset: str, partial: Partial | None = None, **fields) -> frames.FrameInputs:
    return frames.FrameInputs(str(tmp_path), None, fields.pop("params", SuiteParams()), dataset,
                              partial or Partial(), **fields)


def test_equals_positive_flags_a_negative_equal_to_a_positive_reading() -> None:
    pairs = pd.DataFrame({"before": ["12", "12", "12", "3"], "reading": ["twelve", "twelve", "one two", "three"],
                          "label": [1, 0, 0, 0], "negative_type": ["", "random", "synthetic", "random"]})
    positives = pd.DataFrame({"before": ["3"], "after": ["three"]})
    assert frames.equals_positive(pairs, None).tolist() == [False, True, False, False]
    assert frames.equals_positive(pairs, positives).tolist() == [False, True, False, True]


def test_leakage_counts_per_partition_add_up(tmp_path: Path) -> None:
    rows = pa.table({"split": ["train", "train", "dev", "dev", "test"],
                     "text_hash": pa.array([1, 2, 2, 3, 9], pa.uint64())})
    partial = Partial()
    for part in (rows.slice(0, 3), rows.slice(3)):  # two partitions: 2 is shared within the first
        partial.count("sentences.leakage", groups.leakage_counts(part))
    frame = frames.leakage_frame(inputs(tmp_path, "sentences", partial))
    assert frame.to_dict("records") == [{"pair": "dev~train", "shared": 1, "rate": 0.5},
                                        {"pair": "test~train", "shared": 0, "rate": 0.0},
                                        {"pair": "test~dev", "shared": 0, "rate": 0.0}]
    note = frames.leakage_note(frame, SuiteParams(split="standard"))
    assert note == "sentences shared between splits (standard split): dev~train 1 (50.0%), test~train 0 (0.0%), " \
                   "test~dev 0 (0.0%)"


def test_ratios_frame_counts_budgeted_negatives_per_positive(tmp_path: Path) -> None:
    partial = Partial()
    partial.count("pairs.types", {("train", 1, ""): 2, ("train", 0, "synthetic"): 1, ("train", 0, "random"): 1,
                                  ("train", 0, "topk"): 1, ("train", 1, "random"): 1})
    params = SuiteParams(negative_ratio=2.0, negative_kinds=("synthetic", "random", "topk"))
    frame = frames.ratios_frame(inputs(tmp_path, "pairs", partial, params=params))
    [row] = frame.to_dict("records")
    # The licensed random negative (label 1, typed) counts as a negative, topk is not budgeted.
    assert (row["type"], row["negatives"], row["positives"], row["ratio"]) == ("synthetic+random", 3, 2, 1.5)
    assert row["min_ratio"] < 1.8 < 2.0 < row["max_ratio"]
    unbudgeted = SuiteParams(negative_ratio="all")
    assert frames.ratios_frame(inputs(tmp_path, "pairs", partial, params=unbudgeted)).empty


def test_schema_rows_name_missing_columns_and_unreadable_files(tmp_path: Path) -> None:
    rows = {"key": [1], "source": ["a.tsv"], "line": [3], "reason": ["bad"], "raw": ["x"]}
    [path] = datasets.write_sharded(pa.table(rows), datasets.dataset_path(tmp_path, "rejects"), schemas.REJECTS)
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["raw"]).replace_schema_metadata(table.schema.metadata), path)
    broken = Path(path).with_name("broken.parquet")
    broken.write_text("not parquet")
    files = reading.dataset_files(tmp_path, "rejects")
    assert [f.relative for f in files] == ["rejects/broken.parquet", "rejects/part-00000-of-00001.parquet"]
    frame = pd.DataFrame([row for item in files for row in frames.schema_rows("rejects", item)],
                         columns=["file", "kind", "expected", "found"])
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
    problems: list[str] = []
    bad = reading.DataFile(str(tmp_path / "bad.parquet"), "bad.parquet")
    read = reading.read_rows("positive_pairs", [*files, bad], ["key", "split"], problems)
    assert read.column_names == ["key", "split", "folder"]
    assert sorted(zip(read.column("split").to_pylist(), read.column("folder").to_pylist(), strict=True)) == [
        ("dev", "dev"), ("train", "train")]
    assert len(problems) == 1 and "bad.parquet" in problems[0]


def _item(unexpected: list, element_count: int, success: bool | None = None) -> dict:
    return {"success": not unexpected if success is None else success,
            "expectation_config": {"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "class"}},
            "result": {"element_count": element_count, "unexpected_count": len(unexpected), "missing_count": 0,
                       "partial_unexpected_list": unexpected[:3],
                       "partial_unexpected_counts": [{"value": v, "count": unexpected.count(v)}
                                                     for v in dict.fromkeys(unexpected)]},
            "exception_info": {"raised_exception": False}}


def test_merged_outcomes_sum_counts_and_keep_the_first_examples_in_any_order() -> None:
    parts = [outcome(_item(["X", "Y"], 10), ("examples", "a", 0)), outcome(_item([], 5), ("examples", "a", 1)),
             outcome(_item(["Z", "X", "W", "V"], 7), ("examples", "b", 0))]
    forward = merge_outcomes(merge_outcomes(parts[0], parts[1]), parts[2])
    backward = merge_outcomes(parts[2], merge_outcomes(parts[1], parts[0]))
    assert forward == backward
    assert forward["counts"] == {"element_count": 22, "unexpected_count": 6, "missing_count": 0}
    assert [v for _, v in forward["examples"]] == ["X", "Y", "Z"]
    assert not forward["success"]
    assert forward["values"]['"X"'] == ["X", 2]
