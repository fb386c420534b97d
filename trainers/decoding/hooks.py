"""The constraint hook of the beam search, in the logits-processor style: a `DecodingConstraint` hands out a
fresh `BatchConstraint` per batch (`for_batch`), which scores steps and STOPs and reports its `counts`;
nothing survives between batches. See docs/guides/constrained-decoding.md ("Write your own constraint")."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch

from tnforge.trainers.decoding.protocol import OutputVocabulary

Counts = dict[str, int]


@dataclass
class ConstraintBatch:
    """What a constraint sees once per batch: one entry per decoded output (a row of the beam search)."""

    inputs: list[str]  # the windows (`… <norm> token </norm> …`)
    befores: list[str] | None  # the tokens, when known
    classes: list[str | None] | None  # semiotic classes, when known
    output_vocab: OutputVocabulary
    device: torch.device
    #: The source token span (start, end) in its sentence each output stands for, when known: (i, i + 1)
    #: for a window around token i; a whole-sentence model constrains each output per token by it.
    spans: list[tuple[int, int]] | None = None


@dataclass
class StepContext:
    """What a constraint sees at each step: the live rows and their prefixes."""

    step: int  # 0 = choosing the first output unit
    rows: torch.Tensor  # [R] index of each row's input in the batch
    prefixes: torch.Tensor  # [R, step] output ids chosen so far (no BOS)
    output_vocab: OutputVocabulary
    _texts: list[str] | None = field(default=None, repr=False)

    def texts(self) -> list[str]:
        """The prefixes as text (computed once, on demand)."""
        if self._texts is None:
            self._texts = [self.output_vocab.decode(row) for row in self.prefixes.tolist()]
        return self._texts


def merge_counts(*counts: Mapping[str, int]) -> Counts:
    """Counts added up key by key."""
    total: Counts = {}
    for part in counts:
        for key, value in part.items():
            total[key] = total.get(key, 0) + value
    return total


class BatchConstraint:
    """One batch's constraint; every method defaults to 'no change'. Override what you need.

    `added`: None or a [len(batch.inputs), vocab] float tensor added at every step (−inf forbids a unit for
    that input), computed once for the batch. `counts`: what the constraint did with this batch.
    """

    def __init__(self, batch: ConstraintBatch, added: torch.Tensor | None = None, counts: Counts | None = None):
        self.batch = batch
        self.added = added
        self.counts: Counts = dict(counts or {})

    def step_scores(self, context: StepContext) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """Per step: (additive [R, vocab] scores or None, boolean [R, vocab] mask or None; True = forbidden)."""
        return None, None

    def stop_scores(self, context: StepContext) -> torch.Tensor | None:
        """Per step: None or a [R] score added to ending each row's hypothesis (its prefix) here."""
        return None


class DecodingConstraint(ABC):
    """A decoding constraint: a factory of per-batch constraints (it may keep pure memo caches, nothing else)."""

    @abstractmethod
    def for_batch(self, batch: ConstraintBatch) -> BatchConstraint:
        """A fresh `BatchConstraint` for one batch."""


class PerBatch(DecodingConstraint):
    """A constraint from a function `batch → BatchConstraint` (e.g. a `BatchConstraint` subclass)."""

    def __init__(self, make: Callable[[ConstraintBatch], BatchConstraint]):
        self.make = make

    def for_batch(self, batch: ConstraintBatch) -> BatchConstraint:
        return self.make(batch)


class CombinedBatch(BatchConstraint):
    """Several per-batch constraints applied together (scores add up, masks combine, counts merge)."""

    def __init__(self, batch: ConstraintBatch, parts: Sequence[BatchConstraint]):
        self.batch = batch
        self.parts = list(parts)
        self.added = None
        for part in self.parts:
            if part.added is not None:
                self.added = part.added if self.added is None else self.added + part.added

    @property
    def counts(self) -> Counts:  # type: ignore[override]
        return merge_counts(*(part.counts for part in self.parts))

    def step_scores(self, context: StepContext) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        total = mask = None
        for part in self.parts:
            scores, forbidden = part.step_scores(context)
            if scores is not None:
                total = scores if total is None else total + scores
            if forbidden is not None:
                mask = forbidden if mask is None else mask | forbidden
        return total, mask

    def stop_scores(self, context: StepContext) -> torch.Tensor | None:
        total = None
        for part in self.parts:
            scores = part.stop_scores(context)
            if scores is not None:
                total = scores if total is None else total + scores
        return total


class CombinedConstraint(DecodingConstraint):
    """Several constraints applied together: each batch gets a `CombinedBatch` of their per-batch objects."""

    def __init__(self, constraints: Sequence[DecodingConstraint]):
        self.constraints = list(constraints)

    def for_batch(self, batch: ConstraintBatch) -> CombinedBatch:
        return CombinedBatch(batch, [constraint.for_batch(batch) for constraint in self.constraints])


def combine(constraints: Sequence[DecodingConstraint | None]) -> DecodingConstraint | None:
    """One constraint from several (None entries dropped); None when there is none."""
    present = [c for c in constraints if c is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else CombinedConstraint(present)
