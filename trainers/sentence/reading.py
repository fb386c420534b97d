"""Tokenized sentences read whole by a sentence model, into the same per-token `SentenceReading`s the window
pipeline gives (so `evaluate --raw`, `normalize` and `decode --raw` score and write them unchanged).

Sentences are batched by length and beam-searched together under a `spans.SpanConstraint` (the alignment, and
the per-token constraint on each span); each finished sequence splits at `<sep>` into one reading per token,
written as the corpus writes readings (`<self>`, `sil`). A sequence that does not split into as many spans as
the sentence has tokens (only a hypothesis cut off at the length limit can) is aligned by `align_spans` and
counted (`span_mismatch`). A span's readings `<self>` and `sil` are the token's own pieces and the empty span
(`pieces.SpanVocabulary.encode_reading`), so the grammar holds every span of a covered class. The grammar's one
reading of a token, where it has one, replaces the span's, as in the window pipeline (`grammar_readings`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from tnforge.schemas import SELF, SIL
from tnforge.trainers.decoding.beam_search import beam_search
from tnforge.trainers.decoding.decode import autocast
from tnforge.trainers.decoding.hooks import Counts, merge_counts
from tnforge.trainers.decoding.protocol import ReadOptions
from tnforge.trainers.decoding.sentences import (
    SentenceReading,
    decoding_class,
    grammar_reading,
    unspellable_reading,
)
from tnforge.trainers.sentence.data import source_length
from tnforge.trainers.sentence.pieces import corpus_reading
from tnforge.trainers.sentence.spans import SpanConstraint, align_spans

#: Sentences decoded together per `batch_size` inputs of the window pipeline (a sentence is ~16 tokens).
TOKENS_PER_SENTENCE = 16


class NeedsClasses(ValueError):
    """A model that reads each token's class was given sentences without classes (raw text without a tagger)."""


def read_whole_sentences(loaded: Any, sentences: Sequence[Sequence[str]],
                         classes: Sequence[Sequence[str | None]] | None,
                         probabilities: Sequence[Sequence[float]] | None,
                         options: ReadOptions) -> tuple[list[SentenceReading], Counts]:
    """The sentence family's reader (`decoding.protocol.SentenceReader`; `options.threshold` is not used: the
    model reads every token). Counts: the per-token constraint's, `sentences_decoded`, `span_mismatch`."""
    constraint, beam, batch_size, on_batch = options.constraint, options.beam, options.batch_size, options.on_batch
    reading_words, alternatives, covered = options.reading_words, options.alternatives, options.covered
    top_k, grammar_readings = options.top_k, options.grammar_readings
    token_lists = [list(t) for t in sentences]
    if classes is None and loaded.reads_classes:
        raise NeedsClasses(f"{loaded.path} reads each token's semiotic class: give a tagger (--tagger) or gold "
                           "classes")
    class_lists = [list(c) for c in classes] if classes is not None else [[None] * len(t) for t in token_lists]
    probs = [list(p) for p in probabilities] if probabilities is not None else [[1.0] * len(t) for t in token_lists]
    results = [SentenceReading(tokens, list(cls), prob, [""] * len(tokens), [False] * len(tokens),
                               [[] for _ in tokens], [False] * len(tokens))
               for tokens, cls, prob in zip(token_lists, class_lists, probs, strict=True)]
    constrained = [[decoding_class(tokens[t], cls[t], alternatives[s][t] if alternatives is not None else (),
                                   reading_words, covered) for t in range(len(tokens))]
                   for s, (tokens, cls) in enumerate(zip(token_lists, class_lists, strict=True))]
    order = sorted((s for s in range(len(results)) if results[s].tokens),
                   key=lambda s: source_length(loaded.pieces, token_lists[s]))
    per_batch = max(1, batch_size // TOKENS_PER_SENTENCE)
    counts: Counts = {"sentences_decoded": 0, "span_mismatch": 0}
    for start in range(0, len(order), per_batch):
        chunk = order[start: start + per_batch]
        rows = {"tokens": [token_lists[s] for s in chunk], "classes": [class_lists[s] for s in chunk]}
        batch = loaded.batch(rows).to(loaded.device)
        spans = SpanConstraint(rows["tokens"], [constrained[s] for s in chunk], loaded.output_vocab, loaded.device,
                               constraint)
        longest = min(loaded.max_output_length, max(spans.needed))  # every span may reach its limit
        with autocast(loaded.device):
            found = beam_search(loaded, batch.source, batch.source_lengths, beam=beam, keep=max(top_k, 1),
                                max_length=longest, constraint=spans)
        counts = merge_counts(counts, spans.counts, {"sentences_decoded": len(chunk)})
        for s, hypotheses in zip(chunk, found, strict=True):
            counts["span_mismatch"] += _fill(results[s], hypotheses, loaded.pieces, top_k)
        if on_batch:
            on_batch(sum(len(token_lists[s]) for s in chunk))
    if reading_words is not None and grammar_readings:
        for result, cls in zip(results, constrained, strict=True):
            _grammar_readings(result, cls, reading_words, _Spelling(loaded.pieces), covered)
    return results, counts


def _fill(result: SentenceReading, hypotheses: list, pieces: Any, top_k: int) -> int:
    """Set a sentence's readings and per-token hypotheses from its ranked hypotheses; 1 when the best one
    did not split into one span per token (0 otherwise)."""
    count = len(result.tokens)
    mismatch = 0
    for rank, hypothesis in enumerate(hypotheses[: max(top_k, 1)]):
        spans, aligned = align_spans(pieces.split(hypothesis.ids), count)
        if rank == 0:
            mismatch = int(not aligned)
        for t, (token, span) in enumerate(zip(result.tokens, spans, strict=True)):
            text = corpus_reading(token, span)
            if rank == 0:
                result.readings[t] = text
                result.decoded[t] = True
            if all(text != seen for seen, _ in result.hypotheses[t]):
                result.hypotheses[t].append((text, hypothesis.score))
    if not hypotheses:
        result.readings[:] = [corpus_reading(t, t) for t in result.tokens]
        mismatch = 1
    return mismatch


class _Spelling:
    """What a sentence model can spell, for `unspellable_reading`: `<self>` (a copy of the token) and `sil` (an
    empty span) always, any other text when its pieces have no unknown one."""

    def __init__(self, pieces: Any):
        self.pieces, self.unk_id = pieces, pieces.unk_id

    def encode(self, text: str) -> list[int]:
        return [] if text in (SELF, SIL) else self.pieces.encode(text)


def _grammar_readings(result: SentenceReading, classes: list[str | None], reading_words: Any, vocab: Any,
                      covered: Collection[str]) -> None:
    """Tokens the covering grammar has one reading for in their class (or whose every reading the model cannot
    spell with its pieces — `<self>` and `sil` it always can: a copy, an empty span) take it, as in the window
    pipeline."""
    for t, token in enumerate(result.tokens):
        fixed = grammar_reading(reading_words, token, classes[t]) or unspellable_reading(
            reading_words, token, classes[t], vocab, covered)
        if fixed is not None:
            result.readings[t] = fixed
            result.hypotheses[t] = [(fixed, 0.0)]
            result.grammar[t] = True
            result.decoded[t] = False
