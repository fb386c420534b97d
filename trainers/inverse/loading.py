"""The inverse family's checkpoint (the window families' contract, `kernel.window`) loaded as a
`LoadedWindowModel`, and what the inverse normalizer asks of it: the log-probability of written forms given
their spoken windows (`log_probabilities`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import torch

from tnforge.trainers.kernel.examples import make_batch, pad
from tnforge.trainers.kernel.vocab import BOS, EOS, PAD
from tnforge.trainers.kernel.window import LoadedWindowModel, window_model
from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig
from tnforge.trainers.training.checkpoints import checkpoint_file, load_checkpoint

FORMAT = "tnforge-inverse"
#: Windows encoded per forward pass.
SCORE_BATCH = 256


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedWindowModel:
    """The `LoadedWindowModel` of an inverse checkpoint's payload (the family loader)."""
    return window_model(payload, file, device, Seq2Seq, Seq2SeqConfig)


def load_model(path: str | os.PathLike, device: torch.device | str = "cpu") -> LoadedWindowModel:
    """Load a trained inverse model (eval mode) from a run directory or checkpoint file onto `device`."""
    device = torch.device(device)
    return from_payload(load_checkpoint(path, FORMAT, device), checkpoint_file(path, FORMAT), device)


@torch.no_grad()
def log_probabilities(loaded: LoadedWindowModel, windows: Sequence[str],
                      targets: Sequence[Sequence[str]]) -> list[list[float]]:
    """log P(target | window) of each window's targets, teacher forced (the target's units, then the end): each
    window encoded once, windows batched by length."""
    order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
    scores: list[list[float]] = [[] for _ in windows]
    for first in range(0, len(order), SCORE_BATCH):
        chunk = order[first:first + SCORE_BATCH]
        batch = make_batch({"input": [windows[i] for i in chunk]}, loaded.input_vocab, None,
                           loaded.max_input_length).to(loaded.device)
        encoded, state = loaded.encode(batch.source, batch.source_lengths)
        rows = torch.tensor([row for row, i in enumerate(chunk) for _ in targets[i]], device=loaded.device)
        units = [loaded.output_vocab.encode(text) for i in chunk for text in targets[i]]
        target_in = pad([[BOS, *ids] for ids in units]).to(loaded.device)
        target_out = pad([[*ids, EOS] for ids in units]).to(loaded.device)
        encoded, state = encoded.select(rows), state.select(rows)
        steps = []
        for t in range(target_in.shape[1]):
            logits, state = loaded.step(target_in[:, t], state, encoded)
            steps.append(logits)
        picked = torch.stack(steps, 1).float().log_softmax(-1).gather(-1, target_out.unsqueeze(-1)).squeeze(-1)
        flat = iter(picked.masked_fill(target_out == PAD, 0.0).sum(1).tolist())
        for i in chunk:
            scores[i] = [next(flat) for _ in targets[i]]
    return scores
