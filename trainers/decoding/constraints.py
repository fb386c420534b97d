"""The decoding constraints of Gokcen, Zhang & Sproat (2019): the sequence DE at STOP (+λ(s − 0.5)), the
vocabulary filter on every word (+λ(s − 1)), and the covering grammar's hard mask; the grammar arrives as
a callable `(before, cls) → word tuples`, so no grammar library is imported (docs/guides/constrained-decoding.md)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any

import torch

from tnforge.schemas import NORM_CLOSE, NORM_OPEN, TRIVIAL_TARGETS
from tnforge.schemas.classes import UNION
from tnforge.trainers.decoding.class_weights import Weight, row_weights
from tnforge.trainers.decoding.hooks import BatchConstraint, ConstraintBatch, DecodingConstraint, StepContext
from tnforge.trainers.decoding.protocol import OutputVocabulary

ReadingWords = Callable[[str, str | None], Collection[tuple[str, ...]]]
#: Scores of aligned (encoded input, text) pairs; or [B, V] scores of tokens × words.
DEFAULT_LAMBDA = 5.0


def token_of(window: str) -> str:
    """The token of a window `… <norm> token </norm> …` (the whole text when it has no markers)."""
    start = window.find(NORM_OPEN)
    end = window.rfind(NORM_CLOSE)
    if start < 0 or end < start:
        return window.strip()
    return window[start + len(NORM_OPEN): end].strip()


def batch_tokens(batch: ConstraintBatch) -> list[str]:
    """The written tokens of a constraint batch (its `befores`, else taken from the windows)."""
    if batch.befores is not None:
        return [str(b) for b in batch.befores]
    return [token_of(window) for window in batch.inputs]


def exempt_outputs(scorer: Any, exempt: Collection[str] | None) -> frozenset[str]:
    """Outputs a DE constraint does not score: `exempt` if given, else the trivial readings unless the DE
    judges them."""
    if exempt is not None:
        return frozenset(exempt)
    return frozenset() if getattr(scorer, "judges_trivial", False) else TRIVIAL_TARGETS


class _DualEncoderConstraint(DecodingConstraint):
    """A constraint weighing a dual encoder's scores by λ (`weight`: one λ, or λ per class by the batch's
    classes; a batch whose every λ is 0 is left unconstrained)."""

    def __init__(self, scorer: Any, weight: Weight = DEFAULT_LAMBDA, exempt: Collection[str] | None = None):
        self.scorer = scorer
        self.weight = weight if not isinstance(weight, (int, float)) else float(weight)
        self.exempt = exempt_outputs(scorer, exempt)

    def weights(self, batch: ConstraintBatch) -> torch.Tensor | None:
        """The λ of each of the batch's inputs ([B]), or None when all are 0."""
        weights = row_weights(self.weight, batch.classes, len(batch.inputs))
        return torch.tensor(weights, dtype=torch.float32) if any(weights) else None


class SequenceDEConstraint(_DualEncoderConstraint):
    """STOP + λ(s − 0.5) with s the sequence DE's score of the finished hypothesis."""

    def for_batch(self, batch: ConstraintBatch) -> BatchConstraint:
        weights = self.weights(batch)
        if weights is None:
            return BatchConstraint(batch)
        tokens = batch_tokens(batch)
        return _SequenceDEBatch(batch, self, tokens, self.scorer.encode_inputs(tokens), weights)


class _SequenceDEBatch(BatchConstraint):
    """One batch of a `SequenceDEConstraint`: its tokens' input vectors, encoded once."""

    def __init__(self, batch: ConstraintBatch, owner: SequenceDEConstraint, tokens: list[str],
                 encoded: torch.Tensor, weights: torch.Tensor):
        super().__init__(batch)
        self.owner = owner
        self.tokens = tokens
        self.encoded = encoded
        self.weights = weights

    def stop_scores(self, context: StepContext) -> torch.Tensor | None:
        scorer = self.owner.scorer
        texts = context.texts()
        rows = context.rows.to(self.encoded.device)
        u = self.encoded.index_select(0, rows)
        if getattr(scorer, "needs_befores", False):
            tokens = [self.tokens[i] for i in context.rows.tolist()]
            scores = scorer.score_encoded(u, texts, tokens).float()
        else:
            scores = scorer.score_encoded(u, texts).float()
        exempt = [i for i, text in enumerate(texts) if text in self.owner.exempt or not text]
        if exempt:
            scores[exempt] = 1.0  # exempt readings: the DE has no objection (as for the vocabulary filter)
        bonus = self.weights.index_select(0, context.rows.cpu()).to(scores.device) * (scores - 0.5)
        return bonus.to(context.prefixes.device)


def vocabulary_words(vocab: OutputVocabulary) -> list[str]:
    """The output vocabulary's symbols as words (specials included, so ids line up)."""
    return list(vocab.symbols)


class VocabularyFilterConstraint(_DualEncoderConstraint):
    """Each unit's log-probability + λ(s − 1), s = p(word may appear) scored once per input for the vocabulary."""

    def for_batch(self, batch: ConstraintBatch) -> BatchConstraint:
        weights = self.weights(batch)
        if weights is None:
            return BatchConstraint(batch)
        words = vocabulary_words(batch.output_vocab)
        scores = self.scorer.score_matrix(batch_tokens(batch), words).float()
        added = weights.to(scores.device).unsqueeze(1) * (scores - 1.0)
        specials = batch.output_vocab.special_ids
        neutral = [i for i, word in enumerate(words) if i in specials or word in self.exempt]
        added[:, neutral] = 0.0
        return BatchConstraint(batch, added=added.to(batch.device))


class _Trie:
    """Licensed id sequences of one input: prefix → (allowed next ids, whether the prefix is complete)."""

    __slots__ = ("nodes",)

    def __init__(self, sequences: Collection[tuple[int, ...]]):
        nodes: dict[tuple[int, ...], tuple[set[int], list[bool]]] = {(): (set(), [False])}
        for sequence in sequences:
            for i, unit in enumerate(sequence):
                nodes[sequence[:i]][0].add(unit)
                nodes.setdefault(sequence[: i + 1], (set(), [False]))
            nodes[sequence][1][0] = True
        self.nodes = {prefix: (sorted(nexts), done[0]) for prefix, (nexts, done) in nodes.items()}


class GrammarConstraint(DecodingConstraint):
    """Hard mask: only continuations of the covering grammar's licensed readings (covered classes only).

    `reading_words(before, cls)` gives the licensed readings as word tuples; `classes` are the classes it
    may constrain (None: any class given). With `any_class`, inputs without a class use `cls=None` (the
    union over classes, which always licenses `<self>`). Readings that cannot finish within `max_length`
    units are left out, so a cut-off hypothesis is never an unlicensed prefix.
    """

    def __init__(self, reading_words: ReadingWords, classes: Collection[str] | None = None, any_class: bool = False,
                 max_length: int | None = None, cache_size: int = 20_000):
        self.reading_words = reading_words
        self.max_length = max_length
        self.classes = None if classes is None else frozenset(classes)
        self.any_class = any_class
        self._cache: OrderedDict[tuple[str, str | None, int], _Trie | None] = OrderedDict()  # a pure memo
        self._cache_size = cache_size

    def _trie(self, before: str, cls: str | None, vocab: OutputVocabulary) -> _Trie | None:
        key = (before, cls, id(vocab))
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        sequences = set()
        # a vocabulary that reads `<self>` and `sil` by the token (a sentence model's span: its own pieces, or
        # an empty span) encodes each reading with it, and an empty sequence is then a reading
        by_token = getattr(vocab, "encode_reading", None)
        for words in self.reading_words(before, cls):
            text = " ".join(words)
            ids = tuple(by_token(text, before) if by_token is not None else vocab.encode(text))
            if ((ids or by_token is not None) and vocab.unk_id not in ids
                    and (self.max_length is None or len(ids) < self.max_length)):
                sequences.add(ids)
        trie = _Trie(sequences) if sequences else None
        self._cache[key] = trie
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return trie

    def applies_to(self, cls: str | None) -> bool:
        if cls is None:
            return self.any_class
        return self.classes is None or cls in self.classes or UNION in cls  # a union: its classes' readings

    def for_batch(self, batch: ConstraintBatch) -> BatchConstraint:
        tokens = batch_tokens(batch)
        classes = batch.classes or [None] * len(tokens)
        tries: list[_Trie | None] = []
        constrained = unconstrained = 0  # unconstrained: inputs of covered classes with no spellable reading
        for before, cls in zip(tokens, classes, strict=True):
            trie = None
            if self.applies_to(cls):
                trie = self._trie(before, cls, batch.output_vocab)
                if trie is None:
                    unconstrained += 1
                else:
                    constrained += 1
            tries.append(trie)
        return _GrammarBatch(batch, tries, {"grammar_constrained": constrained,
                                            "grammar_unconstrained": unconstrained})


class _GrammarBatch(BatchConstraint):
    """One batch of a `GrammarConstraint`: the licensed-reading trie of each input (None: left free)."""

    def __init__(self, batch: ConstraintBatch, tries: list[_Trie | None], counts: dict[str, int]):
        super().__init__(batch, counts=counts)
        self.tries = tries

    def step_scores(self, context: StepContext) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        rows = context.rows.tolist()
        tries = [self.tries[r] for r in rows]
        if all(trie is None for trie in tries):
            return None, None
        vocab_size = len(context.output_vocab)
        device = context.prefixes.device
        mask = torch.zeros((len(rows), vocab_size), dtype=torch.bool)
        prefixes = context.prefixes.tolist()
        allow_rows: list[int] = []
        allow_cols: list[int] = []
        for i, trie in enumerate(tries):
            if trie is None:
                continue
            mask[i] = True
            node = trie.nodes.get(tuple(prefixes[i]))
            if node is None:
                continue  # a dead hypothesis (already −∞): everything stays forbidden
            nexts, complete = node
            allow_rows.extend([i] * len(nexts))
            allow_cols.extend(nexts)
            if complete:
                allow_rows.append(i)
                allow_cols.append(context.output_vocab.eos_id)
        if allow_rows:
            mask[allow_rows, allow_cols] = False
        return None, mask.to(device)
