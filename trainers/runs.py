"""A training run's folder as both families write it: the outcome (`TrainResult`) and the metrics log."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The JSONL log of a run (one record per event: train windows, dev evaluations).
METRICS = "metrics.jsonl"


@dataclass
class TrainResult:
    """A training run's outcome: its folder, epochs and steps done, seconds, best dev record, why it stopped."""

    run: Path
    epochs: int
    steps: int
    seconds: float
    best: dict[str, Any]
    stopped: str


def log_metrics(path: Path, record: dict[str, Any]) -> None:
    """Append one record to a run's metrics JSONL."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")
