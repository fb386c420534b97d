"""Decoding a whole sentence one token span at a time: the output is the tokens' readings separated by
`<sep>`, so the number of separators in a hypothesis says which source token it is reading.

`SpanConstraint` is the beam search's constraint for a batch of sentences. It always holds the alignment — a
sentence of n tokens gets exactly n − 1 separators (no `</s>` before the last span, no `<sep>` within it) — and,
given a per-token constraint (the covering grammar's mask, the dual encoders), applies it to each span as if
that token were decoded alone: the span's pieces are the token's prefix, and ending the span (`<sep>`, or
`</s>` for the last one) is its STOP. `align_spans` turns a decoded sequence into one reading per token and
says when it could not (a hypothesis cut off at the length limit)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from tnforge.trainers.decoding.hooks import BatchConstraint, ConstraintBatch, DecodingConstraint, StepContext
from tnforge.trainers.sentence.pieces import SEPARATOR_ID, SpanVocabulary
from tnforge.windows import window_input

#: A span's pieces at most: this many per piece of its token, plus `SPAN_SLACK` (a URL spelt letter by letter is
#: the longest reading per piece). A span that reaches it ends there, so one token read on and on cannot use up
#: the sentence's length and leave the tokens after it empty.
SPAN_PER_PIECE = 8
SPAN_SLACK = 16


def span_limit(token_pieces: int) -> int:
    """The most pieces a span of a token of `token_pieces` pieces may have."""
    return SPAN_PER_PIECE * token_pieces + SPAN_SLACK


def align_spans(spans: list[str], count: int) -> tuple[list[str], bool]:
    """`count` readings from decoded `spans`, and whether they lined up: missing spans are empty, extra ones
    are joined onto the last token's."""
    if len(spans) == count:
        return spans, True
    if len(spans) < count:
        return spans + [""] * (count - len(spans)), False
    return spans[: count - 1] + [" ".join(s for s in spans[count - 1:] if s)], False


class SpanConstraint(BatchConstraint):
    """One batch of sentences' constraint (see the module doc). `token_classes`: each token's class as the
    per-token constraint should see it."""

    def __init__(self, sentences: Sequence[Sequence[str]], token_classes: Sequence[Sequence[str | None]],
                 vocab: SpanVocabulary, device: torch.device, per_token: DecodingConstraint | None = None):
        self.lengths = torch.tensor([len(s) for s in sentences], dtype=torch.long)
        self.offsets = [0]
        for sentence in sentences:
            self.offsets.append(self.offsets[-1] + len(sentence))
        self.limits = [span_limit(len(p)) for sentence in sentences for p in vocab.pieces.encode_tokens(sentence)]
        #: Each sentence's longest output: every span at its limit, and the separators between them.
        self.needed = [sum(self.limits[self.offsets[s]: self.offsets[s + 1]]) + max(len(sentence) - 1, 0)
                       for s, sentence in enumerate(sentences)]
        super().__init__(ConstraintBatch([" ".join(s) for s in sentences], None, None, vocab, device))
        self.inner: BatchConstraint | None = None
        if per_token is not None:
            flat = [(s, t) for s, sentence in enumerate(sentences) for t in range(len(sentence))]
            self.inner = per_token.for_batch(ConstraintBatch(
                [window_input(list(sentences[s]), t) for s, t in flat], [sentences[s][t] for s, t in flat],
                [token_classes[s][t] for s, t in flat], vocab, device, [(t, t + 1) for _, t in flat]))
            self.counts = dict(self.inner.counts)

    def _positions(self, context: StepContext) -> tuple[torch.Tensor, torch.Tensor]:
        """Each row's span index (separators so far) and its sentence's token count."""
        spans = (context.prefixes == SEPARATOR_ID).sum(dim=1).cpu()
        return spans, self.lengths.index_select(0, context.rows.cpu())

    def step_scores(self, context: StepContext) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        spans, lengths = self._positions(context)
        vocab_size, eos = len(context.output_vocab), context.output_vocab.eos_id
        last = spans >= lengths - 1
        mask = torch.zeros((len(spans), vocab_size), dtype=torch.bool)
        mask[~last, eos] = True
        mask[last, SEPARATOR_ID] = True
        tokens, local = self._local(context, spans)
        extra = None
        if self.inner is not None:
            extra = self._per_token(context, tokens, local, last, mask)
        full = [i for i, (token, pieces) in enumerate(zip(tokens, local, strict=True)) if len(pieces) >= self.limits[token]]
        if full:  # a span at its limit ends: its separator, or the end after the last token
            index = torch.tensor(full)
            mask[index] = True
            ends = last[index]
            mask[index[~ends], SEPARATOR_ID] = False
            mask[index[ends], eos] = False
        device = context.prefixes.device
        return (None if extra is None else extra.to(device)), mask.to(device)

    def _local(self, context: StepContext, spans: torch.Tensor) -> tuple[list[int], list[list[int]]]:
        """Each row's token (flat index in the batch) and its span's pieces so far."""
        rows, tokens, local = context.rows.tolist(), [], []
        for i, prefix in enumerate(context.prefixes.tolist()):
            cut = len(prefix) - prefix[::-1].index(SEPARATOR_ID) if SEPARATOR_ID in prefix else 0
            local.append(prefix[cut:])
            sentence = rows[i]
            tokens.append(self.offsets[sentence] + min(int(spans[i]), self.offsets[sentence + 1]
                                                       - self.offsets[sentence] - 1))
        return tokens, local

    def _per_token(self, context: StepContext, tokens: list[int], local: list[list[int]], last: torch.Tensor,
                   mask: torch.Tensor) -> torch.Tensor | None:
        """The per-token constraint on each row's span (`tokens`, `local`: `_local`'s), grouped by span length;
        edits `mask` in place."""
        assert self.inner is not None
        eos, extra = context.output_vocab.eos_id, None
        if self.inner.added is not None:
            extra = self.inner.added.cpu().index_select(0, torch.tensor(tokens)).float()
        groups: dict[int, list[int]] = {}
        for i, pieces in enumerate(local):
            groups.setdefault(len(pieces), []).append(i)
        for length, members in groups.items():
            index = torch.tensor(members)
            sub = StepContext(length, torch.tensor([tokens[i] for i in members]),
                              torch.tensor([local[i] for i in members], dtype=torch.long).view(len(members), length),
                              context.output_vocab)
            scores, forbidden = self.inner.step_scores(sub)
            stop = self.inner.stop_scores(sub) if length else None
            if scores is not None or stop is not None:
                extra = torch.zeros_like(mask, dtype=torch.float32) if extra is None else extra
            if scores is not None:
                extra[index] += scores.cpu().float()
            if stop is not None:  # a span's STOP is its separator (the last span's: the beam's own stop)
                ends = [i for i in members if not bool(last[i])]
                if ends:
                    extra[torch.tensor(ends), SEPARATOR_ID] += stop.cpu().float()[
                        torch.tensor([members.index(i) for i in ends])]
            if forbidden is not None:
                forbidden = forbidden.cpu()
                ending = forbidden[:, eos].clone()
                rows_mask = mask[index] | forbidden
                separator_rows = ~last[index]
                rows_mask[separator_rows, SEPARATOR_ID] = ending[separator_rows]
                rows_mask[separator_rows, eos] = True
                rows_mask[~separator_rows, SEPARATOR_ID] = True
                mask[index] = rows_mask
        return extra

    def stop_scores(self, context: StepContext) -> torch.Tensor | None:
        """The last span's STOP: the per-token constraint's (other rows cannot stop: `</s>` is masked)."""
        if self.inner is None:
            return None
        spans, _ = self._positions(context)
        tokens, local = self._local(context, spans)
        total = torch.zeros(len(tokens))
        groups: dict[int, list[int]] = {}
        for i, pieces in enumerate(local):
            groups.setdefault(len(pieces), []).append(i)
        found = False
        for length, members in groups.items():
            if not length:
                continue
            sub = StepContext(length, torch.tensor([tokens[i] for i in members]),
                              torch.tensor([local[i] for i in members], dtype=torch.long), context.output_vocab)
            scores = self.inner.stop_scores(sub)
            if scores is not None:
                total[torch.tensor(members)] += scores.cpu().float()
                found = True
        return total.to(context.prefixes.device) if found else None
