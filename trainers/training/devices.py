"""Choosing the torch device (`auto`, `cpu`, `cuda`, `cuda:N`) with a clear error when CUDA is missing."""

from __future__ import annotations

from typing import Any

import torch


class DeviceError(ValueError):
    """A device was asked for that this machine does not have."""


def resolve_device(name: str = "auto") -> torch.device:
    """`auto` → CUDA when available, else CPU; `cuda` without CUDA raises DeviceError."""
    name = (name or "auto").strip().lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DeviceError(
                f"--device {name}: CUDA is not available on this machine (torch {torch.__version__}, "
                f"built with CUDA {torch.version.cuda or 'none'}); use --device cpu or auto"
            )
        device = torch.device(name)
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise DeviceError(f"--device {name}: only {torch.cuda.device_count()} CUDA device(s) present")
        return device
    raise DeviceError(f"--device {name}: unknown device (use auto, cpu or cuda)")


def seed_everything(seed: int) -> None:
    """Seed torch (CPU and CUDA) so CPU runs are reproducible."""
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def autocast_dtype(device: torch.device, amp: bool = True) -> torch.dtype | None:
    """The mixed-precision type of a device: bfloat16 on a CUDA GPU that has it, else float16 (which needs a
    gradient scaler); None (full precision) on the CPU or without `amp`."""
    if not amp or device.type != "cuda":
        return None
    return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16


def rng_state(device: torch.device) -> dict[str, Any]:
    """The torch RNG states of this process: the CPU's, and the GPU's when it trains on one."""
    state: dict[str, Any] = {"cpu": torch.get_rng_state()}
    if device.type == "cuda":
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict[str, Any], device: torch.device) -> None:
    """Restore what `rng_state` saved."""
    torch.set_rng_state(state["cpu"])
    if device.type == "cuda" and "cuda" in state:
        torch.cuda.set_rng_state(state["cuda"], device)


def peak_memory_mb(device: torch.device) -> float:
    """Peak memory of this process so far: allocated on the GPU, or resident on the CPU."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
