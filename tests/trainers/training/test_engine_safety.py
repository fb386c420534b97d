"""Training is safe: a non-empty --out needs --resume or --overwrite, Ctrl-C saves a resumable checkpoint and
prints the resume command (exit 130), and an empty train split or a corpus file as --data is refused before
anything is written. A tiny seq2seq model and tiny dual encoders on the bundled sample build."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from tnforge import datasets  # noqa: E402
from tnforge.cli import cli  # noqa: E402

#: A tiny seq2seq model on the original examples of the bundled build (no up-sampling copies).
TINY_SEQ2SEQ = ["--device", "cpu", "--epochs", "1", "--batch-size", "64", "--max-copies", "1", "--dev-limit", "64",
                "--input-embedding", "8", "--output-embedding", "8", "--encoder-hidden", "16", "--decoder-hidden",
                "16", "--attention", "8", "--no-progress", "--threads", "1"]
TINY_DE = ["--device", "cpu", "--epochs", "2", "--batch-size", "1024", "--dim", "16", "--hidden", "16",
           "--buckets", "4096", "--no-progress", "--threads", "1"]


def invoke(*args: str):
    return CliRunner().invoke(cli, ["train", *map(str, args)])


def steps_on_every_call(monkeypatch: pytest.MonkeyPatch, target: str, after: int) -> list[int]:
    """Make `target` (a dotted function) send this process Ctrl-C (SIGINT) on its call number `after` + 1."""
    import importlib

    module_name, name = target.rsplit(".", 1)
    module = importlib.import_module(module_name)
    original, calls = getattr(module, name), []

    def interrupting(*args, **kwargs):
        calls.append(1)
        if len(calls) == after + 1:
            signal.raise_signal(signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupting)
    return calls


def test_seq2seq_ctrl_c_saves_a_resumable_checkpoint_and_resume_continues(
        bundled_build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge.trainers.seq2seq.loading import FORMAT
    from tnforge.trainers.training.checkpoints import load_checkpoint

    out = tmp_path / "run"
    # Ctrl-C during the 4th batch's step: that step finishes, the run stops at the boundary after it.
    with monkeypatch.context() as patch:
        steps_on_every_call(patch, "torch.nn.utils.clip_grad_norm_", 3)
        result = invoke("seq2seq", "--data", bundled_build, "--out", out, *TINY_SEQ2SEQ)
    assert result.exit_code == 130, result.output
    assert f"tnforge train seq2seq --data {bundled_build} --out {out} --resume" in result.output
    assert "interrupted at step 4" in result.output and "Traceback" not in result.output
    state = load_checkpoint(out / "checkpoint.pt", FORMAT)["training"]
    assert (state["step"], state["epoch"], state["steps_in_plan"]) == (4, 0, 4)

    again = invoke("seq2seq", "--data", bundled_build, "--out", out, *TINY_SEQ2SEQ)
    assert again.exit_code == 1 and "is not empty" in again.output and "--resume" in again.output
    resumed = invoke("seq2seq", "--data", bundled_build, "--out", out, "--resume", *TINY_SEQ2SEQ)
    assert resumed.exit_code == 0, resumed.output
    straight = invoke("seq2seq", "--data", bundled_build, "--out", tmp_path / "straight", *TINY_SEQ2SEQ)
    assert straight.exit_code == 0, straight.output
    final = load_checkpoint(out / "checkpoint.pt", FORMAT)
    expected = load_checkpoint(tmp_path / "straight" / "checkpoint.pt", FORMAT)
    assert final["training"]["epoch"] == expected["training"]["epoch"] == 1
    assert final["training"]["step"] == expected["training"]["step"] > 4
    assert all(torch.equal(tensor, final["model"][name]) for name, tensor in expected["model"].items())
    assert (out / "metrics.jsonl").read_bytes() == (tmp_path / "straight" / "metrics.jsonl").read_bytes()
    dev = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in dev if r["event"] == "dev"] == [final["training"]["step"]]


def test_seq2seq_overwrite_replaces_the_run(bundled_build: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "best.pt").write_bytes(b"an old model")
    (out / "notes.txt").write_text("mine")
    refused = invoke("seq2seq", "--data", bundled_build, "--out", out, *TINY_SEQ2SEQ)
    assert refused.exit_code == 1
    assert refused.output.strip().splitlines()[-1] == (
        f"Error: {out} is not empty (an earlier run?): add --resume to continue it, or --overwrite to replace it")
    assert (out / "best.pt").read_bytes() == b"an old model" and sorted(p.name for p in out.iterdir()) == [
        "best.pt", "notes.txt"]
    nothing = invoke("seq2seq", "--data", bundled_build, "--out", out, "--resume", *TINY_SEQ2SEQ)
    assert nothing.exit_code == 1 and "nothing to resume (no checkpoint.pt)" in nothing.output
    replaced = invoke("seq2seq", "--data", bundled_build, "--out", out, "--overwrite", *TINY_SEQ2SEQ)
    assert replaced.exit_code == 0, replaced.output
    assert (out / "best.pt").read_bytes() != b"an old model" and (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("trainer", ["seq2seq", "seq-de", "voc-de"])
def test_a_corpus_file_as_data_is_refused(bundled_tsv: Path, tmp_path: Path, trainer: str) -> None:
    result = invoke(trainer, "--data", bundled_tsv, "--out", tmp_path / "run")
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: {bundled_tsv} is a corpus file: run `tnforge build {bundled_tsv} "
                                     "--out DIR` first, then train on DIR")
    assert not (tmp_path / "run").exists()


def test_an_empty_train_split_is_refused(bundled_build: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(bundled_build, data, ignore=shutil.ignore_patterns("validation"))
    for path in datasets.dataset_files(data, "examples", "train"):
        table = pq.read_table(path)
        pq.write_table(table.slice(0, 0), path)
    result = invoke("seq2seq", "--data", data, "--out", tmp_path / "run", *TINY_SEQ2SEQ)
    assert result.exit_code == 1
    assert result.output.strip() == f"Error: {data}: the train split has no examples: nothing to train on"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("trainer", "batches"), [("seq-de", 3), ("voc-de", 5)])
def test_dual_encoder_ctrl_c_resumes_where_it_stopped(bundled_build: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, trainer: str,
                                                      batches: int) -> None:
    from tnforge.trainers.dual_encoders.scorer import FORMAT
    from tnforge.trainers.training.checkpoints import load_checkpoint

    out = tmp_path / "run"
    with monkeypatch.context() as patch:  # _pack runs twice a batch: Ctrl-C in batch `batches` + 1, which ends
        steps_on_every_call(patch, "tnforge.trainers.dual_encoders.train._pack", 2 * batches)
        result = invoke(trainer, "--data", bundled_build, "--out", out, *TINY_DE)
    assert result.exit_code == 130, result.output
    assert f"interrupted at step {batches + 1};" in result.output
    assert f"tnforge train {trainer} --data {bundled_build} --out {out} --resume" in result.output
    state = load_checkpoint(out / "checkpoint.pt", FORMAT)["training"]
    assert (state["step"], state["epoch"], state["steps_in_plan"]) == (batches + 1, 0, batches + 1)
    assert invoke(trainer, "--data", bundled_build, "--out", out, *TINY_DE).exit_code == 1  # neither flag

    resumed = invoke(trainer, "--data", bundled_build, "--out", out, "--resume", *TINY_DE)
    assert resumed.exit_code == 0, resumed.output
    straight = invoke(trainer, "--data", bundled_build, "--out", tmp_path / "straight", *TINY_DE)
    assert straight.exit_code == 0, straight.output
    one = load_checkpoint(out / "checkpoint.pt", FORMAT)
    two = load_checkpoint(tmp_path / "straight" / "checkpoint.pt", FORMAT)
    assert one["training"]["step"] == two["training"]["step"] > batches and one["training"]["epoch"] == 2
    for name, tensor in two["model"].items():
        assert torch.equal(one["model"][name], tensor), name
    assert one["metrics"]["dev"]["auc"] == two["metrics"]["dev"]["auc"]
    assert (out / "metrics.jsonl").read_bytes() == (tmp_path / "straight" / "metrics.jsonl").read_bytes()
