"""`run.json`: a training run's readable record (in the spirit of HF's `trainer_state.json`): the family and
command, the whole config, the world size and global batch of every session (a resume adds one), the data's
manifest hash, the versions that trained it, and the outcome once training ends. The checkpoint stays the
source of truth for resuming; this file is for people and tools that must not unpickle tensors."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from tnforge import __version__
from tnforge.filesystems import write_text
from tnforge.manifest import manifest_sha256

RUN_RECORD = "run.json"
#: The layout of run.json (a reader refuses a newer one).
RECORD_VERSION = 1


def _versions() -> dict[str, str]:
    import torch

    return {"tnforge": __version__, "torch": str(torch.__version__), "python": platform.python_version()}


def read_run_record(run: Path) -> dict[str, Any] | None:
    """A run's record, or None when it has none (runs trained before run.json)."""
    path = Path(run) / RUN_RECORD
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _write(run: Path, record: dict[str, Any]) -> None:
    write_text(str(Path(run) / RUN_RECORD), json.dumps(record, indent=2, sort_keys=True) + "\n")


def write_run_record(run: Path, task: Any, world: int, resumed: bool) -> None:
    """Start (or, resuming, extend) `run`'s record for a session of `task` on `world` processes."""
    config = task.config
    earlier = read_run_record(run) if resumed else None
    sessions = list((earlier or {}).get("sessions", []))
    sessions.append({"world_size": world, "global_batch": config.batch_size, "per_rank_batch":
                     config.batch_size // world, "resumed": resumed, "versions": _versions()})
    data = str(config.data)
    _write(run, {"record_version": RECORD_VERSION, "format": task.format, "command": f"tnforge train {task.command}",
                 "config": config.to_dict(), "data": {"path": data, "manifest_sha256": manifest_sha256(data)},
                 "world_size": world, "global_batch": config.batch_size, "versions": _versions(),
                 "sessions": sessions, "outcome": None})


def finish_run_record(run: Path, result: Any) -> None:
    """Add the outcome (epochs, steps, why it stopped, the best dev record) to `run`'s record."""
    record = read_run_record(run) or {}
    record["outcome"] = {"epochs": result.epochs, "steps": result.steps, "stopped": result.stopped,
                         "best": result.best}
    _write(run, record)
