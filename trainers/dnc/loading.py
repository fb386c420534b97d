"""A DNC checkpoint: the window families' contract (`kernel.window`: its vocabularies as extras) under its own
format, loaded as a `LoadedWindowModel` around a `DNCSeq2Seq` (it meets the decoding protocol through
`encode`/`step`). Load a run with `trainers.families.load`."""

from __future__ import annotations

import os
from typing import Any

import torch

from tnforge.trainers.dnc.model import DNCConfig, DNCSeq2Seq
from tnforge.trainers.kernel.window import LoadedWindowModel, window_model

FORMAT = "tnforge-dnc"


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedWindowModel:
    """The `LoadedWindowModel` (eval mode, on `device`) of a DNC checkpoint's payload (the family loader)."""
    return window_model(payload, file, device, DNCSeq2Seq, DNCConfig)
