"""The model-family contract: the registry (format → family, loading any family's checkpoint, one-line
refusals) and the decoding protocol, driven by toy models that are not the seq2seq and do not reserve 0–3."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from tnforge.cli import cli  # noqa: E402
from tnforge.trainers import families  # noqa: E402
from tnforge.trainers.decoding.beam_search import beam_search  # noqa: E402
from tnforge.trainers.decoding.constraints import GrammarConstraint  # noqa: E402
from tnforge.trainers.decoding.hooks import ConstraintBatch, DecodingConstraint, PerBatch  # noqa: E402
from tnforge.trainers.decoding.protocol import DecodableModel, OutputVocabulary, Selectable  # noqa: E402
from tnforge.trainers.dual_encoders.config import DualEncoderConfig  # noqa: E402
from tnforge.trainers.dual_encoders.model import DualEncoder  # noqa: E402
from tnforge.trainers.dual_encoders.scorer import DualEncoderScorer, save_dual_encoder  # noqa: E402
from tnforge.trainers.kernel.vocab import CharVocabulary, WordVocabulary  # noqa: E402
from tnforge.trainers.kernel.window import LoadedWindowModel  # noqa: E402
from tnforge.trainers.seq2seq.loading import load_model, save_seq2seq  # noqa: E402
from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig  # noqa: E402
from tnforge.trainers.training.checkpoints import BEST  # noqa: E402


class ToyVocabulary:
    """An output vocabulary with other special ids than the seq2seq's: STOP 0, start 1, unknown 5, no pad."""

    kind = "word"
    symbols = ["</s>", "<s>", "a", "b", "c", "<unk>"]
    pad_id, unk_id, bos_id, eos_id = -1, 5, 1, 0
    special_ids = frozenset({0, 1, 5})

    def __len__(self) -> int:
        return len(self.symbols)

    def encode(self, text: str) -> list[int]:
        return [self.symbols.index(w) if w in self.symbols[2:5] else self.unk_id for w in text.split()]

    def decode(self, ids) -> str:
        return " ".join(self.symbols[i] for i in ids if i not in self.special_ids)


@dataclass
class Rows:
    """Per-row tensors; `select` keeps or repeats rows."""

    values: torch.Tensor

    def select(self, index: torch.Tensor) -> Rows:
        return Rows(self.values.index_select(0, index))


@dataclass
class ToyBatch:
    source: torch.Tensor
    source_lengths: torch.Tensor
    rows: dict[str, list]

    def __len__(self) -> int:
        return int(self.source.shape[0])

    def to(self, device: torch.device) -> ToyBatch:
        return self


@dataclass
class EchoModel:
    """Not a seq2seq: at step t it prefers the source's t-th id (strongly prefers UNK at step 1, which beam
    search must never choose), and STOP once the source is read; `noise` adds fixed per-(previous id, step)
    scores so that several hypotheses compete."""

    noise: float = 0.0
    output_vocab: ToyVocabulary = field(default_factory=ToyVocabulary)
    config: dict = field(default_factory=dict)
    path: str = "toy"
    inputs = "windows"
    device: torch.device = torch.device("cpu")
    max_input_length: int = 8
    max_output_length: int = 4
    table: torch.Tensor = field(default_factory=lambda: torch.randn(6, 6, 6, generator=torch.Generator().manual_seed(5)))

    pad_id = property(lambda self: self.output_vocab.pad_id)
    unk_id = property(lambda self: self.output_vocab.unk_id)
    bos_id = property(lambda self: self.output_vocab.bos_id)
    eos_id = property(lambda self: self.output_vocab.eos_id)
    output_size = property(lambda self: len(self.output_vocab))

    def encode(self, source, lengths):
        n = source.shape[0]
        return Rows(torch.cat([source, lengths[:, None]], dim=1)), Rows(torch.zeros(n, dtype=torch.long))

    def step(self, previous, state, encoded):
        step = state.values
        source, lengths = encoded.values[:, :-1], encoded.values[:, -1]
        logits = torch.full((len(step), 6), -2.0)
        reading = step < lengths
        wanted = source.gather(1, step.clamp(max=source.shape[1] - 1)[:, None]).squeeze(1)
        logits[reading, wanted[reading]] += 3.0
        logits[~reading, self.eos_id] += 3.0
        logits[step == 1, self.unk_id] += 9.0
        logits = logits + self.noise * self.table[previous.clamp(min=0), step.clamp(max=5)]
        return logits, Rows(step + 1)

    def batch(self, rows):
        ids = [self.output_vocab.encode(text) for text in rows["input"]]
        width = max(len(i) for i in ids)
        return ToyBatch(torch.tensor([i + [2] * (width - len(i)) for i in ids]),
                        torch.tensor([len(i) for i in ids]), rows)

    def read_sentences(self, sentences, classes, probabilities, options):
        from tnforge.trainers.decoding.sentences import read_windows

        return read_windows(self, sentences, classes, probabilities, options)


def _brute_force(model: EchoModel, text: str, keep: int, allowed=None) -> list[tuple[str, float]]:
    """The `keep` best readings of one input by scoring every sequence of ordinary ids (the beam's rules:
    normalized over the whole vocabulary, STOP scored at the end, never before one unit, none past the limit)."""
    batch = model.batch({"input": [text]})
    found = []
    for length in range(1, model.max_output_length + 1):
        for ids in itertools.product((2, 3, 4), repeat=length):
            if allowed is not None and ids not in allowed:
                continue
            encoded, state = model.encode(batch.source, batch.source_lengths)
            previous, score = torch.tensor([model.bos_id]), 0.0
            for unit in (*ids, model.eos_id) if length < model.max_output_length else ids:
                logits, state = model.step(previous, state, encoded)
                score += float(torch.log_softmax(logits, dim=-1)[0, unit])
                previous = torch.tensor([unit])
            found.append((model.output_vocab.decode(ids), score))
    return sorted(found, key=lambda pair: -pair[1])[:keep]


def _beam(model: EchoModel, texts: list[str], keep: int, constraint: DecodingConstraint | None = None,
          beam: int = 40) -> list[list[tuple[str, float]]]:
    batch = model.batch({"input": texts})
    per_batch = None
    if constraint is not None:
        per_batch = constraint.for_batch(ConstraintBatch(texts, texts, ["CARDINAL"] * len(texts), model.output_vocab,
                                                         model.device))
    found = beam_search(model, batch.source, batch.source_lengths, beam=beam, keep=keep, constraint=per_batch)
    return [[(model.output_vocab.decode(h.ids), h.score) for h in hyps] for hyps in found]


def test_toy_models_meet_the_decoding_protocol():
    model = EchoModel()
    assert isinstance(model, DecodableModel) and isinstance(model.output_vocab, OutputVocabulary)
    assert isinstance(Rows(torch.zeros(1)), Selectable)
    assert isinstance(WordVocabulary(["a"]), OutputVocabulary)


def test_a_sentence_reader_refuses_examples_files_in_one_line(tmp_path):
    """A family whose inputs are whole sentences is refused examples windows before anything is read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tnforge.trainers.decoding.decode import decode_files

    pq.write_table(pa.table({"input": ["a b"]}), tmp_path / "part.parquet")
    reader = EchoModel()
    reader.inputs = "sentences"
    with pytest.raises(ValueError, match="toy reads whole sentences, not examples windows; use `evaluate --raw`"):
        next(decode_files(reader, [tmp_path / "part.parquet"]))
    assert isinstance(reader, DecodableModel)


def test_beam_search_through_the_protocol_reads_the_models_special_ids():
    model = EchoModel()
    texts = ["a b c", "c", "b b", "c a"]
    found = _beam(model, texts, keep=1, beam=3)
    assert [hyps[0][0] for hyps in found] == texts  # the echo, never the UNK it prefers at step 1
    for text, hyps in zip(texts, found, strict=True):
        assert hyps[0][1] == pytest.approx(_brute_force(model, text, 1)[0][1], abs=1e-5)


def test_wide_beam_through_the_protocol_finds_the_exact_top_k():
    model = EchoModel(noise=1.5)
    texts = ["a b", "c", "b c a"]
    for text, hyps in zip(texts, _beam(model, texts, keep=5), strict=True):
        exact = _brute_force(model, text, 5)
        assert [t for t, _ in hyps] == [t for t, _ in exact]
        assert [s for _, s in hyps] == pytest.approx([s for _, s in exact], abs=1e-5)


def test_grammar_mask_through_the_protocol_keeps_only_licensed_readings():
    model = EchoModel(noise=1.5)
    licensed = {"a b": {("b", "a"), ("c",), ("c", "c", "a")}, "c": {("a", "b", "b")}}
    constraint = GrammarConstraint(lambda before, cls: licensed.get(before, set()), max_length=5)
    texts = ["a b", "c", "b c a"]  # the last has no licensed reading: left free
    found = _beam(model, texts, keep=3, constraint=constraint)
    vocab = model.output_vocab
    for text, hyps in zip(texts, found, strict=True):
        allowed = ({tuple(vocab.encode(" ".join(words))) for words in licensed[text]} if text in licensed
                   else None)
        exact = _brute_force(model, text, 3, allowed)
        assert [t for t, _ in hyps] == [t for t, _ in exact]
        assert [s for _, s in hyps] == pytest.approx([s for _, s in exact], abs=1e-5)
    assert {t for t, _ in found[0]} == {" ".join(words) for words in licensed["a b"]}


def test_read_sentences_gives_constraints_each_outputs_token_span():
    from tnforge.trainers.decoding.hooks import BatchConstraint
    from tnforge.trainers.decoding.sentences import read_sentences

    seen: list[ConstraintBatch] = []

    def record(batch: ConstraintBatch) -> BatchConstraint:
        seen.append(batch)
        return BatchConstraint(batch)

    sentences = [["a", "b"], ["c", "a", "c"]]
    readings, _ = read_sentences(EchoModel(), sentences, constraint=PerBatch(record), batch_size=2)
    spans = {(before, span) for batch in seen for before, span in zip(batch.befores, batch.spans, strict=True)}
    assert spans == {(tokens[t], (t, t + 1)) for tokens in sentences for t in range(len(tokens))}
    assert all(len(batch.spans) == len(batch.inputs) for batch in seen)
    assert all(all(reading.decoded) for reading in readings)


def _tiny_seq2seq(tmp_path):
    torch.manual_seed(1)
    input_vocab, output_vocab = CharVocabulary(list("0123456789")), WordVocabulary(["one", "two", "three"])
    config = Seq2SeqConfig(input_embedding=4, output_embedding=4, encoder_hidden=4, decoder_hidden=8, attention=4)
    save_seq2seq(tmp_path / BEST, Seq2Seq(config, len(input_vocab), len(output_vocab)), input_vocab, output_vocab,
                 {"max_output_length": 6, "max_input_length": 9})
    return tmp_path


def _tiny_dual_encoder(tmp_path):
    torch.manual_seed(2)
    model = DualEncoder(DualEncoderConfig(input_buckets=512, output_buckets=512, embedding=8, hidden=8, dim=8,
                                          head_hidden=8, dropout=0.0))
    save_dual_encoder(tmp_path / BEST, model, {"kind": "sequence"}, metrics={"dev": {"auc": 0.5}})
    return tmp_path, model


def test_registry_entries_resolve_and_formats_match_the_families():
    from tnforge.cli.train import train
    from tnforge.trainers.dnc import loading as dnc_loading
    from tnforge.trainers.dual_encoders import scorer
    from tnforge.trainers.inverse import loading as inverse_loading
    from tnforge.trainers.sentence import loading as sentence_loading
    from tnforge.trainers.seq2seq import loading

    registered = families.registered()
    assert set(registered) == {loading.FORMAT, dnc_loading.FORMAT, sentence_loading.FORMAT, scorer.FORMAT,
                               "tnforge-tagger", inverse_loading.FORMAT, "tnforge-span-tagger"}
    listed = train.list_commands(None)
    for fmt, family in registered.items():
        assert family.format == fmt and family.kind in families.KINDS
        assert {c.name for c in family.commands} <= set(listed)
        for target in (family.model_config, family.loader, family.folder_loader):
            assert target is None or callable(families.resolve(target)), target
        for command in family.commands:
            for target in (command.config, command.trainer, command.describe, command.model_config,
                           command.make_config, command.options):
                assert target is None or callable(families.resolve(target)), target
    assert sorted(listed) == ["dnc", "inverse", "sentence", "seq-de", "seq2seq", "span-tagger", "tagger", "voc-de"]
    assert [f.name for f in families.of_kind("decoder")] == ["dnc", "sentence", "seq2seq"]


def test_a_second_registration_of_a_format_or_command_is_refused():
    taken = families.registered()["tnforge-seq2seq"]
    with pytest.raises(ValueError, match="format 'tnforge-seq2seq' is seq2seq's already"):
        families.register_family(families.Family("other", "tnforge-seq2seq", "decoder"))
    with pytest.raises(ValueError, match="`tnforge train seq2seq` is seq2seq's already"):
        families.register_family(families.Family("other", "tnforge-other", "decoder", commands=taken.commands))
    with pytest.raises(ValueError, match="kind 'encoder' is not one of"):
        families.register_family(families.Family("other", "tnforge-other", "encoder"))
    assert "tnforge-other" not in families.registered()


def test_registry_round_trip_of_both_formats(tmp_path):
    run = _tiny_seq2seq(tmp_path / "s2s")
    family, loaded = families.load(run, "cpu", kind="decoder")
    direct = load_model(run)
    assert family.name == "seq2seq" and isinstance(loaded, LoadedWindowModel) and isinstance(loaded, DecodableModel)
    assert (loaded.path, loaded.max_output_length, loaded.max_input_length) == (run / BEST, 6, 9)
    assert loaded.model.state_dict().keys() == direct.model.state_dict().keys()
    assert all(torch.equal(a, b) for a, b in zip(loaded.model.state_dict().values(),
                                                  direct.model.state_dict().values(), strict=True))
    batch = loaded.batch({"input": ["12", "7"]})
    assert ([h[0].ids for h in beam_search(loaded, batch.source, batch.source_lengths, beam=2)]
            == [h[0].ids for h in beam_search(direct, batch.source, batch.source_lengths, beam=2)])

    de_run, model = _tiny_dual_encoder(tmp_path / "de")
    family, scorer = families.load(de_run / BEST, "cpu")
    assert family.name == "dual encoder" and isinstance(scorer, DualEncoderScorer)
    assert scorer.metrics == {"dev": {"auc": 0.5}} and scorer.path == de_run / BEST
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), scorer.model.state_dict().values(),
                                                 strict=True))
    with pytest.raises(families.WrongKind, match="is a dual encoder run"):
        families.load(de_run, "cpu", kind="decoder")


def test_unknown_and_foreign_files_fail_in_one_line(tmp_path, recwarn):
    import pickle

    torch.save({"format": "tnforge-transformer", "format_version": 1}, tmp_path / "future.pt")
    with pytest.raises(ValueError, match="'tnforge-transformer' checkpoint, which this tnforge does not know") as error:
        families.load(tmp_path / "future.pt")
    assert all(fmt in str(error.value) for fmt in families.registered()) and "\n" not in str(error.value)
    torch.save([1, 2], tmp_path / "list.pt")
    with pytest.raises(ValueError, match="not a tnforge checkpoint"):
        families.load(tmp_path / "list.pt")
    (tmp_path / "some.tsv").write_text("a\tb\n")
    with pytest.raises(ValueError, match="not a readable tnforge checkpoint") as error:
        families.load(tmp_path / "some.tsv")
    assert "\n" not in str(error.value)
    with open(tmp_path / "object.pt", "wb") as handle:
        pickle.dump(EchoModel, handle)  # a pickle holding code: a safe load refuses it
    with pytest.raises(ValueError, match="not a readable tnforge checkpoint") as error:
        families.load(tmp_path / "object.pt")
    assert "\n" not in str(error.value) and not [w for w in recwarn if "weights_only" in str(w.message)]


def _refusal(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_model_option_refuses_other_kinds_and_other_files_in_one_line(tmp_path):
    import pickle

    de_run, _ = _tiny_dual_encoder(tmp_path / "de")
    line = _refusal(["normalize", "--model", str(de_run), "--device", "cpu", "12"])
    assert line == (f"Error: {de_run} is a dual encoder run: --model needs a decoder model (dnc, sentence, seq2seq); "
                    "pass it as --seq-de/--voc-de")
    (tmp_path / "some.tsv").write_text("a\tb\n")
    assert "not a readable tnforge checkpoint" in _refusal(["normalize", "--model", str(tmp_path / "some.tsv"), "12"])
    with open(tmp_path / "object.pt", "wb") as handle:
        pickle.dump(EchoModel, handle)  # a pickle holding code: a safe load refuses it
    line = _refusal(["normalize", "--model", str(tmp_path / "object.pt"), "12"])
    assert "not a readable tnforge checkpoint" in line and "weights_only" not in line
    torch.save({"format": "tnforge-transformer"}, tmp_path / "transformer.pt")
    assert "this tnforge does not know" in _refusal(["normalize", "--model", str(tmp_path / "transformer.pt"), "12"])


def test_a_decoder_run_as_a_dual_encoder_is_refused_in_one_line(tmp_path):
    from tnforge.trainers.decoding.constraint_sets import load_scorer

    run = _tiny_seq2seq(tmp_path)
    with pytest.raises(ValueError, match="is a seq2seq run: a scorer model .dual encoder. is needed here"):
        load_scorer(str(run), "cpu", "sequence")


def test_length_limits_fall_back_for_configs_without_them():
    from tnforge.trainers.kernel.window import MAX_INPUT, MAX_OUTPUT

    loaded = LoadedWindowModel(None, None, WordVocabulary(["a"]), {}, None, torch.device("cpu"))
    assert (loaded.max_input_length, loaded.max_output_length) == (MAX_INPUT, MAX_OUTPUT)
    assert loaded.output_size == 5 and loaded.eos_id == WordVocabulary.eos_id
