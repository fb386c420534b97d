"""gs:// end to end against a real GCS JSON API (the session's emulator): build → negatives → validate → decode →
evaluate and a trainer's reading, every byte in the bucket, nothing on the local disk, the same rows as a
local build of the same corpus."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support.paths import REPO
from tnforge import datasets
from tnforge.cli import cli
from tnforge.filesystems import read_bytes
from tnforge.manifest import read_manifest

NEGATIVES = ["--negatives", "synthetic,random", "--ratio", "3", "--no-grammar"]


def tnforge(*args: str) -> None:
    code = cli.main(args=list(args), prog_name="tnforge", standalone_mode=False)
    assert code in (None, 0), f"tnforge {' '.join(args)} exited {code}"


def relative_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def local_build(tmp_path_factory: pytest.TempPathFactory, bundled_tsv: Path) -> Path:
    out = tmp_path_factory.mktemp("local") / "ds"
    tnforge("build", str(bundled_tsv), "--out", str(out), *NEGATIVES)
    return out


@pytest.fixture
def empty_local_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory and an empty temporary directory (for anything using `tempfile`)."""
    cwd, temp = tmp_path / "cwd", tmp_path / "temp"
    cwd.mkdir()
    temp.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return tmp_path


def test_build_and_negatives_on_gs_match_a_local_build_and_write_nothing_locally(gcs, bundled_tsv, local_build,
                                                                                  empty_local_disk):
    bucket = gcs.bucket("e2e-build")
    corpus = gcs.upload(bundled_tsv, f"{bucket}/in/{bundled_tsv.name}")
    remote = f"{bucket}/out/ds"
    tnforge("build", corpus, "--out", remote, *NEGATIVES)
    tnforge("negatives", remote, "--kinds", "synthetic,random", "--ratio", "3", "--no-grammar")  # again: same files

    # Every file of the local build, at the same place in the bucket, with the same bytes; nothing else.
    expected = relative_files(local_build)
    assert gcs.names("e2e-build", "out/ds/") == [f"out/ds/{name}" for name in expected]
    for name in expected:
        if name.endswith(".parquet"):
            assert gcs.read(f"{remote}/{name}") == (local_build / name).read_bytes(), name
    for name in datasets.DATASET_DIRS:
        local_rows = datasets.read_dataset(local_build, name)
        remote_rows = datasets.read_dataset(remote, name)
        assert remote_rows.num_rows == local_rows.num_rows > 0 or name == "rejects"
        assert remote_rows.equals(local_rows), name
    manifest, local_manifest = read_manifest(remote), read_manifest(local_build)
    assert manifest["complete"] is True and manifest["negatives"]["counts"] == local_manifest["negatives"]["counts"]
    assert manifest["datasets"] == local_manifest["datasets"]

    # Validation next to the data: every check passes, results and Data Docs land in the bucket.
    tnforge("validate", remote)
    written = gcs.names("e2e-build", "out/ds/validation/")
    assert any(name.endswith(".json") for name in written), written
    assert any(name.endswith(".html") for name in written), written

    # Nothing on the local disk: no working-directory folder (not even one named "gs:"), no temporary file.
    assert [p for p in empty_local_disk.rglob("*") if p.is_file()] == []
    assert not (REPO / "gs:").exists()


def test_decode_evaluate_and_trainers_read_gs_and_write_gs(gcs, local_build, tmp_path, monkeypatch):
    from tests.support.tiny_models import tiny_config
    from tnforge.trainers.dual_encoders.pairs import load_pairs
    from tnforge.trainers.seq2seq.train import train

    bucket = gcs.bucket("e2e-models")
    remote = f"{bucket}/ds"
    for path in local_build.rglob("*"):
        if path.is_file():
            gcs.upload(path, f"{remote}/{path.relative_to(local_build).as_posix()}")

    # Trainers read the dataset from the bucket: the same pairs, and a seq2seq run (1 epoch, local run folder).
    for kind in ("sequence", "vocabulary"):
        assert load_pairs(remote, kind, "train") == load_pairs(str(local_build), kind, "train")
    result = train(tiny_config(remote, tmp_path / "run", epochs=1, batch_size=64))
    assert result.steps > 0 and (tmp_path / "run" / "best.pt").is_file()

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    model = str(tmp_path / "run")
    tnforge("decode", "--model", model, "--data", remote, "--split", "dev", "--top-k", "2", "--device", "cpu",
            "--out", f"{bucket}/hyps.parquet")
    tnforge("decode", "--model", model, "--data", remote, "--split", "dev", "--top-k", "2", "--device", "cpu",
            "--out", str(tmp_path / "hyps.parquet"))
    assert read_bytes(f"{bucket}/hyps.parquet") == (tmp_path / "hyps.parquet").read_bytes()
    hypotheses = pq.read_table(tmp_path / "hyps.parquet")
    dev = datasets.read_dataset(local_build, "examples", "dev", columns=["key", "copy"])
    assert set(hypotheses.column("key").to_pylist()) == {
        key for key, copy in zip(dev.column("key").to_pylist(), dev.column("copy").to_pylist(), strict=True) if not copy}

    tnforge("evaluate", "--model", model, "--data", remote, "--split", "dev", "--no-grammar", "--device", "cpu",
            "--report", f"{bucket}/eval")
    assert gcs.names("e2e-models", "eval/") == ["eval/per_class.png", "eval/report.json", "eval/report.md"]
    report = json.loads(gcs.read(f"{bucket}/eval/report.json"))
    assert report["tokens"]["count"] == len(hypotheses.column("key").unique())

    # Top-k negatives from the hypotheses in the bucket.
    tnforge("negatives", remote, "--kinds", "synthetic,topk", "--ratio", "3", "--no-grammar",
            "--topk-from", f"{bucket}/hyps.parquet")
    section = read_manifest(remote)["negatives"]
    assert section["topk_from"] == f"{bucket}/hyps.parquet" and "topk" in section["kinds"]
    assert list(cwd.iterdir()) == []


def test_missing_buckets_and_folders_on_gs_are_one_line(gcs, bundled_tsv, tmp_path, monkeypatch):
    from click.testing import CliRunner

    bucket = gcs.bucket("e2e-errors")
    monkeypatch.chdir(tmp_path)

    def error(*args: str) -> list[str]:
        result = CliRunner().invoke(cli, list(args), prog_name="tnforge")
        assert result.exit_code != 0 and not isinstance(result.exception, (AttributeError, TypeError, KeyError))
        return [line for line in result.output.splitlines() if line.startswith("Error")]

    assert error("build", str(bundled_tsv), "--out", "gs://no-such-bucket/ds") == [
        "Error: --out gs://no-such-bucket/ds: not reachable (not found: does the bucket exist?)"]
    assert error("build", f"{bucket}/in/missing.tsv", "--out", f"{bucket}/ds") == [
        f"Error: input {bucket}/in/missing.tsv: no such file"]
    assert error("negatives", f"{bucket}/nothing") == [
        f"Error: Invalid value for DIR: {bucket}/nothing: no such dataset directory"]
    assert error("negatives", "gs:///ds") == ["Error: Invalid value for 'DIR': gs:///ds: no bucket name"]
    assert error("evaluate", "--model", str(tmp_path), "--data", f"{bucket}/nothing") == [
        f"Error: Invalid value for '--data' / '-d': {bucket}/nothing: does not exist"]
    assert gcs.names("e2e-errors") == [] and list(tmp_path.iterdir()) == []
    gcs.upload(bundled_tsv, f"{bucket}/full/examples/train/part-00000-of-00001.parquet")  # an unfinished build
    assert error("build", str(bundled_tsv), "--out", f"{bucket}/full") == [
        f"Error: {bucket}/full holds an incomplete build; use --overwrite to replace it"]
    gcs.upload(bundled_tsv, f"{bucket}/other/notes.txt")
    assert error("build", str(bundled_tsv), "--out", f"{bucket}/other") == [
        f"Error: --out {bucket}/other: directory is not empty (use --overwrite to replace its contents)"]
    assert gcs.names("e2e-errors") == ["full/examples/train/part-00000-of-00001.parquet", "other/notes.txt"]
    tnforge("build", str(bundled_tsv), "--out", f"{bucket}/full", "--overwrite", "--shards", "2")
    names = gcs.names("e2e-errors", "full/")
    assert "full/manifest.json" in names and "full/examples/train/part-00000-of-00001.parquet" not in names
    assert "full/examples/train/part-00001-of-00002.parquet" in names
    assert not [name for name in names if "/." in name]  # no scratch folder, no temporary object
