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


def sequence_log_probabilities(network: Any, source: torch.Tensor, lengths: torch.Tensor, vocab: Any,
                               groups: Sequence[Sequence[str]]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Teacher-forced log-probabilities of each source row's targets (`groups[row]`, the target's units, then the
    end), each row encoded once: (the first target's of every row, summed per row; every target's, per row)."""
    device = source.device
    encoded, state = network.encode(source, lengths)
    rows = torch.tensor([row for row, group in enumerate(groups) for _ in group], device=device)
    units = [vocab.encode(text) for group in groups for text in group]
    target_in = pad([[BOS, *ids] for ids in units]).to(device)
    target_out = pad([[*ids, EOS] for ids in units]).to(device)
    encoded, state = encoded.select(rows), state.select(rows)
    steps = []
    for t in range(target_in.shape[1]):
        logits, state = network.step(target_in[:, t], state, encoded)
        steps.append(logits)
    picked = torch.stack(steps, 1).float().log_softmax(-1).gather(-1, target_out.unsqueeze(-1)).squeeze(-1)
    picked = picked.masked_fill(target_out == PAD, 0.0)
    sums = picked.sum(1)
    starts = [0]
    for group in groups:
        starts.append(starts[-1] + len(group))
    first = torch.tensor(starts[:-1], device=device)
    return picked.index_select(0, first), [sums[a:b] for a, b in zip(starts, starts[1:], strict=False)]


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
        _, found = sequence_log_probabilities(loaded.model, batch.source, batch.source_lengths, loaded.output_vocab,
                                              [targets[i] for i in chunk])
        for i, values in zip(chunk, found, strict=True):
            scores[i] = values.tolist()
    return scores
