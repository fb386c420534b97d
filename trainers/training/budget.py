"""A training run's time budget as the user sees it: the steps the progress bar counts to when the budget will
end the run before its epochs do, and the line saying that a run the budget ended is far from converged."""

from __future__ import annotations

import math


def steps_within(total: int, step: int, steps_done: int, seconds: float, left: float) -> int:
    """The steps the progress bar counts to: `total` (every epoch's), or fewer when the budget ends the run first
    at the pace so far (`steps_done` steps in `seconds` since this process started training at step `step` with
    `left` seconds of the budget; inf: no budget)."""
    if math.isinf(left) or steps_done < 1 or seconds <= 0:
        return total
    now = step + steps_done
    return max(now, min(total, now + int(steps_done / seconds * max(left - seconds, 0.0))))


def budget_advice(minutes: float, epochs_done: int, improving: bool, untrained: str | None, resume: str,
                  busy_cpu: bool) -> str:
    """One line for a run its `minutes` budget ended far from converged (at most one epoch done, the last dev
    evaluation still its best, or `untrained`: its key dev figure at zero), with what to do; "" otherwise."""
    reasons = [f"after {epochs_done} full epoch{'s' if epochs_done != 1 else ''}"] if epochs_done <= 1 else []
    reasons += ["dev still improving"] if improving else []
    reasons += [untrained] if untrained else []
    if not reasons:
        return ""
    more = max(2 * minutes, minutes + 10)
    threads = "; on a busy machine add --threads 1" if busy_cpu else ""
    return (f"the {minutes:g}-minute budget ended training far from converged ({', '.join(reasons)}): give it more "
            f"minutes, e.g. `{resume} --max-minutes {more:g}` (the budget counts the minutes spent){threads}")
