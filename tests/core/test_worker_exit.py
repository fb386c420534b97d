"""`worker_console.fast_worker_exit`: a Beam worker process skips the interpreter's tear-down after a normal
exit, keeps it (and its exit status) after a failure, and does nothing outside a worker process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tnforge.worker_console import WORKER_VARIABLE

SCRIPT = """
import atexit, sys
from pathlib import Path
atexit.register(Path(sys.argv[1]).write_text, "torn down")  # registered first: runs last, if at all
from tnforge.worker_console import fast_worker_exit
fast_worker_exit()
print("done", flush=False)  # buffered: the fast exit must still flush it
if sys.argv[2] == "fail":
    raise RuntimeError("boom")
"""


def _run(tmp_path: Path, mode: str, worker: bool) -> tuple[subprocess.CompletedProcess, Path]:
    marker = tmp_path / f"{mode}-{worker}.txt"
    env = {k: v for k, v in os.environ.items() if k != WORKER_VARIABLE}
    if worker:
        env[WORKER_VARIABLE] = "url: 'localhost:0'"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(marker), mode], env=env, capture_output=True,
                          text=True, timeout=60)
    return done, marker


def test_worker_process_skips_the_tear_down_after_a_normal_exit(tmp_path: Path) -> None:
    done, marker = _run(tmp_path, "ok", worker=True)
    assert done.returncode == 0
    assert done.stdout == "done\n"
    assert not marker.exists()  # the earlier exit handler never ran: os._exit ended the process


def test_worker_process_failure_keeps_its_status_and_tear_down(tmp_path: Path) -> None:
    done, marker = _run(tmp_path, "fail", worker=True)
    assert done.returncode == 1
    assert "RuntimeError: boom" in done.stderr
    assert marker.read_text() == "torn down"


def test_outside_a_worker_process_nothing_changes(tmp_path: Path) -> None:
    done, marker = _run(tmp_path, "ok", worker=False)
    assert done.returncode == 0
    assert done.stdout == "done\n"
    assert marker.read_text() == "torn down"
