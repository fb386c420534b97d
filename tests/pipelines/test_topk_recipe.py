"""The top-k recipe of docs/guides/constrained-decoding.md end to end, with tiny models: decode train and dev into
DIR/hyps/{train,dev} → `negatives DIR --kinds synthetic,random,topk --topk-from DIR/hyps` → `train voc-de` and
`train seq-de` on them → `loop`, resumed after its finished rounds; locally in one process, and on an emulated
gs:// bucket with the decodes and the negatives on Beam's portable runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.cli import cli  # noqa: E402


def tnforge(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, f"tnforge {' '.join(args)}:\n{result.output}"
    return result.output


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    result, _ = H.train_tiny(tmp_path_factory.mktemp("recipe"), epochs=3)
    return Path(result.run)


def topk_pairs(directory: str, read) -> int:
    manifest = json.loads(read(f"{directory}/manifest.json"))
    return sum(counts.get("topk", 0) for counts in manifest["negatives"]["counts"].values())


def recipe(run: Path, directory: str, runs: Path, beam_args: tuple[str, ...], read) -> None:
    """The recipe's commands as the guide writes them (tiny sizes and `--threads 1` added)."""
    after = ("--", *beam_args) if beam_args else ()
    for split in ("train", "dev"):
        tnforge("decode", "--model", str(run), "--data", directory, "--split", split, "--top-k", "3",
                "--out", f"{directory}/hyps/{split}", "--threads", "1", "--device", "cpu", *after)
    tnforge("negatives", directory, "--kinds", "synthetic,random,topk", "--topk-from", f"{directory}/hyps",
            "--ratio", "3", *after)
    assert topk_pairs(directory, read) > 0
    tnforge("train", "voc-de", "--data", directory, "--out", str(runs / "voc-topk"), "--negatives", "topk",
            "--epochs", "1", "--threads", "1", "--device", "cpu", "--no-progress")
    tnforge("train", "seq-de", "--data", directory, "--out", str(runs / "seq-de"), "--epochs", "1", "--threads", "1",
            "--device", "cpu", "--no-progress")
    assert (runs / "voc-topk" / "best.pt").is_file() and (runs / "seq-de" / "best.pt").is_file()


def test_the_topk_recipe_runs_as_written_and_the_loop_resumes(tiny_run, bundled_build, tmp_path):
    directory = tmp_path / "sample"
    shutil.copytree(bundled_build, directory)
    recipe(tiny_run, str(directory), tmp_path / "runs", (), lambda path: Path(path).read_text())
    loop = ("loop", "--model", str(tiny_run), "--data", str(directory), "--epochs", "1", "--out",
            str(tmp_path / "loop"), "--threads", "1", "--device", "cpu")
    tnforge(*loop, "--rounds", "1")
    first = (tmp_path / "loop" / "round-1" / "voc-de" / "best.pt").stat().st_mtime_ns
    said = tnforge(*loop, "--rounds", "2")  # as after an interrupt between rounds: round 1 is not run again
    assert (tmp_path / "loop" / "round-1" / "voc-de" / "best.pt").stat().st_mtime_ns == first
    assert (tmp_path / "loop" / "round-2" / "round.json").is_file() and "| 2 |" in said


@pytest.mark.slow
def test_the_topk_recipe_on_a_bucket_with_the_portable_runner(tiny_run, bundled_build, tmp_path, gcs, portable):
    portable_args, _logs = portable
    bucket = gcs.bucket("recipe")
    for path in sorted(p for p in bundled_build.rglob("*") if p.is_file()):
        gcs.upload(path, f"{bucket}/sample/{path.relative_to(bundled_build).as_posix()}")
    recipe(tiny_run, f"{bucket}/sample", tmp_path / "runs", (*portable_args, "--no_auth"),
           lambda uri: gcs.read(uri).decode())
    names = gcs.names("recipe", "sample/hyps/")
    assert "sample/hyps/train/_hypotheses.json" in names and "sample/hyps/dev/_hypotheses.json" in names
