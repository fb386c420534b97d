"""Where a training run stands: the engine's resume state as one dataclass, saved into and restored from a
checkpoint's `training` entry in one place (`capture` / `restore`), so no key is written or read by hand twice.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import torch

from tnforge.trainers.training.sharding import EpochPlan

#: Version of the engine's training state in checkpoints (older states cannot be resumed).
STATE_VERSION = 2


@dataclass
class TrainingState:
    """The counters of a run that a resume continues from (the weights and optimizer states aside)."""

    step: int = 0
    epoch: int = 0
    #: Steps taken in the current epoch plan, and the plan (None: deal the next epoch's units).
    steps_in_plan: int = 0
    plan: EpochPlan | None = None
    #: Data units this rank finished in the current plan, and how often the plan was re-dealt.
    units_done: int = 0
    generation: int = 0
    #: Dev evaluations without improvement, the best dev record, and the step of the last evaluation.
    bad_evals: int = 0
    best: dict[str, Any] = field(default_factory=dict)
    evaluated_at: int = -1
    #: Seconds of training before this process took over (resumed runs).
    elapsed: float = 0.0
    #: The train loss window since the last record: (summed loss, loss units, examples).
    window: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass
class Saved:
    """What a checkpoint holds besides `TrainingState`: the world it ran on, every rank's RNG state and data
    position, the optimizer, schedule and scaler states, and the log sizes to truncate to on resume."""

    world: int
    global_batch: int
    rng: list[Any]
    units_done: list[int]
    optimizers: list[dict[str, Any]]
    schedulers: list[dict[str, Any]]
    scaler: dict[str, Any]
    metrics_bytes: int
    timing_bytes: int


_OWN = ("plan", "units_done")


def capture(state: TrainingState, saved: Saved) -> dict[str, Any]:
    """The checkpoint's `training` entry of a run at `state`."""
    values = {f.name: getattr(state, f.name) for f in dataclasses.fields(state) if f.name not in _OWN}
    values["window"] = list(state.window)
    return {"engine": STATE_VERSION, **values, "plan": state.plan.to_dict() if state.plan else None,
            **{f.name: getattr(saved, f.name) for f in dataclasses.fields(saved)}}


def check_version(training: dict[str, Any], file: Any) -> None:
    """ValueError (one line) for a training state this engine cannot resume."""
    if training.get("engine") != STATE_VERSION:
        raise ValueError(f"{file}: saved by an older tnforge whose training state cannot be resumed; its best.pt "
                         "still decodes. Train again with --overwrite")


def restore(training: dict[str, Any]) -> tuple[TrainingState, Saved]:
    """The state and the saved pieces of a checkpoint's `training` entry (`capture`'s inverse)."""
    names = {f.name for f in dataclasses.fields(TrainingState)} - set(_OWN)
    state = TrainingState(**{name: training[name] for name in names})
    state.window = tuple(training["window"])
    state.plan = EpochPlan.from_dict(training["plan"]) if training["plan"] else None
    saved = Saved(**{f.name: training[f.name] for f in dataclasses.fields(Saved)})
    return state, saved


def zero_window(device: torch.device) -> torch.Tensor:
    """A fresh float64 loss sum on `device` (no host sync per step)."""
    return torch.zeros((), dtype=torch.float64, device=device)
