"""Progress bars in logs: when standard error is not a terminal, whole lines now and then, never carriage returns."""

from __future__ import annotations

import time

import tnforge.progress as progress


def test_logged_bar_writes_whole_lines_at_the_interval_and_one_when_closed(capsys, monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.05)
    bar = progress.progress_bar(total=40, desc="train", unit="batch")
    for step in range(40):
        time.sleep(0.005)
        bar.update(1)
        bar.set_postfix(loss=f"{step:.3f}")  # must not force a line per call
    bar.close()
    err = capsys.readouterr().err
    assert "\r" not in err and err.endswith("\n")
    lines = err.splitlines()
    assert all(line.startswith("train:") for line in lines)
    assert 3 <= len(lines) < 40  # throttled: about one per interval, not one per update
    assert "40/40" in lines[-1] and "loss=39.000" in lines[-1]


def test_disabled_bar_writes_nothing(capsys):
    bar = progress.progress_bar(total=3, desc="x", disable=True)
    bar.update(3)
    bar.close()
    assert capsys.readouterr().err == ""



def test_worker_relay_chatter_is_dropped_but_errors_kept(caplog):
    import logging

    relay = logging.getLogger(progress.WORKER_RELAY_LOGGER)
    with caplog.at_level(logging.INFO, logger=progress.WORKER_RELAY_LOGGER), progress.quiet_library_logs():
        relay.warning("Worker: %s", "severity: WARN message: \"No semi_persistent_directory found\"")
        relay.error("Worker: %s", "severity: ERROR message: \"Traceback ...\"")
    relay.warning("Worker: %s", "after the block")
    messages = [record.getMessage() for record in caplog.records]
    assert not any("semi_persistent" in m for m in messages)
    assert any("Traceback" in m for m in messages) and any("after the block" in m for m in messages)


def test_worker_processes_share_the_commands_clock(monkeypatch):
    import subprocess
    import sys

    monkeypatch.delenv(progress.START_VARIABLE, raising=False)
    progress.start_clock()
    time.sleep(1.2)
    out = subprocess.run([sys.executable, "-c", "from tnforge.progress import log; log('x')"],
                         capture_output=True, text=True, check=True).stderr
    assert float(out.split("]")[0].split()[-1].rstrip("s")) >= 1.2  # seconds since the parent's start
