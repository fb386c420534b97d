"""Distributed training with torchrun: 2 gloo processes on the CPU train one seq2seq (tests/support/ddp_worker.py logs
what each rank trains). Every example is read once per epoch by exactly one rank, the ranks hold the same
weights at every step, uneven parts end without a hang, the loss curve follows one process's with the same
global batch, and a checkpoint of 2 ranks resumes on 1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

torch = pytest.importorskip("torch")
if not torch.distributed.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

from tests.support.paths import REPO  # noqa: E402
from tnforge import datasets  # noqa: E402

WORKER = REPO / "tests" / "support" / "ddp_worker.py"
#: Largest relative difference allowed between the dev losses of 1 and 2 processes (same global batch): the
#: ranks' batches hold other examples than the single process's, so the curves agree in shape, not in bits.
CURVE_TOLERANCE = 0.10
UNIT_ROWS = 150


def run(*args: str, ranks: int = 1, timeout: int = 240) -> subprocess.CompletedProcess:
    """The worker (or a tnforge command: args starting with -m) on `ranks` gloo processes, or plainly on 1."""
    command = [*args] if args[0] == "-m" else [str(WORKER), *args]
    launcher = ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)] if ranks > 1 else []
    return subprocess.run([sys.executable, *launcher, *command], capture_output=True, text=True, timeout=timeout,
                          env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})


def records(log: Path, rank: int) -> list[dict]:
    return [json.loads(line) for line in Path(f"{log}.rank{rank}").read_text().splitlines()]


def trained_rows(*logs: list[dict]) -> Counter:
    return Counter(tuple(row) for log in logs for record in log for row in record["rows"])


def train_rows(data: Path) -> Counter:
    """The (input, reading) rows a run with max_copies=1 trains on: the train examples that are not copies."""
    table = pq.read_table(datasets.dataset_files(data, "examples", "train"), columns=["input", "after", "copy"])
    table = table.filter(pc.equal(table["copy"], 0))
    return Counter(zip(table["input"].to_pylist(), table["after"].to_pylist(), strict=True))


def dev_losses(run_dir: Path) -> list[float]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [r["dev_loss"] for r in map(json.loads, lines) if r["event"] == "dev"]


def test_two_ranks_read_every_example_once_and_hold_the_same_weights(bundled_build: Path, tmp_path: Path) -> None:
    from tnforge.trainers.training.checkpoints import load_checkpoint

    done = run("--data", str(bundled_build), "--out", str(tmp_path / "run"), "--record", str(tmp_path / "log"),
               "--unit-rows", str(UNIT_ROWS), ranks=2)
    assert done.returncode == 0, done.stderr
    zero, one = records(tmp_path / "log", 0), records(tmp_path / "log", 1)
    assert len(zero) == len(one) > 0  # the ranks step together to the end of the epoch
    assert [r["weights"] for r in zero] == [r["weights"] for r in one]  # DDP: equal weights before every step
    assert trained_rows(zero) and trained_rows(one)
    assert trained_rows(zero, one) == train_rows(bundled_build)  # every example once, by one rank
    assert sum(trained_rows(zero).values()) != sum(trained_rows(one).values())  # uneven parts: no hang
    state = load_checkpoint(tmp_path / "run" / "checkpoint.pt", "tnforge-seq2seq")["training"]
    assert (state["world"], state["global_batch"], state["epoch"]) == (2, 32, 1)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "best.pt", "checkpoint.pt", "metrics.jsonl", "run.json", "timing.jsonl", "training.png"]
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (record["world_size"], record["global_batch"], record["sessions"][0]["per_rank_batch"]) == (2, 32, 16)


def test_two_ranks_follow_one_process_with_the_same_global_batch(bundled_build: Path, tmp_path: Path) -> None:
    common = ["--data", str(bundled_build), "--epochs", "3", "--batch-size", "32", "--unit-rows", str(UNIT_ROWS)]
    one = run(*common, "--out", str(tmp_path / "one"), "--record", str(tmp_path / "one-log"))
    two = run(*common, "--out", str(tmp_path / "two"), "--record", str(tmp_path / "two-log"), ranks=2)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    single, double = dev_losses(tmp_path / "one"), dev_losses(tmp_path / "two")
    assert len(single) == len(double) == 3 and single[-1] < single[0] and double[-1] < double[0]
    for a, b in zip(single, double, strict=True):
        assert abs(a - b) / a <= CURVE_TOLERANCE, (single, double)


def test_a_two_rank_checkpoint_resumes_on_one_process(bundled_build: Path, tmp_path: Path) -> None:
    from tnforge.trainers.training.checkpoints import load_checkpoint

    out, log = tmp_path / "run", tmp_path / "log"
    common = ["--data", str(bundled_build), "--out", str(out), "--unit-rows", str(UNIT_ROWS)]
    stopped = run(*common, "--record", str(log), "--stop-at", "4", ranks=2)
    assert stopped.returncode != 0 and "interrupted" not in stopped.stdout
    state = load_checkpoint(out / "checkpoint.pt", "tnforge-seq2seq")["training"]
    assert (state["world"], state["step"], state["epoch"]) == (2, 4, 0)
    resumed = run(*common, "--record", str(tmp_path / "resumed"), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming on 1 rank(s) a run saved on 2" in resumed.stderr
    before = trained_rows(records(log, 0)[:4], records(log, 1)[:4])
    after = trained_rows(records(tmp_path / "resumed", 0))
    wanted = train_rows(bundled_build)
    seen = before + after
    assert all(seen[row] >= count for row, count in wanted.items())  # nothing of the epoch is skipped
    assert sum((seen - wanted).values()) <= 2 * UNIT_ROWS  # only the 2 units in progress are read again
    final = load_checkpoint(out / "checkpoint.pt", "tnforge-seq2seq")["training"]
    assert (final["world"], final["epoch"]) == (1, 1)


def test_torchrun_runs_the_train_command_once(bundled_build: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = run("-m", "tnforge", "train", "seq2seq", "--data", str(bundled_build), "--out", str(out), "--device",
               "cpu", "--epochs", "1", "--batch-size", "32", "--max-copies", "1", "--dev-limit", "64",
               "--input-embedding", "8", "--output-embedding", "8", "--encoder-hidden", "16", "--decoder-hidden",
               "16", "--attention", "8", "--no-progress", "--threads", "1", ranks=2)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("best dev (step") == 1 and f"model: {out / 'best.pt'}" in done.stdout
    assert done.stderr.count("stopped after") == 1
