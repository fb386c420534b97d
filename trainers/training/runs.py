"""A training run's folder as both families write it: the outcome (`TrainResult`), the metrics log, and the
checks that keep a run safe (no silent overwrite, no corpus file as data, a resumable Ctrl-C)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tnforge.errors import Interrupted
from tnforge.trainers.training.checkpoints import BEST, LAST

#: The JSONL log of a run (one record per event: train windows, dev evaluations): reproducible, so a resumed
#: run's is the same as an uninterrupted one's.
METRICS = "metrics.jsonl"
#: The wall-clock side of the log (seconds, examples/s), which no two runs share.
TIMING = "timing.jsonl"


@dataclass
class TrainResult:
    """A training run's outcome: its folder, epochs and steps done, seconds, best dev record, why it stopped, and
    `advice`: a line when its time budget ended it far from converged (`budget.budget_advice`)."""

    run: Path
    epochs: int
    steps: int
    seconds: float
    best: dict[str, Any]
    stopped: str
    advice: str = field(default="", kw_only=True)

    @property
    def stop_note(self) -> str:
        """How the run stopped, as `tnforge train` prints it on stderr (with the engine's advice, if any)."""
        return (f"stopped after {self.steps} steps / {self.epochs} epochs in {self.seconds / 60:.1f} min "
                f"({self.stopped})" + (f"\n{self.advice}" if self.advice else ""))


def log_metrics(path: Path, record: dict[str, Any]) -> None:
    """Append one record to a run's metrics JSONL."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")


#: What a training run writes into its folder (the only files `--overwrite` removes).
RUN_FILES = (LAST, BEST, METRICS, TIMING, "training.png", "dev.md")


class TrainingInterrupted(Interrupted):
    """Training stopped by Ctrl-C after saving a resumable checkpoint; the message says how to resume (the CLI
    prints it as one line, exit status 130: `tnforge.errors.report`)."""

    def __init__(self, checkpoint: Path, step: int, command: str) -> None:
        self.checkpoint, self.step, self.command = checkpoint, step, command
        super().__init__(f"interrupted at step {step}; the training state is saved in {checkpoint}\n"
                         f"resume with: {command}")


def resume_command(trainer: str, data: str, out: str) -> str:
    """The command line that resumes a run of `tnforge train TRAINER`."""
    import shlex

    return f"tnforge train {trainer} --data {shlex.quote(str(data))} --out {shlex.quote(str(out))} --resume"


#: Names of the corpus files `tnforge build` reads (a file like these given as a dataset is a corpus file).
_CORPUS_SUFFIXES = (".tsv", ".csv", ".txt", ".gz", ".bz2")


def check_not_corpus(path: str | os.PathLike) -> None:
    """Refuse a file that is not Parquet where a dataset is wanted: a corpus TSV/CSV (build it first), another
    file, or a Parquet file cut short (no footer)."""
    from tnforge.filesystems import is_file, open_seekable

    if not is_file(path):
        return
    with open_seekable(path) as handle:
        magic = handle.read(4)
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 4))
        tail = handle.read(4)
    name = str(path).lower()
    if magic != b"PAR1" and (name.endswith(_CORPUS_SUFFIXES) or "output-" in name.rsplit("/", 1)[-1]):
        raise ValueError(f"{path} is a corpus file: run `tnforge build {path} --out DIR` first, then train on DIR")
    if magic != b"PAR1":
        raise ValueError(f"{path}: not a Parquet file (a dataset directory, a folder of its Parquet files or one "
                         "of them is needed)")
    if tail != b"PAR1" or size < 12:
        raise ValueError(f"{path}: a damaged Parquet file (cut short: no footer)")


def prepare_run_directory(out: str | os.PathLike, resume: bool, overwrite: bool,
                          files: tuple[str, ...] = RUN_FILES) -> Path:
    """Check a run folder before anything is written: a non-empty one needs `resume` (and a checkpoint to
    resume) or `overwrite` (which removes the files of the old run, `files`, and nothing else)."""
    run = Path(out)
    if resume and overwrite:
        raise ValueError("--resume and --overwrite exclude each other: continue the run, or replace it")
    if run.exists() and not run.is_dir():
        raise ValueError(f"{run}: not a directory")
    if resume:
        if not (run / LAST).is_file():
            raise ValueError(f"{run}: nothing to resume (no {LAST}); drop --resume to start a new run")
        return run
    if run.is_dir() and any(run.iterdir()):
        if not overwrite:
            raise ValueError(f"{run} is not empty (an earlier run?): add --resume to continue it, or --overwrite "
                             "to replace it")
        for name in files:
            (run / name).unlink(missing_ok=True)
    return run


def file_size(path: Path) -> int:
    """The size of a log in bytes (0 when absent)."""
    return path.stat().st_size if path.exists() else 0


def truncate(path: Path, size: int) -> None:
    """Cut a log back to `size` bytes: the records written after the checkpoint being resumed go."""
    if path.exists() and path.stat().st_size > size:
        with open(path, "r+b") as handle:
            handle.truncate(size)
