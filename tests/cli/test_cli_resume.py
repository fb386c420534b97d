"""`--resume` keeps the run: the `resume with:` line a Ctrl-C prints is the exact command, and it restores every
option the run was started with (budget, epochs, patience, threads, the network …) for every trainer on the
engine; runtime options given again explicitly override theirs and are named; the budget counts the time the
run has spent already."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from tests.support.interrupts import interrupt_at  # noqa: E402
from tests.support.tiny_models import write_pair_dataset, write_sentence_dataset  # noqa: E402
from tnforge.cli import cli  # noqa: E402
from tnforge.manifest import mark_complete, write_manifest  # noqa: E402
from tnforge.trainers.training.checkpoints import load_checkpoint  # noqa: E402

#: Per trainer: its checkpoint format, tiny network options and the recorded network value to check.
TRAINERS = {
    "seq2seq": ("tnforge-seq2seq", ["--input-embedding", "8", "--output-embedding", "8", "--encoder-hidden", "16",
                                    "--decoder-hidden", "16", "--attention", "8"], ("model", "encoder_hidden", 16)),
    "dnc": ("tnforge-dnc", ["--input-embedding", "8", "--output-embedding", "8", "--controller-hidden", "16",
                            "--memory-slots", "8", "--memory-width", "8", "--read-heads", "1", "--attention", "8"],
            ("model", "controller_hidden", 16)),
    "sentence": ("tnforge-sentence", ["--batch-size", "1", "--pieces", "120", "--embedding", "16", "--feature-embedding", "4",
                                      "--hidden", "16", "--attention", "8", "--layers", "1"],
                 ("model", "hidden", 16)),
    "seq-de": ("tnforge-dual-encoder", ["--clip", "1", "--dim", "16", "--hidden", "16", "--buckets", "4096", "--cross-buckets", "0"],
               ("model", "hidden", 16)),
    "voc-de": ("tnforge-dual-encoder", ["--clip", "1", "--dim", "16", "--hidden", "16", "--buckets", "4096"],
               ("model", "hidden", 16)),
}
#: The options a run is started with: none is a default, so a resume that falls back to defaults shows.
STARTED = ["--device", "cpu", "--threads", "1", "--epochs", "2", "--patience", "3", "--max-minutes", "7",
           "--batch-size", "4", "--no-progress"]  # the sentence trainer's 4 sentences: --batch-size 1 (given last)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("resume-data")
    pairs = Path(write_pair_dataset(tmp / "pairs"))
    write_manifest(pairs, mark_complete({"negatives": {"kinds": ["hand-made"]}}))  # finished pairs
    return {"examples": write_sentence_dataset(tmp / "sentences"), "pairs": pairs}


def _start(trainer: str, data: Path, run: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Start a run, Ctrl-C it at its third step; the printed resume command, as arguments of `tnforge`."""
    with monkeypatch.context() as patch:
        interrupt_at(patch, 3)
        result = CliRunner().invoke(cli, ["train", trainer, "--data", str(data), "--out", str(run), *STARTED,
                                          *TRAINERS[trainer][1]])
    assert result.exit_code == 130, result.output
    line = result.output.strip().splitlines()[-1]
    assert line == f"resume with: tnforge train {trainer} --data {data} --out {run} --resume", result.output
    return shlex.split(line.removeprefix("resume with: "))[1:]


def _recorded(trainer: str, run: Path) -> dict:
    return load_checkpoint(run / "checkpoint.pt", TRAINERS[trainer][0])


@pytest.mark.parametrize("trainer", list(TRAINERS))
def test_the_printed_resume_command_keeps_every_option(datasets, tmp_path, monkeypatch, trainer: str) -> None:
    data, run = datasets["pairs" if trainer.endswith("-de") else "examples"], tmp_path / "run"
    resume = _start(trainer, data, run, monkeypatch)
    result = CliRunner().invoke(cli, resume)
    assert result.exit_code == 0, result.output
    assert f"resuming {run} at step 3 (" in result.output and "of its 7-minute budget spent) with the options it " \
        "was started with" in result.output
    assert "changed by the command line" not in result.output
    payload = _recorded(trainer, run)
    config, (nested, name, value) = payload["config"], TRAINERS[trainer][2]
    assert (config["max_minutes"], config["epochs"], config["patience"], config["threads"], config["batch_size"],
            config["progress"]) == (7, 2, 3, 1, 1 if trainer == "sentence" else 4, False)
    assert config[nested][name] == value
    assert payload["training"]["epoch"] == 2  # its recorded 2 epochs ran (the default is 40)


def test_explicit_options_override_and_are_named(datasets, tmp_path, monkeypatch) -> None:
    run = tmp_path / "run"
    resume = _start("seq2seq", datasets["examples"], run, monkeypatch)
    result = CliRunner().invoke(cli, [*resume, "--max-minutes", "9", "--epochs", "1", "--encoder-hidden", "32"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "changed by the command line: --epochs 2 → 1, --max-minutes 7 → 9" in lines
    assert any(line.startswith("kept as the run recorded them: --encoder-hidden (a resumed run changes only")
               for line in lines), lines
    config = _recorded("seq2seq", run)["config"]
    assert (config["max_minutes"], config["epochs"], config["model"]["encoder_hidden"]) == (9, 1, 16)


def test_the_budget_counts_the_time_already_spent(datasets, tmp_path, monkeypatch) -> None:
    """A run that had spent its whole budget when it was stopped resumes to a dev evaluation and stops."""
    run = tmp_path / "run"
    resume = _start("seq2seq", datasets["examples"], run, monkeypatch)
    payload = torch.load(run / "checkpoint.pt", weights_only=False)
    payload["training"]["elapsed"] = 7 * 60.0
    torch.save(payload, run / "checkpoint.pt")
    result = CliRunner().invoke(cli, resume)
    assert result.exit_code == 0, result.output
    assert "(7.0 minutes of its 7-minute budget spent)" in result.output
    assert "stopped after 3 steps / 0 epochs" in result.output and "(time limit)" in result.output
