"""Ctrl-C at a chosen training step, as a user would press it: a real SIGINT, so the engine's own handler saves
and stops at the next step boundary."""

from __future__ import annotations

import signal

import pytest


def interrupt_at(monkeypatch: pytest.MonkeyPatch, step: int) -> None:
    """Ctrl-C (a real SIGINT) during optimizer step `step` (counted by gradient clipping, so the run needs a
    non-zero --clip): the run stops at the boundary after it."""
    import torch

    original, calls = torch.nn.utils.clip_grad_norm_, []

    def clipping(*args, **kwargs):
        calls.append(1)
        if len(calls) == step:
            signal.raise_signal(signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", clipping)
