"""The checkpoint contract of every model family: one payload (format, versions, model and training configs,
weights, training state, metrics, family extras) written atomically and read back on any device.
A run directory holds `checkpoint.pt` (latest, for resuming) and `best.pt` (best on dev, for use)."""

from __future__ import annotations

import io
import os
import warnings
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


def family_name(format: str) -> str:
    """How errors name a format's checkpoints ("not a tnforge seq2seq checkpoint"): "tnforge-dual-encoder" →
    "dual encoder" (the family's name, read off its format so this module needs no registry)."""
    return format.removeprefix("tnforge-").replace("-", " ")

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
    files = f"{family_name(format)} " if format in _NAMED_FILES else ""
    if path.is_dir():
        for name in (BEST, LAST):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path}: no {BEST} or {LAST} in this {files}run directory")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such {files}checkpoint")
    return path


#: How the files torch.save writes begin: a zip archive, or (before torch 1.6) a pickle.
_TORCH_MAGIC = (b"PK\x03\x04", b"\x80")


def read_payload(file: str | os.PathLike, device: torch.device | str = "cpu") -> Any:
    """The unpickled contents of a checkpoint file (tensors only, no code) on `device`; ValueError in one line
    when it is not one."""
    with open(file, "rb") as handle:
        head = handle.read(4)
    if not head.startswith(_TORCH_MAGIC):
        raise ValueError(f"{file}: not a readable tnforge checkpoint (not a file torch.save writes)")
    try:
        with (torch.serialization.safe_globals([torch.torch_version.TorchVersion]),  # early checkpoints held one
              warnings.catch_warnings()):
            warnings.simplefilter("ignore")  # torch's advice on pickles it refuses: the error below says it
            return torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unpickling problem means "not a checkpoint"
        raise ValueError(f"{file}: not a readable tnforge checkpoint (damaged, or holding more than tensors "
                         f"and plain values: {type(error).__name__})") from error


def check_version(payload: dict[str, Any], file: str | os.PathLike) -> None:
    """ValueError when a checkpoint's layout is newer than this tnforge reads."""
    if payload.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{file}: checkpoint format {payload['format_version']} is newer than this tnforge reads "
                         "(upgrade tnforge)")


def load_checkpoint(path: str | os.PathLike, format: str, device: torch.device | str = "cpu") -> dict[str, Any]:
    """The payload of a checkpoint of `format` (file or run directory) with its tensors on `device`."""
    file = checkpoint_file(path, format)
    payload = read_payload(file, device)
    if not isinstance(payload, dict) or payload.get("format") != format:
        raise ValueError(f"{file}: not a tnforge {family_name(format)} checkpoint")
    check_version(payload, file)
    return payload
