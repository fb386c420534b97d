"""Beam's portable worker harness as a fixture: a local job service and an external SDK worker pool, each a
separate process for the module that uses it (`portable`)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accepts(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def tail(path: Path, lines: int = 20) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def portable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], Path]]:
    """(Beam options for a local job service and an external worker pool, both running for this module;
    the folder of their logs)."""
    logs = tmp_path_factory.mktemp("portable_services")
    job_port, pool_port = free_port(), free_port()
    while pool_port == job_port:
        pool_port = free_port()
    # The pool starts SDK workers with `python` from PATH: it must be this interpreter (the venv's).
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    commands = {
        "job service": ([sys.executable, "-m", "apache_beam.runners.portability.local_job_service_main",
                         "--port", str(job_port)], job_port),
        "worker pool": ([sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
                         "--service_port", str(pool_port)], pool_port),
    }
    processes: dict[str, tuple[subprocess.Popen, int, Path]] = {}
    try:
        for name, (command, port) in commands.items():
            log = logs / f"{name.replace(' ', '_')}.log"
            with log.open("wb") as out:
                processes[name] = (subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                                    start_new_session=True), port, log)
        deadline = time.monotonic() + START_TIMEOUT_S
        waiting = set(processes)
        while waiting:
            for name in list(waiting):
                process, port, _log = processes[name]
                if accepts(port):
                    waiting.discard(name)
                elif process.poll() is not None or time.monotonic() > deadline:
                    report = "\n".join(f"--- {n} (port {p}, exit {proc.poll()}):\n{tail(log)}"
                                       for n, (proc, p, log) in processes.items())
                    pytest.fail(f"the {name} did not accept connections on port {port} within "
                                f"{START_TIMEOUT_S} s\n{report}")
            time.sleep(0.2)
        yield (["--runner=PortableRunner", f"--job_endpoint=localhost:{job_port}",
                "--environment_type=EXTERNAL", f"--environment_config=localhost:{pool_port}"], logs)
    finally:
        for process, _port, _log in processes.values():
            stop(process)
