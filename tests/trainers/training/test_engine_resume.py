"""Exact resume: a run stopped by Ctrl-C at any step boundary (mid-epoch, right after a dev evaluation, at an
epoch's end), or killed after a checkpoint, and resumed, writes the same metrics.jsonl and bitwise the same
weights as a run never stopped (CPU, one process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tests.support.interrupts import interrupt_at  # noqa: E402
from tnforge.trainers.training.checkpoints import load_checkpoint  # noqa: E402
from tnforge.trainers.training.runs import TrainingInterrupted  # noqa: E402

TINY = {"input_embedding": 8, "output_embedding": 8, "encoder_hidden": 16, "decoder_hidden": 16, "attention": 8}


def seq2seq_config(data: Path, out: Path):
    from tnforge.trainers.seq2seq.model import Seq2SeqConfig
    from tnforge.trainers.seq2seq.train import Seq2SeqTrainConfig

    return Seq2SeqTrainConfig(data=str(data), out=str(out), device="cpu", epochs=3, batch_size=32, max_copies=1,
                       dev_limit=64, threads=1, progress=False, eval_every=7, model=Seq2SeqConfig(**TINY))


def train_seq2seq(data: Path, out: Path, resume: bool = False):
    from tnforge.trainers.seq2seq.train import train

    return train(seq2seq_config(data, out), resume=resume)


def same_run(one: Path, two: Path, format: str = "tnforge-seq2seq") -> None:
    assert (one / "metrics.jsonl").read_bytes() == (two / "metrics.jsonl").read_bytes()
    a, b = load_checkpoint(one / "checkpoint.pt", format), load_checkpoint(two / "checkpoint.pt", format)
    assert a["model"].keys() == b["model"].keys()
    assert all(torch.equal(a["model"][name], b["model"][name]) for name in a["model"])
    assert a["training"]["step"] == b["training"]["step"]


@pytest.fixture(scope="module")
def straight(bundled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("straight") / "run"
    train_seq2seq(bundled_build, out)
    return out


def epoch_ends(run: Path) -> list[int]:
    """The steps of the dev evaluations that closed an epoch (the next one's records have a higher epoch)."""
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    dev = [r for r in records if r["event"] == "dev"]
    return [a["step"] for a, b in zip(dev, dev[1:], strict=False) if b["epoch"] > a["epoch"]]


@pytest.mark.parametrize("where", ["mid-epoch", "after a dev evaluation", "last step of an epoch",
                                   "first step of an epoch"])
def test_ctrl_c_and_resume_match_a_run_never_stopped(bundled_build: Path, straight: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    end = epoch_ends(straight)[0]
    step = {"mid-epoch": 5, "after a dev evaluation": 14, "last step of an epoch": end,
            "first step of an epoch": end + 1}[where]
    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        interrupt_at(patch, step)
        with pytest.raises(TrainingInterrupted) as stopped:
            train_seq2seq(bundled_build, out)
    assert stopped.value.step == step
    train_seq2seq(bundled_build, out, resume=True)
    same_run(straight, out)


def test_a_run_killed_after_a_checkpoint_resumes_exactly(bundled_build: Path, straight: Path,
                                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL leaves checkpoint.pt of the last evaluation and a log that went on: the records written after
    the checkpoint are dropped on resume, and the run goes on as if never stopped."""
    from tnforge.trainers.kernel import window_task as training

    out, kept = tmp_path / "run", tmp_path / "at-step-14.pt"
    original = training.save_window

    def saving(path, *args, **kwargs):
        original(path, *args, **kwargs)
        payload = args[5] if len(args) > 5 else kwargs.get("training")
        if Path(path).name == "checkpoint.pt" and payload and payload["step"] == 14:
            shutil.copy(path, kept)

    monkeypatch.setattr(training, "save_window", saving)
    train_seq2seq(bundled_build, out)  # runs to its end, like the straight run
    monkeypatch.undo()
    shutil.copy(kept, out / "checkpoint.pt")  # as if killed right after step 14's checkpoint
    assert len((out / "metrics.jsonl").read_bytes()) > load_checkpoint(kept, "tnforge-seq2seq")["training"][
        "metrics_bytes"]
    train_seq2seq(bundled_build, out, resume=True)
    same_run(straight, out)


@pytest.mark.parametrize("step", [3, 8])
def test_a_dual_encoder_resumes_exactly(bundled_build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        step: int) -> None:
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    def config(out: Path) -> DETrainConfig:
        return DETrainConfig(data=str(bundled_build), out=str(out), kind="sequence", device="cpu", epochs=3,
                             batch_size=512, progress=False, threads=1, clip=1.0,
                             model=DualEncoderConfig(dim=16, hidden=16, input_buckets=4096, output_buckets=4096))

    train_dual_encoder(config(tmp_path / "straight"))
    with monkeypatch.context() as patch:
        interrupt_at(patch, step)
        with pytest.raises(TrainingInterrupted):
            train_dual_encoder(config(tmp_path / "run"))
    train_dual_encoder(config(tmp_path / "run"), resume=True)
    same_run(tmp_path / "straight", tmp_path / "run", "tnforge-dual-encoder")


def test_an_old_training_state_is_refused_in_one_line(straight: Path, tmp_path: Path, bundled_build: Path) -> None:
    out = tmp_path / "old"
    shutil.copytree(straight, out)
    payload = torch.load(out / "checkpoint.pt", weights_only=False)
    payload["training"] = {"epoch": 1, "step": 10, "batch_in_epoch": 3}  # what tnforge 0.1's loops saved
    torch.save(payload, out / "checkpoint.pt")
    with pytest.raises(ValueError, match="saved by an older tnforge .* best.pt still decodes. Train again with "
                                         "--overwrite"):
        train_seq2seq(bundled_build, out, resume=True)


def test_a_sentence_model_resumes_exactly(bundled_build: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge.trainers.sentence.model import SentenceModelConfig
    from tnforge.trainers.sentence.train import SentenceTrainConfig, train

    def config(out: Path) -> SentenceTrainConfig:
        return SentenceTrainConfig(data=str(bundled_build), out=str(out), device="cpu", epochs=1, batch_size=32,
                                   pieces=300, dev_limit=4, eval_every=5, threads=1, progress=False,
                                   pool_size=128, model=SentenceModelConfig(
                                       arch="transformer", embedding=8, feature_embedding=4, width=16, heads=2,
                                       feedforward=16, layers=1))

    train(config(tmp_path / "straight"))
    with monkeypatch.context() as patch:
        interrupt_at(patch, 7)
        with pytest.raises(TrainingInterrupted):
            train(config(tmp_path / "run"))
    train(config(tmp_path / "run"), resume=True)
    same_run(tmp_path / "straight", tmp_path / "run", "tnforge-sentence")


def test_run_json_records_config_world_data_and_every_session(bundled_build: Path, straight: Path,
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run.json says how a run was trained without unpickling it: its whole config (equal to the checkpoint's),
    world size, global batch, the data manifest's hash, versions, each session (a resume adds one) and the
    outcome, which the resumed run ends with the same as the straight one."""
    import hashlib

    from tnforge.trainers.training.run_record import read_run_record

    record = read_run_record(straight)
    payload = load_checkpoint(straight / "checkpoint.pt", "tnforge-seq2seq")
    assert record["config"] == payload["config"] and record["format"] == "tnforge-seq2seq"
    assert (record["world_size"], record["global_batch"], record["command"]) == (1, 32, "tnforge train seq2seq")
    assert record["data"]["manifest_sha256"] == hashlib.sha256(
        (bundled_build / "manifest.json").read_bytes()).hexdigest()
    assert record["versions"]["torch"] == str(torch.__version__)
    assert [s["resumed"] for s in record["sessions"]] == [False]
    assert record["outcome"]["steps"] == payload["training"]["step"] and record["outcome"]["stopped"] == "epochs"

    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        interrupt_at(patch, 5)
        with pytest.raises(TrainingInterrupted):
            train_seq2seq(bundled_build, out)
    assert read_run_record(out)["outcome"] is None  # stopped: no outcome yet
    train_seq2seq(bundled_build, out, resume=True)
    resumed = read_run_record(out)
    assert [s["resumed"] for s in resumed["sessions"]] == [False, True]
    assert resumed["outcome"] == record["outcome"]
