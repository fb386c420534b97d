"""When the time budget binds, the progress bar counts to where the budget ends the run (not to its last epoch),
and a run the budget ends far from converged says so in one line with what to do. Time is a fake clock: each
reading of the engine's clock advances it by one second, so nothing depends on this machine's speed."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tests.support.tiny_models import tiny_config, write_tiny_dataset  # noqa: E402
from tnforge.trainers.training import engine  # noqa: E402
from tnforge.trainers.training.budget import budget_advice, steps_within  # noqa: E402

RESUME = "tnforge train seq2seq --data D --out R --resume"


def test_the_bar_counts_to_the_budget_when_it_binds() -> None:
    assert steps_within(4400, 0, 100, 60.0, 720.0) == 1200  # 100 steps a minute, 12 minutes
    assert steps_within(4400, 500, 100, 60.0, 360.0) == 1100  # resumed at step 500 with 6 minutes left
    assert steps_within(800, 0, 100, 60.0, 720.0) == 800  # the epochs end first
    assert steps_within(4400, 0, 100, 60.0, float("inf")) == 4400  # no budget
    assert steps_within(4400, 0, 0, 0.0, 720.0) == 4400  # no pace yet


def test_the_advice_names_why_and_what_to_do() -> None:
    line = budget_advice(12, 1, True, "non-trivial accuracy 0.00%", RESUME, busy_cpu=True)
    assert line == ("the 12-minute budget ended training far from converged (after 1 full epoch, dev still "
                    "improving, non-trivial accuracy 0.00%): give it more minutes, e.g. "
                    f"`{RESUME} --max-minutes 24` (the budget counts the minutes spent); on a busy machine add "
                    "--threads 1")
    assert "--threads 1" not in budget_advice(12, 0, False, None, RESUME, busy_cpu=False)
    assert budget_advice(12, 30, False, None, RESUME, busy_cpu=True) == ""  # converged: nothing to say


class _Clock:
    """`time` for the engine: monotonic() advances a second a call."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_a_run_the_budget_ends_shows_it_on_the_bar_and_says_so(tmp_path: Path, monkeypatch) -> None:
    from tnforge.trainers.kernel.window_task import describe
    from tnforge.trainers.seq2seq.train import train

    bars, totals = [], []
    real_bar = engine.Engine._bar

    def recording_bar(self, total, initial):
        bar = real_bar(self, total, initial)
        update = bar.update
        bar.update = lambda n=1: (totals.append(bar.total), update(n))[1]
        bars.append((total, bar))
        return bar

    monkeypatch.setattr(engine.Engine, "_bar", recording_bar)
    monkeypatch.setattr(engine, "time", _Clock())
    data = write_tiny_dataset(tmp_path / "data")
    result = train(tiny_config(data, tmp_path / "run", epochs=50, batch_size=4, max_minutes=1, progress=True,
                               threads=0))
    epochs_total, bar = bars[0]
    assert result.stopped == "time limit" and result.steps < epochs_total
    assert totals and max(totals[len(totals) // 2:]) < epochs_total  # past the first steps: the budget's end
    assert bar.total == result.steps  # closed at the step the budget ended
    note = describe(result)[0].splitlines()
    assert note[1].startswith("the 1-minute budget ended training far from converged (") and "--threads 1" in note[1]
