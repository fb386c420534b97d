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

