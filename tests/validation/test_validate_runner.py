"""`validate_directory` without the shared sample: the bundled sample's build passes every suite, a decode's
hypotheses folder validates on its own, and bad arguments are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tnforge import datasets, schemas
from tnforge.validation import validate_directory


def run(root: Path, only: list[str] | None = None):
    return validate_directory(root, only=only, render_docs=False)


def test_bundled_sample_passes_every_suite(bundled_build: Path) -> None:
    report = run(bundled_build)
    assert report.success, report.format_table()
    assert list(report.results) == ["examples", "sentences", "positive_pairs", "rejects", "pairs", "vocab_pairs",
                                    "manifest"]
    assert all(result.checks for result in report.results.values())
    assert report.results["manifest"].rows > 0 and report.docs_index is None
    summary = json.loads((bundled_build / "validation" / "summary.json").read_text())
    assert summary["success"] is True and set(summary["results"]) == set(report.results)
    frames = {path.stem for path in (bundled_build / "validation").glob("*.json")} - {"summary"}
    assert {"examples.rows", "examples.upsampling", "sentences.leakage", "pairs.ratios", "manifest.counts"} <= frames
    assert any(note.startswith("sentences shared between splits (hash split)") for note in report.notes)


def test_only_some_datasets(bundled_build: Path) -> None:
    report = run(bundled_build, ["rejects", "manifest"])
    assert list(report.results) == ["rejects", "manifest"]


def test_hypotheses_without_a_manifest(tmp_path: Path) -> None:
    """A decode output folder (DIR/hypotheses/) validates on its own; a positive log-probability fails."""
    rows = {
        "key": [11, 11, 12], "class": ["CARDINAL", "CARDINAL", None], "before": ["12", "12", "3kg"],
        "input": ["a <norm> 12 </norm> b"] * 2 + ["<norm> 3kg </norm>"], "gold": ["twelve", "twelve", None],
        "rank": [0, 1, 0], "hypothesis": ["twelve", "one two", "three kilograms"], "score": [-0.1, -2.5, 0.4],
    }
    datasets.write_sharded(pa.table(rows), tmp_path / "hypotheses", schemas.HYPOTHESES)
    report = run(tmp_path, ["hypotheses"])
    assert report.results["hypotheses"].rows == 3
    assert any("no manifest.json" in note for note in report.notes)
    [check] = report.failures()
    assert check[1].description == "score is a log-probability (≤ 0)" and "0.4" in check[1].observed


def test_a_folder_that_is_no_dataset_fails_and_writes_nothing(tmp_path: Path) -> None:
    """An empty folder, one with a stray Parquet file, or a docs folder: one error, no 'passed', no files."""
    (tmp_path / "stray").mkdir()
    pq.write_table(pa.table({"x": [1]}), tmp_path / "stray" / "one.parquet")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# a guide\n")
    for folder in (tmp_path / "empty", tmp_path / "stray", tmp_path / "docs"):
        folder.mkdir(exist_ok=True)
        before = sorted(p.name for p in folder.rglob("*"))
        with pytest.raises(ValueError, match=r"not a dataset directory \((an empty folder|no manifest.json and no "
                                             r"(Parquet files( in it or its sub-folders)?|datasets in the tnforge layout))\)"):
            run(folder)
        assert sorted(p.name for p in folder.rglob("*")) == before


def test_only_datasets_that_are_absent_fail(tmp_path: Path) -> None:
    rows = {"key": [1], "class": ["CARDINAL"], "before": ["1"], "input": ["<norm> 1 </norm>"], "gold": ["one"],
            "rank": [0], "hypothesis": ["one"], "score": [-0.1]}
    datasets.write_sharded(pa.table(rows), tmp_path / "hypotheses", schemas.HYPOTHESES)
    with pytest.raises(ValueError, match=r"holds none of the datasets asked for \(examples\); present: hypotheses"):
        run(tmp_path, ["examples"])
    assert not (tmp_path / "validation").exists()


def test_unknown_dataset_and_missing_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown dataset\(s\) shouting; choose from examples, .*, manifest"):
        run(tmp_path, ["shouting"])
    with pytest.raises(FileNotFoundError, match="not a directory"):
        run(tmp_path / "absent")


def test_invalid_manifest_is_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(ValueError, match="is an incomplete build — rebuild it with --overwrite"):
        run(tmp_path)
