"""The checkpoint contract of every model family: one payload (format, versions, model and training configs,
weights, training state, metrics, family extras) written atomically and read back on any device.
A run directory holds `checkpoint.pt` (latest, for resuming) and `best.pt` (best on dev, for use)."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge import __version__
from tnforge.filesystems import write_atomically

FORMAT_VERSION = 1
LAST = "checkpoint.pt"
BEST = "best.pt"
#: The payload keys every checkpoint has; a family's extras (e.g. vocabularies) go beside them.
CORE_KEYS = ("format", "format_version", "tnforge_version", "torch_version", "model_config", "config", "model",
             "training", "metrics")
#: How errors name each format's checkpoints ("not a tnforge seq2seq checkpoint").
NAMES = {"tnforge-seq2seq": "seq2seq", "tnforge-dual-encoder": "dual encoder"}
#: Formats whose missing files are named too ("no such dual encoder checkpoint"; seq2seq's never were).
_NAMED_FILES = frozenset({"tnforge-dual-encoder"})


def save_checkpoint(
    path: str | os.PathLike,
    format: str,
    model: nn.Module,
    model_config: dict[str, Any],
    config: dict[str, Any],
    training: dict[str, Any] | None = None,
    metrics: dict[str, Any] | None = None,
    extras: dict[str, Any] | None = None,
) -> None:
    """Write a checkpoint atomically: `model`'s weights (on CPU), its `model_config`, the training `config`,
    the `training` state (optimizer, progress …) for resuming, dev `metrics`, and family `extras`."""
    clash = sorted(set(extras or {}) & set(CORE_KEYS))
    if clash:
        raise ValueError(f"checkpoint extras may not replace {', '.join(clash)}")
    payload = {
        "format": format,
        "format_version": FORMAT_VERSION,
        "tnforge_version": __version__,
        "torch_version": str(torch.__version__),
        "model_config": model_config,
        "config": config,
        "model": {key: value.detach().cpu() for key, value in model.state_dict().items()},
        "training": training or {},
        "metrics": metrics or {},
        **(extras or {}),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    with write_atomically(str(path)) as handle:
        handle.write(buffer.getvalue())


def checkpoint_file(path: str | os.PathLike, format: str | None = None) -> Path:
    """The checkpoint of a run directory (best.pt, else checkpoint.pt), or the checkpoint file itself."""
    path = Path(path)
    files = f"{NAMES[format]} " if format in _NAMED_FILES else ""
    if path.is_dir():
        for name in (BEST, LAST):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path}: no {BEST} or {LAST} in this {files}run directory")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such {files}checkpoint")
    return path


def load_checkpoint(path: str | os.PathLike, format: str, device: torch.device | str = "cpu") -> dict[str, Any]:
    """The payload of a checkpoint of `format` (file or run directory) with its tensors on `device`."""
    file = checkpoint_file(path, format)
    try:
        with torch.serialization.safe_globals([torch.torch_version.TorchVersion]):  # early checkpoints held one
            payload = torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unpickling problem means "not a checkpoint"
        raise ValueError(f"{file}: not a readable tnforge checkpoint ({error})") from error
    if not isinstance(payload, dict) or payload.get("format") != format:
        raise ValueError(f"{file}: not a tnforge {NAMES.get(format, format)} checkpoint")
    if payload.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{file}: checkpoint format {payload['format_version']} is newer than this tnforge")
    return payload
