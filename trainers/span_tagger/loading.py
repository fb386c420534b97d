"""A span tagger checkpoint (the checkpoint contract, its vocabularies and its lexicon as extras) loaded as a
`LoadedSpanTagger`, and what the inverse normalizer asks of it: the tags of spoken sentences (`tag`), decoded so
that an I-CLASS only follows a B-CLASS or I-CLASS of its class, with another tagging's tags (the grammar route's)
as a prior."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from tnforge.itn_tags import Lexicon
from tnforge.trainers.span_tagger.data import Vocabularies, make_batch
from tnforge.trainers.span_tagger.model import SpanTagger, SpanTaggerConfig
from tnforge.trainers.training.checkpoints import save_checkpoint

FORMAT = "tnforge-span-tagger"
#: Sentences tagged per forward pass.
TAG_BATCH = 256


def save_span_tagger(path: Path, model: nn.Module, vocab: Vocabularies, lexicon: Lexicon, config: dict[str, Any],
                     training: dict[str, Any] | None, metrics: dict[str, Any] | None) -> None:
    save_checkpoint(path, FORMAT, model, model.config.to_dict(), config, training, metrics,
                    {**vocab.to_dict(), "lexicon": lexicon.spans})


def allowed_after(tags: Sequence[str]) -> torch.Tensor:
    """allowed[a, b]: tag b may follow tag a (an I-C only after B-C or I-C); row len(tags): at the start."""
    allowed = torch.ones(len(tags) + 1, len(tags), dtype=torch.bool)
    for b, tag in enumerate(tags):
        if tag.startswith("I-"):
            allowed[:, b] = False
            for a, before in enumerate(tags):
                if before[2:] == tag[2:] and before != "O":
                    allowed[a, b] = True
    return allowed


def best_path(scores: torch.Tensor, allowed: torch.Tensor) -> list[int]:
    """The highest-scoring tag sequence of log-probabilities [T, tags] under `allowed` (Viterbi)."""
    blocked = torch.where(allowed, 0.0, -1e9)
    total = scores[0] + blocked[-1]
    back = []
    for t in range(1, scores.shape[0]):
        step = total.unsqueeze(1) + blocked[:-1]
        total, index = step.max(0)
        total = total + scores[t]
        back.append(index)
    path = [int(total.argmax())]
    for index in reversed(back):
        path.append(int(index[path[-1]]))
    return path[::-1]


@dataclass
class LoadedSpanTagger:
    """A trained span tagger in eval mode on `device`."""

    model: SpanTagger
    vocab: Vocabularies
    lexicon: Lexicon
    config: dict[str, Any]
    path: Path
    device: torch.device

    def __post_init__(self) -> None:
        self.allowed = allowed_after(self.vocab.tags)

    @torch.no_grad()
    def tag(self, sentences: Sequence[Sequence[str]], routes: Sequence[Sequence[str]] | None = None,
            weight: float = 0.0) -> list[list[str]]:
        """The tags of each sentence of ASR-style words (an empty sentence: no tags); with `routes` (another
        tagging's tags, a tag a word: the grammar route's), `weight` is added to the log-probability of its tag."""
        index = {tag: i for i, tag in enumerate(self.vocab.tags)}
        out: list[list[str]] = [[] for _ in sentences]
        order = [i for i in sorted(range(len(sentences)), key=lambda i: len(sentences[i])) if sentences[i]]
        for first in range(0, len(order), TAG_BATCH):
            chunk = order[first:first + TAG_BATCH]
            batch = make_batch(self.vocab, [sentences[i] for i in chunk],
                               [self.lexicon.tags(sentences[i]) for i in chunk]).to(self.device)
            scores = self.model(*batch.inputs()).float().log_softmax(-1).cpu()
            for row, i in enumerate(chunk):
                found = scores[row, :len(sentences[i])]
                if routes is not None and weight:
                    found = found.clone()
                    for j, tag in enumerate(routes[i]):
                        if tag in index:
                            found[j, index[tag]] += weight
                path = best_path(found, self.allowed)
                out[i] = [self.vocab.tags[t] for t in path]
        return out


def from_payload(payload: dict[str, Any], file: str | os.PathLike, device: torch.device) -> LoadedSpanTagger:
    """The `LoadedSpanTagger` of a span tagger checkpoint's payload (the family loader)."""
    vocab = Vocabularies.from_dict(payload)
    model = SpanTagger(SpanTaggerConfig.from_dict(payload["model_config"]), len(vocab.words), len(vocab.chars),
                       len(vocab.tags))
    model.load_state_dict(payload["model"])
    model.to(device).eval()
    return LoadedSpanTagger(model, vocab, Lexicon(dict(payload["lexicon"])), payload["config"], Path(file), device)
