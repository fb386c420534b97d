"""`tnforge validate gs://…` against a real GCS API (the emulator): it reads the dataset from the bucket and
writes its JSON results and Data Docs into the bucket, nothing on local disk."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tnforge import datasets
from tnforge.cli import cli


def upload_tree(gcs, local: Path, uri: str) -> None:
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        gcs.upload(path, f"{uri}/{path.relative_to(local).as_posix()}")


@pytest.fixture(scope="module")
def dataset_uri(gcs, bundled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The bundled build, with one corrupt shard (so the results have something to say), in a bucket."""
    bucket = gcs.bucket("validate")
    local = tmp_path_factory.mktemp("upload") / "ds"
    shutil.copytree(bundled_build, local, ignore=shutil.ignore_patterns("validation"))
    (datasets.dataset_files(local, "sentences", "test")[0]).write_text("not Parquet\n")
    upload_tree(gcs, local, f"{bucket}/ds")
    return f"{bucket}/ds"


def test_validate_a_dataset_in_a_bucket(gcs, dataset_uri: str, tmp_path: Path, monkeypatch) -> None:
    bucket = dataset_uri.rsplit("/", 1)[0]
    before = set(gcs.names("validate"))
    empty = tmp_path / "cwd"
    empty.mkdir()
    monkeypatch.chdir(empty)
    result = CliRunner().invoke(cli, ["validate", dataset_uri, "-q"])
    assert result.exit_code == 1, result.output
    assert "sentences/test/part-00000-of-00001.parquet" in result.output and "Traceback" not in result.output
    assert list(empty.iterdir()) == []  # nothing written locally
    written = set(gcs.names("validate")) - before
    assert all(name.startswith("ds/validation/") for name in written)
    assert {"ds/validation/summary.json", "ds/validation/examples.rows.json", "ds/validation/examples.ids.json",
            "ds/validation/manifest.counts.json", "ds/validation/docs/index.html"} <= written
    assert not [name for name in written if "/.tmp-" in name or "/.validation-" in name]
    assert any(name.startswith("ds/validation/docs/validations/examples/rows/") for name in written)
    summary = json.loads(gcs.read(f"{bucket}/ds/validation/summary.json"))
    assert summary["success"] is False and summary["root"] == dataset_uri
    assert summary["results"]["examples"]["failed"] == 0 and summary["results"]["examples"]["rows"] > 0
    index = gcs.read(f"{bucket}/ds/validation/docs/index.html").decode("utf-8")
    assert "FAILED" in index and "sentences/test/part-00000-of-00001.parquet" in index
    assert os.listdir(empty) == []


def test_beam_pipeline_on_a_bucket_gives_the_same_results(gcs, dataset_uri: str, tmp_path: Path,
                                                          monkeypatch) -> None:
    from tnforge.validation import validate_directory

    monkeypatch.chdir(tmp_path)
    default = validate_directory(dataset_uri, render_docs=False).to_dict()
    on_beam = validate_directory(dataset_uri, render_docs=False, pipeline_args=["--runner=DirectRunner"]).to_dict()
    for report in (default, on_beam):
        report.pop("seconds"), report.pop("timings")
    assert on_beam == default and not default["success"]
    assert not [n for n in gcs.names("validate") if "/.validation-" in n]  # the pipeline's partial removed
    assert list(tmp_path.iterdir()) == []
