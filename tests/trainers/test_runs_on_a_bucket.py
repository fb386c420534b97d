"""Model runs on gs:// (the adversarial loop's filters read by Beam's workers, a model kept in a bucket): copied
whole between a bucket and local disk, and loaded from a temporary local copy by the family registry, the
decodes the same bytes as from the local run."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.cli import cli  # noqa: E402
from tnforge.folder_copies import copy_folder, local_copy  # noqa: E402


def digests(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_run_copied_to_a_bucket_and_back_is_the_same_files(tmp_path, gcs):
    result, _data = H.train_tiny(tmp_path, epochs=1)
    run = Path(result.run)
    remote = f"{gcs.bucket('runs')}/tiny"
    copy_folder(run, remote)
    assert sorted(gcs.names("runs", "tiny/")) == sorted(f"tiny/{name}" for name in digests(run))
    with local_copy(remote) as local:
        assert digests(local) == digests(run)
        copied = local
    assert not copied.exists()  # the temporary copy is gone on leaving
    with local_copy(run) as local:
        assert local == run  # a local run is read where it is
    with pytest.raises(FileNotFoundError, match="no such folder, or nothing in it"):
        copy_folder(f"{remote}-missing", tmp_path / "nowhere")


def test_decode_with_a_model_on_a_bucket_writes_the_local_models_bytes(tmp_path, gcs):
    result, data = H.train_tiny(tmp_path, epochs=1)
    remote = f"{gcs.bucket('models')}/tiny"
    copy_folder(result.run, remote)
    outputs = {}
    for where, model in (("local", str(result.run)), ("gs", remote)):
        out = tmp_path / f"{where}.parquet"
        said = CliRunner().invoke(cli, ["decode", "--model", model, "--data", str(data), "--split", "dev",
                                        "--top-k", "2", "--out", str(out), "--threads", "1", "--device", "cpu"])
        assert said.exit_code == 0, said.output
        outputs[where] = out.read_bytes()
    assert outputs["gs"] == outputs["local"]
    missing = CliRunner().invoke(cli, ["decode", "--model", f"{remote}-missing", "--data", str(data), "--out",
                                       str(tmp_path / "x.parquet")])
    assert missing.exit_code == 2 and f"{remote}-missing: does not exist" in missing.output
