"""`tnforge validate gs://…` against a real GCS API (the emulator): it reads the dataset from the bucket and
writes its JSON results and Data Docs into the bucket, nothing on local disk."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from tnforge import datasets
from tnforge.cli import cli


def upload_tree(gcs, local: Path, uri: str) -> None:
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        gcs.upload(path, f"{uri}/{path.relative_to(local).as_posix()}")


def test_validate_a_dataset_in_a_bucket(gcs, bundled_build: Path, tmp_path: Path, monkeypatch) -> None:
    bucket = gcs.bucket("validate")
    local = tmp_path / "ds"
    shutil.copytree(bundled_build, local, ignore=shutil.ignore_patterns("validation"))
    # One corrupt shard, so the results have something to say.
    (datasets.dataset_files(local, "sentences", "test")[0]).write_text("not Parquet\n")
    upload_tree(gcs, local, f"{bucket}/ds")
    before = set(gcs.names("validate"))
    empty = tmp_path / "cwd"
    empty.mkdir()
    monkeypatch.chdir(empty)
    result = CliRunner().invoke(cli, ["validate", f"{bucket}/ds", "-q"])
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
    assert summary["success"] is False and summary["root"] == f"{bucket}/ds"
    assert summary["results"]["examples"]["failed"] == 0 and summary["results"]["examples"]["rows"] > 0
    index = gcs.read(f"{bucket}/ds/validation/docs/index.html").decode("utf-8")
    assert "FAILED" in index and "sentences/test/part-00000-of-00001.parquet" in index
    assert os.listdir(empty) == []
