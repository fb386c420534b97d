"""The sentence family under torchrun: 2 gloo processes on the CPU train one sentence model from the bundled
build — rank 0 trains the SentencePiece inventory and every rank uses its bytes (the same as one process
trains), the run is written once, both ranks stepped together, and the run decodes raw text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

TINY = ["--embedding", "16", "--feature-embedding", "4", "--hidden", "16", "--attention", "16", "--width", "16",
        "--heads", "2", "--feedforward", "32", "--layers", "1", "--pieces", "300", "--features", "casing,position",
        "--dev-limit", "16", "--batch-size", "16", "--epochs", "1", "--device", "cpu", "--threads", "1",
        "--no-progress"]


def train(data: Path, out: Path, arch: str, ranks: int) -> subprocess.CompletedProcess:
    launcher = ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)] if ranks > 1 else []
    return subprocess.run([sys.executable, *launcher, "-m", "tnforge", "train", "sentence", "--data", str(data),
                           "--out", str(out), "--arch", arch, *TINY], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


@pytest.mark.parametrize("arch", ["lstm", "transformer"])
def test_two_ranks_train_one_sentence_run(bundled_build: Path, tmp_path: Path, arch: str) -> None:
    from tnforge.trainers.sentence.loading import FORMAT
    from tnforge.trainers.sentence.train import PIECES_FILE
    from tnforge.trainers.training.checkpoints import load_checkpoint

    two = train(bundled_build, tmp_path / "two", arch, ranks=2)
    assert two.returncode == 0, two.stderr
    assert two.stdout.count("best dev (step") == 1 and two.stderr.count("stopped after") == 1
    state = load_checkpoint(tmp_path / "two" / "checkpoint.pt", FORMAT)["training"]
    assert (state["world"], state["global_batch"], state["epoch"]) == (2, 16, 1)
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == [
        "best.pt", "checkpoint.pt", "metrics.jsonl", "pieces.model", "run.json", "timing.jsonl", "training.png"]

    one = train(bundled_build, tmp_path / "one", arch, ranks=1)
    assert one.returncode == 0, one.stderr
    assert (tmp_path / "two" / PIECES_FILE).read_bytes() == (tmp_path / "one" / PIECES_FILE).read_bytes()

    from click.testing import CliRunner

    from tnforge.cli import cli

    done = CliRunner().invoke(cli, ["normalize", "--model", str(tmp_path / "two"), "--unguarded", "--device", "cpu",
                                    "It weighs 3 kg."])
    assert done.exit_code == 0, done.output
    assert done.output.strip()
