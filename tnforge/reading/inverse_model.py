"""The neural route of inverse text normalization: the grammar route proposes the spans and, per span, the
written forms its class's grammar licenses (`Router.proposals`, loose: a span the train split writes either
way is proposed too); the inverse model (`trainers.inverse`) scores each candidate in its spoken context,
log P(written form | window), and the best one is written when it scores more than a margin above the route's
own choice (the margin chosen on the dev split: `tune_margin`). A span with one candidate keeps it; ties keep the
route's order. "three kilograms" may so become "3 kg", "3kg" or "three kilograms", never "3 km".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from tnforge.itn_windows import target, window
from tnforge.reading.inverse_route import InverseToken, Proposal, Router

#: The source of a written form the model chose among two or more (`InverseToken.source`).
MODEL = "model"


def load_inverse_model(path: str, threads: int = 0) -> Any:
    """A trained inverse model (`tnforge train inverse`: its run folder or checkpoint file) on the CPU;
    ValueError, one line, for a run of another family or an unreadable file."""
    import torch

    from tnforge.trainers.families import load

    if threads:
        torch.set_num_threads(threads)
    return load(path, "cpu", kind="inverse")[1]


#: Margins (in log-probability) tried on dev: the model's best candidate replaces the route's choice only when it
#: scores more than this above it (inf: never, the grammar route).
MARGINS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, math.inf)

Scored = list[tuple[tuple[str, ...], list[Proposal], list[list[float]]]]


class ModelChooser:
    """Chooses each proposed span's written form by the inverse model's score in context: the best candidate
    when it scores more than `margin` above the route's choice, else the route's choice."""

    def __init__(self, loaded: Any, margin: float = 0.0) -> None:
        self.loaded = loaded
        self.margin = margin
        self.width = int(loaded.config.get("width", 3))

    def score(self, router: Router, sentences: Sequence[Sequence[str]]) -> Scored:
        """Each sentence's proposals and, per proposal with two candidates or more, their scores (one pass)."""
        from tnforge.trainers.inverse.loading import log_probabilities

        proposed = [(tuple(words), router.proposals(words, loose=True)) for words in sentences]
        choices = [(words, proposal) for words, proposals in proposed for proposal in proposals
                   if len(proposal.candidates) > 1]
        scores = iter(log_probabilities(
            self.loaded, [window(words, p.start, p.end, self.width) for words, p in choices],
            [[target(c.written) for c in p.candidates] for _, p in choices]))
        return [(words, proposals, [next(scores) for p in proposals if len(p.candidates) > 1])
                for words, proposals in proposed]

    def read_batch(self, router: Router, sentences: Sequence[Sequence[str]]) -> list[list[InverseToken]]:
        """The written tokens of each sentence (ASR-style words)."""
        return self.choose(self.score(router, sentences), self.margin)

    @staticmethod
    def choose(scored: Scored, margin: float) -> list[list[InverseToken]]:
        """The written tokens of scored sentences at a margin."""
        out = []
        for words, proposals, scores in scored:
            found = iter(scores)
            out.append([token for proposal in proposals for token in
                        _chosen(words, proposal, next(found) if len(proposal.candidates) > 1 else [], margin)])
        return out


def _chosen(words: tuple[str, ...], proposal: Proposal, scores: list[float], margin: float) -> list[InverseToken]:
    """A proposal's written tokens: the route's choice, or the best scored candidate when it scores more than
    `margin` above it (the words as spoken: a token a word); ties keep the route's order."""
    if not scores:
        return [proposal.candidates[0]]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    if best == 0 or scores[best] - scores[0] <= margin:
        best = 0
    chosen = proposal.candidates[best]
    if chosen.source == "as spoken":
        return [InverseToken(word, "PLAIN", i, i + 1, (word,), MODEL) for i, word in
                enumerate(words[proposal.start:proposal.end], proposal.start)]
    return [dataclasses.replace(chosen, source=MODEL)]


def tune_margin(chooser: ModelChooser, router: Router, sentences: Sequence) -> tuple[float, dict[str, float]]:
    """The margin (`MARGINS`) with the best sentence accuracy on ITN sentences (the largest of equals), and the
    accuracy at each."""
    from tnforge.reading.inverse_scoring import score_texts

    scored = chooser.score(router, [s.words for s in sentences])
    gold = [s.written for s in sentences]
    accuracy = {}
    for margin in MARGINS:
        written = [" ".join(t.written for t in tokens) for tokens in chooser.choose(scored, margin)]
        accuracy[str(margin)] = score_texts(gold, written)["sentence_accuracy"]
    best = max(MARGINS, key=lambda m: (accuracy[str(m)], m))
    return best, accuracy
