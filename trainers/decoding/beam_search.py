"""Batched beam search over every input of a batch at once ([inputs × beam] decoder rows), with top-k
output, an early exit per input once no live hypothesis can beat its kept ones, and a batch's constraint
(`hooks.BatchConstraint`) adding scores, masks and STOP bonuses (docs/guides/decode-evaluate.md). Typed against the decoding
protocol (`protocol.DecodableModel`): any family's model, whatever its special ids."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tnforge.trainers.decoding.defaults import BEAM
from tnforge.trainers.decoding.hooks import BatchConstraint, StepContext
from tnforge.trainers.decoding.protocol import DecodableModel

NEG_INF = float("-inf")


@dataclass
class Hypothesis:
    ids: list[int]
    score: float


def _keep_best(finished: tuple[torch.Tensor, torch.Tensor, torch.Tensor], active: torch.Tensor,
               scores: torch.Tensor, prefixes: torch.Tensor, length: int, pad: int) -> None:
    """Merge candidates — each active input's [beam] `scores` for its rows' `prefixes` of `length` units —
    into the finished hypotheses it keeps (best first), in place."""
    finished_scores, finished_ids, finished_lengths = finished
    n, beam = scores.shape
    keep, max_length = finished_ids.shape[1:]
    padded = torch.full((n * beam, max_length), pad, dtype=torch.long, device=scores.device)
    padded[:, :length] = prefixes[:, :length]
    merged_scores = torch.cat([finished_scores[active], scores], dim=1)
    merged_ids = torch.cat([finished_ids[active], padded.view(n, beam, max_length)], dim=1)
    merged_lengths = torch.cat([finished_lengths[active],
                                torch.full((n, beam), length, dtype=torch.long, device=scores.device)], dim=1)
    top_scores, top_index = merged_scores.topk(keep, dim=1)
    finished_scores[active] = top_scores
    finished_ids[active] = merged_ids.gather(1, top_index[:, :, None].expand(-1, -1, max_length))
    finished_lengths[active] = merged_lengths.gather(1, top_index)


@torch.no_grad()
def beam_search(
    model: DecodableModel,
    source: torch.Tensor,
    lengths: torch.Tensor,
    beam: int = BEAM,
    keep: int = 1,
    max_length: int | None = None,
    constraint: BatchConstraint | None = None,
) -> list[list[Hypothesis]]:
    """The best `keep` finished hypotheses of each input (best first), found with beam width `beam`, of at
    most `max_length` units (default: the model's `max_output_length`)."""
    device = source.device
    max_length = max_length or model.max_output_length
    vocab_size, pad, eos = model.output_size, model.pad_id, model.eos_id
    n_inputs, beam, keep = source.shape[0], max(1, beam), max(1, keep)
    encoded, state = model.encode(source, lengths)
    row_input = torch.arange(n_inputs, device=device).repeat_interleave(beam)
    encoded, state = encoded.select(row_input), state.select(row_input)
    prepared = None
    if constraint is not None and constraint.added is not None:
        prepared = constraint.added.to(device=device, dtype=torch.float32)

    scores = torch.full((n_inputs, beam), NEG_INF, device=device)
    scores[:, 0] = 0.0
    prefixes = torch.zeros((n_inputs * beam, 0), dtype=torch.long, device=device)
    previous = torch.full((n_inputs * beam,), model.bos_id, dtype=torch.long, device=device)
    finished_scores = torch.full((n_inputs, keep), NEG_INF, device=device)
    finished_ids = torch.full((n_inputs, keep, max_length), pad, dtype=torch.long, device=device)
    finished_lengths = torch.zeros((n_inputs, keep), dtype=torch.long, device=device)
    finished = (finished_scores, finished_ids, finished_lengths)
    active = torch.arange(n_inputs, device=device)  # batch index of each live input
    # Never chosen: padding, unknown, start (ids a family does not use, e.g. −1, are left out).
    banned = torch.tensor(sorted({i for i in (pad, model.unk_id, model.bos_id) if 0 <= i < vocab_size} - {eos}),
                          dtype=torch.long, device=device)

    for step in range(max_length):
        n = active.shape[0]
        logits, state = model.step(previous, state, encoded)
        log_probs = torch.log_softmax(logits.float(), dim=-1)
        rows = active.repeat_interleave(beam)
        context = StepContext(step, rows, prefixes, constraint.batch.output_vocab) if constraint else None
        if prepared is not None:
            log_probs = log_probs + prepared.index_select(0, rows)
        if constraint is not None:
            extra, mask = constraint.step_scores(context)
            if extra is not None:
                log_probs = log_probs + extra.to(log_probs.dtype)
            if mask is not None:
                log_probs = log_probs.masked_fill(mask, NEG_INF)
        log_probs[:, banned] = NEG_INF
        stop = log_probs[:, eos].clone()
        log_probs[:, eos] = NEG_INF
        if step == 0:
            stop.fill_(NEG_INF)  # a reading is never empty
        elif constraint is not None:
            bonus = constraint.stop_scores(context)
            if bonus is not None:
                stop = stop + bonus.to(stop.dtype)

        # Finished candidates: every live row's STOP extension, merged with the kept ones.
        candidate_scores = scores.reshape(-1) + stop
        if step > 0:
            _keep_best(finished, active, candidate_scores.view(n, beam), prefixes, step, pad)

        # Live hypotheses: the best `beam` non-STOP extensions of each input.
        totals = (scores.reshape(-1, 1) + log_probs).view(n, beam * vocab_size)
        scores, flat = totals.topk(beam, dim=1)
        origin = (torch.arange(n, device=device)[:, None] * beam + torch.div(flat, vocab_size,
                                                                             rounding_mode="floor")).reshape(-1)
        previous = (flat % vocab_size).reshape(-1)
        prefixes = torch.cat([prefixes.index_select(0, origin), previous[:, None]], dim=1)
        state = state.select(origin)

        if step == max_length - 1:
            break
        best_live = scores.max(dim=1).values
        done = (best_live <= finished_scores[active][:, keep - 1]) | torch.isinf(best_live)
        if bool(done.any()):
            keep_inputs = (~done).nonzero().squeeze(1)
            if keep_inputs.numel() == 0:
                active = active[:0]
                break
            keep_rows = (keep_inputs[:, None] * beam + torch.arange(beam, device=device)[None, :]).reshape(-1)
            active, scores = active[keep_inputs], scores[keep_inputs]
            prefixes, previous = prefixes[keep_rows], previous[keep_rows]
            state, encoded = state.select(keep_rows), encoded.select(keep_rows)

    if active.numel():  # inputs cut off at max_length: their live hypotheses count as finished
        _keep_best(finished, active, scores, prefixes, min(prefixes.shape[1], max_length), pad)

    results: list[list[Hypothesis]] = []
    all_scores, all_ids, all_lengths = finished_scores.tolist(), finished_ids.tolist(), finished_lengths.tolist()
    for b in range(n_inputs):
        results.append([Hypothesis(all_ids[b][i][: all_lengths[b][i]], all_scores[b][i])
                        for i in range(keep) if all_scores[b][i] != NEG_INF])
    return results
