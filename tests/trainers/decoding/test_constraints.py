"""Constrained decoding through the real beam search: the DE arithmetic and the grammar mask."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.support.paths import SHARED_DATA
from tnforge.schemas import SELF, TRIVIAL_TARGETS
from tnforge.trainers.decoding.beam_search import beam_search
from tnforge.trainers.decoding.constraints import (
    GrammarConstraint,
    SequenceDEConstraint,
    VocabularyFilterConstraint,
    exempt_outputs,
    token_of,
)
from tnforge.trainers.decoding.hooks import CombinedConstraint, ConstraintBatch
from tnforge.trainers.kernel.vocab import WordVocabulary
from tnforge.trainers.kernel.window import LoadedWindowModel
from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig

EOS = WordVocabulary.eos_id

SAMPLE = SHARED_DATA / "en_sample.tsv"
WORDS = ["a", "b", "c", "<self>"]


class _State:
    def __init__(self, steps: torch.Tensor):
        self.steps = steps

    def select(self, index: torch.Tensor) -> _State:
        return _State(self.steps.index_select(0, index))


class _Encoded(_State):
    pass


class MarkovModel:
    """A stub decoder meeting the decoding protocol: logits depend on the previous unit and the step (STOP
    likely after two words); special ids and sizes as the word vocabulary has them."""

    pad_id, unk_id, bos_id, eos_id = WordVocabulary.pad_id, WordVocabulary.unk_id, WordVocabulary.bos_id, EOS
    max_output_length = 40

    def __init__(self, vocab_size: int):
        self.output_size = vocab_size
        generator = torch.Generator().manual_seed(3)
        self.table = torch.randn(vocab_size, vocab_size, generator=generator)

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple[_Encoded, _State]:
        n = source.shape[0]
        return _Encoded(torch.zeros(n, dtype=torch.long)), _State(torch.zeros(n, dtype=torch.long))

    def step(self, previous: torch.Tensor, state: _State, encoded: _Encoded) -> tuple[torch.Tensor, _State]:
        logits = self.table[previous].clone()
        logits[:, EOS] += 1.5 * state.steps.float()  # STOP grows likelier with length
        return logits, _State(state.steps + 1)


class FixedSequenceScorer:
    """A stand-in sequence DE: s(text) from a table (0.5 when unknown)."""

    def __init__(self, table: dict[str, float], judges_trivial: bool = False):
        self.table = table
        self.judges_trivial = judges_trivial

    def encode_inputs(self, befores: list[str]) -> torch.Tensor:
        return torch.zeros(len(befores), 1)

    def score_encoded(self, u: torch.Tensor, texts: list[str]) -> torch.Tensor:
        return torch.tensor([self.table.get(t, 0.5) for t in texts])


class FixedWordScorer:
    """A stand-in vocabulary DE: s(word) from a table; counts how often the vocabulary is scored."""

    def __init__(self, table: dict[str, float], judges_trivial: bool = False):
        self.table = table
        self.calls = 0
        self.judges_trivial = judges_trivial

    def score_matrix(self, befores: list[str], words: list[str]) -> torch.Tensor:
        self.calls += 1
        return torch.tensor([[self.table.get(w, 1.0) for w in words]] * len(befores))


def _decode(constraint=None, inputs: int = 2, keep: int = 12, vocab: WordVocabulary | None = None, model=None,
            befores=None, classes=None, max_length: int = 6):
    vocab = vocab or WordVocabulary(WORDS)
    model = model or MarkovModel(len(vocab))
    source = torch.ones((inputs, 3), dtype=torch.long)
    lengths = torch.full((inputs,), 3)
    batch = ConstraintBatch([f"x <norm> {b} </norm> y" for b in (befores or ["1"] * inputs)], befores, classes,
                            vocab, torch.device("cpu"))
    per_batch = constraint.for_batch(batch) if constraint else None
    found = beam_search(model, source, lengths, beam=12, keep=keep, max_length=max_length, constraint=per_batch)
    return [{vocab.decode(h.ids): h.score for h in hyps} for hyps in found], (per_batch.counts if per_batch else {})


def test_sequence_de_adds_lambda_times_s_minus_half_at_stop_only() -> None:
    plain, _ = _decode()
    table = {"a": 0.9, "b": 0.1, "a b": 0.2, "b a": 0.95, "c c": 0.0, "a a": 1.0}
    weight = 5.0
    constrained, _ = _decode(SequenceDEConstraint(FixedSequenceScorer(table), weight))
    checked = 0
    for before, after in zip(plain, constrained, strict=True):
        for text, score in after.items():
            if text in before:
                expected = weight * ((1.0 if text == "<self>" else table.get(text, 0.5)) - 0.5)
                assert score - before[text] == pytest.approx(expected, abs=1e-4), text
                checked += 1
    assert checked >= 10
    # Two-word hypotheses get only their own bonus, not their one-word prefix's: the bonus is STOP-only.
    assert any(len(text.split()) == 2 for text in constrained[0] if text in plain[0])


def test_vocabulary_filter_adds_lambda_times_s_minus_one_per_word_once_per_batch() -> None:
    plain, _ = _decode()
    table = {"a": 0.2, "b": 0.9, "c": 0.6}
    scorer = FixedWordScorer(table)
    weight = 3.0
    constrained, _ = _decode(VocabularyFilterConstraint(scorer, weight))
    assert scorer.calls == 1  # the whole vocabulary is scored once per batch, not per step
    checked = 0
    for before, after in zip(plain, constrained, strict=True):
        for text, score in after.items():
            if text in before:
                expected = sum(weight * (table[w] - 1.0) for w in text.split() if w != "<self>")
                assert score - before[text] == pytest.approx(expected, abs=1e-4), text
                checked += 1
    assert checked >= 10


def test_trivial_readings_are_scored_only_by_a_de_that_judges_them() -> None:
    table = {SELF: 0.1, "a": 0.9}
    assert exempt_outputs(FixedSequenceScorer(table), None) == TRIVIAL_TARGETS
    assert exempt_outputs(FixedSequenceScorer(table, judges_trivial=True), None) == frozenset()
    assert exempt_outputs(FixedSequenceScorer(table, judges_trivial=True), [SELF]) == {SELF}
    plain, _ = _decode()
    weight = 4.0
    exempting, _ = _decode(SequenceDEConstraint(FixedSequenceScorer(table), weight))
    judging, _ = _decode(SequenceDEConstraint(FixedSequenceScorer(table, judges_trivial=True), weight))
    assert SELF in plain[0] and SELF in exempting[0] and SELF in judging[0]
    assert exempting[0][SELF] - plain[0][SELF] == pytest.approx(weight * 0.5, abs=1e-4)  # s = 1: no objection
    assert judging[0][SELF] - plain[0][SELF] == pytest.approx(weight * (0.1 - 0.5), abs=1e-4)
    words, _ = _decode(VocabularyFilterConstraint(FixedWordScorer({SELF: 0.8}, judges_trivial=True), weight))
    assert words[0][SELF] - plain[0][SELF] == pytest.approx(weight * (0.8 - 1.0), abs=1e-4)
    free, _ = _decode(VocabularyFilterConstraint(FixedWordScorer({SELF: 0.8}), weight))
    assert free[0][SELF] == pytest.approx(plain[0][SELF], abs=1e-4)


def test_combined_constraints_add_up() -> None:
    seq, words = FixedSequenceScorer({"a": 0.8}), FixedWordScorer({"a": 0.5})
    plain, _ = _decode()
    both, _ = _decode(CombinedConstraint([SequenceDEConstraint(seq, 2.0), VocabularyFilterConstraint(words, 2.0)]))
    if "a" in plain[0] and "a" in both[0]:
        assert both[0]["a"] - plain[0]["a"] == pytest.approx(2.0 * 0.3 + 2.0 * -0.5, abs=1e-4)


def test_grammar_mask_allows_only_licensed_readings() -> None:
    licensed = {("1",): {("a", "b"), ("c",), ("a", "b", "c")}, ("2",): {("b", "b", "b")}}

    def reading_words(before: str, cls: str | None):
        return licensed.get((before,), frozenset())

    constraint = GrammarConstraint(reading_words, classes={"CARDINAL"})
    found, counts = _decode(constraint, inputs=3, befores=["1", "2", "9"], classes=["CARDINAL", "CARDINAL", "PLAIN"])
    assert set(found[0]) == {"a b", "c", "a b c"}
    assert set(found[1]) == {"b b b"}
    assert len(found[2]) > 3  # a class the constraint does not cover stays free
    assert counts["grammar_constrained"] == 2


def test_grammar_mask_drops_readings_that_cannot_finish_in_time() -> None:
    constraint = GrammarConstraint(lambda b, c: {("a",) * 8, ("b",)}, max_length=6)
    found, _ = _decode(constraint, inputs=1, befores=["1"], classes=["CARDINAL"], max_length=6)
    assert set(found[0]) == {"b"}


def test_token_of_window() -> None:
    assert token_of("on <norm> October 19, 2001 </norm> at") == "October 19, 2001"
    assert token_of("3kg") == "3kg"


def _sample_tokens(limit: int) -> list[tuple[str, str, str]]:
    rows = []
    with open(SAMPLE, encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and parts[0] in {"CARDINAL", "DATE", "MEASURE", "MONEY", "ORDINAL", "PLAIN",
                                                "PUNCT", "LETTERS", "TIME", "DECIMAL", "DIGIT"}:
                rows.append((parts[0], parts[1], parts[2]))
    step = max(1, len(rows) // limit)
    return rows[::step][:limit]


@pytest.mark.skipif(not SAMPLE.exists(), reason="shared sample corpus not present")
def test_grammar_masked_decode_never_outputs_an_unlicensed_reading() -> None:
    pytest.importorskip("pynini")
    from tnforge.grammars import covered_classes, licenses, reading_words

    tokens = _sample_tokens(60)
    words = sorted({w for cls, before, after in tokens for r in reading_words(before, cls, 200) for w in r}
                   | {"one", "two", "dollars", "the", "of"})
    vocab = WordVocabulary(words)
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(input_embedding=8, output_embedding=8, encoder_hidden=8, decoder_hidden=16,
                                attention=8, dropout=0.0), 10, len(vocab)).eval()  # untrained: any output
    model = LoadedWindowModel(model, None, vocab, {}, Path(), torch.device("cpu"))
    constraint = GrammarConstraint(lambda b, c: reading_words(b, c, 200), covered_classes(), max_length=30)
    source = torch.randint(4, 10, (len(tokens), 5))
    batch = ConstraintBatch([f"<norm> {b} </norm>" for _, b, _ in tokens], [b for _, b, _ in tokens],
                            [c for c, _, _ in tokens], vocab, torch.device("cpu"))
    found = beam_search(model, source, torch.full((len(tokens),), 5), beam=4, keep=3, max_length=30,
                        constraint=constraint.for_batch(batch))
    outputs = 0
    for (cls, before, _), hypotheses in zip(tokens, found, strict=True):
        for hypothesis in hypotheses:
            text = vocab.decode(hypothesis.ids)
            assert licenses(before, text, cls), (cls, before, text)
            outputs += 1
    assert outputs >= len(tokens)


def test_each_batch_gets_a_fresh_constraint_and_its_counts_come_back_as_values() -> None:
    licensed = {"1": {("a", "b"), ("c",)}, "2": {("b",)}}
    grammar = GrammarConstraint(lambda b, c: licensed.get(b, frozenset()), classes={"CARDINAL"})
    constraint = CombinedConstraint([SequenceDEConstraint(FixedSequenceScorer({"a b": 0.9, "c": 0.1}), 3.0),
                                     VocabularyFilterConstraint(FixedWordScorer({"a": 0.4}), 2.0), grammar])
    batch = {"inputs": 3, "befores": ["1", "2", "9"], "classes": ["CARDINAL", "CARDINAL", "CARDINAL"]}
    first, first_counts = _decode(constraint, **batch)
    _, other_counts = _decode(constraint, inputs=1, befores=["1"], classes=["PLAIN"])
    second, second_counts = _decode(constraint, **batch)
    assert first == second  # nothing of one batch changes the next
    assert first_counts == second_counts == {"grammar_constrained": 2, "grammar_unconstrained": 1}
    assert other_counts == {"grammar_constrained": 0, "grammar_unconstrained": 0}
    assert set(first[0]) <= {"a b", "c"} and set(first[1]) == {"b"} and len(first[2]) > 2
    vocab = WordVocabulary(WORDS)
    one = ConstraintBatch(["1"], ["1"], ["CARDINAL"], vocab, torch.device("cpu"))
    assert grammar.for_batch(one) is not grammar.for_batch(one)


def test_lambda_per_class_weighs_each_input_by_its_own_class() -> None:
    """λ per class: an input of a class with its own λ gets exactly what one λ for every input would give it;
    a class weighed 0 (or no class: the default) is left as the unconstrained search has it."""
    from tnforge.trainers.decoding.class_weights import ClassWeights

    table = {"a": 0.9, "b": 0.1, "a b": 0.2, "b a": 0.95, "c c": 0.0, "a a": 1.0}
    words = {"a": 0.2, "b": 0.9, "c": 0.6}
    per_class = ClassWeights(0.0, (("MONEY", 5.0),))
    for make in (lambda w: SequenceDEConstraint(FixedSequenceScorer(table), w),
                 lambda w: VocabularyFilterConstraint(FixedWordScorer(words), w)):
        plain, _ = _decode(inputs=3)
        single, _ = _decode(make(5.0), inputs=3)
        mixed, _ = _decode(make(per_class), inputs=3, classes=["MONEY", "CARDINAL", None])
        assert mixed[0] == pytest.approx(single[0]) and single[0] != pytest.approx(plain[0])
        assert mixed[1] == pytest.approx(plain[1]) and mixed[2] == pytest.approx(plain[2])
        none, _ = _decode(make(per_class), inputs=2, classes=["CARDINAL", "DATE"])
        assert none == [pytest.approx(p) for p in plain[:2]]
