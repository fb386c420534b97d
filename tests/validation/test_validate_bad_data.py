"""`tnforge validate` never crashes on bad data: on copies of the bundled build with one shard's column type
changed, a truncated Parquet file, a text file in place of one, or a dataset folder deleted, it exits 1
with a failed check naming the file and the problem, and still writes its JSON results and Data Docs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tnforge import datasets
from tnforge.cli import cli


def _cast_line_to_string(root: Path) -> str:
    path = datasets.dataset_files(root, "examples", "train")[0]
    table = pq.read_table(path)
    index = table.schema.get_field_index("line")
    table = table.set_column(index, pa.field("line", pa.string()), table.column("line").cast(pa.string()))
    pq.write_table(table, path)
    return path.relative_to(root).as_posix()


def _truncate(root: Path) -> str:
    path = datasets.dataset_files(root, "examples", "dev")[0]
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path.relative_to(root).as_posix()


def _replace_with_text(root: Path) -> str:
    path = datasets.dataset_files(root, "sentences", "test")[0]
    path.write_text("this is not a Parquet file\n", encoding="utf-8")
    return path.relative_to(root).as_posix()


def _delete_dataset(root: Path) -> str:
    folder = datasets.dataset_path(root, "sentences")
    shutil.rmtree(folder)
    return folder.relative_to(root).as_posix() + "/train/"


@pytest.mark.parametrize(("corrupt", "problem"), [
    (_cast_line_to_string, "line: string"),
    (_truncate, "Parquet magic bytes not found"),
    (_replace_with_text, "Parquet magic bytes not found"),
    (_delete_dataset, "missing: no such folder"),
], ids=["column-type", "truncated", "text-file", "missing-dataset"])
def test_bad_data_is_a_failed_check_naming_the_file(
        bundled_build: Path, tmp_path: Path, corrupt: Callable[[Path], str], problem: str) -> None:
    root = tmp_path / "copy"
    shutil.copytree(bundled_build, root, ignore=shutil.ignore_patterns("validation"))
    named = corrupt(root)
    result = CliRunner().invoke(cli, ["validate", str(root), "-q"])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    failed = result.output.split("\nfailed:\n", 1)[1]
    assert named in failed and problem in failed
    summary = json.loads((root / "validation" / "summary.json").read_text())
    observed = [c["observed"] for r in summary["results"].values() for c in r["checks"] if not c["success"]]
    assert summary["success"] is False and any(named in o and problem in o for o in observed)
    index = (root / "validation" / "docs" / "index.html").read_text(encoding="utf-8")
    assert "FAILED" in index and named in index


def test_a_shard_that_cannot_be_cast_is_skipped_and_said_so(bundled_build: Path, tmp_path: Path) -> None:
    from tnforge.validation import validate_directory

    root = tmp_path / "copy"
    shutil.copytree(bundled_build, root, ignore=shutil.ignore_patterns("validation"))
    path = datasets.dataset_files(root, "examples", "test")[0]
    table = pq.read_table(path)
    index = table.schema.get_field_index("line")
    words = pa.array([f"line {n}" for n in range(table.num_rows)])
    pq.write_table(table.set_column(index, pa.field("line", pa.string()), words), path)
    report = validate_directory(root, only=["examples"], render_docs=False)
    assert not report.success
    assert report.results["examples"].rows == sum(
        pq.ParquetFile(p).metadata.num_rows for p in datasets.dataset_files(root, "examples", "train")
        + datasets.dataset_files(root, "examples", "dev"))
    [note] = [n for n in report.notes if n.startswith("examples: rows not checked")]
    assert str(path) in note


def test_a_frame_that_cannot_be_built_is_a_failed_check(bundled_build: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge.validation import frames, registry, validate_directory

    def broken(inputs: frames.FrameInputs) -> None:
        raise pa.ArrowInvalid("cannot combine the shards")

    manifest = registry.DATASETS["manifest"]
    monkeypatch.setitem(registry.DATASETS, "manifest", registry.Dataset(
        (registry.Frame("manifest.counts", broken, manifest.frames[-1].expectations),)))
    root = tmp_path / "copy"
    shutil.copytree(bundled_build, root, ignore=shutil.ignore_patterns("validation"))
    report = validate_directory(root, only=["manifest"], render_docs=False)
    [(name, check)] = report.failures()
    assert (name, check.frame, check.expectation) == ("manifest", "manifest.counts", "frame_built")
    assert check.observed == "error: ArrowInvalid: cannot combine the shards"
