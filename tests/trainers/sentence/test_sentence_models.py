"""The sentence family (Mansfield et al. 2019): its SentencePiece inventory, features, span alignment, a tiny
model that learns hand-made sentences and reads them back one reading per token (with the grammar mask per
span), the registry, and `normalize` / `evaluate --raw` with a sentence run."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from tests.support.tiny_models import TINY_SENTENCES, write_sentence_dataset  # noqa: E402
from tnforge import schemas
from tnforge.cli import cli
from tnforge.trainers.sentence.features import casing, feature_ids, parse_features, positions  # noqa: E402
from tnforge.trainers.sentence.pieces import SEPARATOR_ID, SentencePieces, corpus_reading  # noqa: E402
from tnforge.trainers.sentence.spans import align_spans  # noqa: E402


def tiny_config(data: Path, out: Path, **model: object):
    from tnforge.trainers.sentence.model import SentenceModelConfig
    from tnforge.trainers.sentence.train import SentenceTrainConfig

    sizes = dict(embedding=32, feature_embedding=8, hidden=48, attention=32, width=48, heads=4, feedforward=96,
                 dropout=0.0, layers=1)
    sizes.update(model)
    return SentenceTrainConfig(data=str(data), out=str(out), device="cpu", epochs=150, batch_size=4,
                               learning_rate=1e-2, patience=1000, eval_every=50, seed=5, progress=False, threads=1,
                               pieces=120, lr_decay=1.0, max_minutes=0, model=SentenceModelConfig(**sizes))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory):
    """A tiny LSTM that has learned the tiny sentences (features: casing and position, so no tagger needed)."""
    from tnforge.trainers.sentence.train import train

    work = tmp_path_factory.mktemp("sentence")
    data = write_sentence_dataset(work / "data")
    result = train(tiny_config(data, work / "run", features="casing,position"))
    return result, data


# --- pieces, features, spans ---------------------------------------------------------------------------


def test_pieces_are_deterministic_with_digits_split_and_a_separator(bundled_build):
    from tnforge.trainers.sentence.data import iter_texts, sentence_files

    files = sentence_files(bundled_build, "train")
    first, second = (SentencePieces.trained(iter_texts(files), 400) for _ in range(2))
    assert first.model_proto == second.model_proto  # same text → same model bytes
    assert len(first) <= 400 and first.symbols[SEPARATOR_ID] == "<sep>"
    assert [first.symbols[i] for i in first.encode("1984")][-4:] == ["1", "9", "8", "4"]
    assert SEPARATOR_ID not in first.encode("a <sep> b")  # a control symbol: no text encodes to it
    readings = ["nineteen eighty four", "", "It", "b b c"]
    ids = first.join_readings(readings)
    assert ids.count(SEPARATOR_ID) == 3 and first.split(ids) == readings


def test_features_of_each_piece():
    assert [casing(t) for t in ("BBC", "leaves", "McDonald", "$3", ".", "Москва", "1984", "café")] == [
        "upper", "lower", "mixed", "lower", "non-alphanumeric", "foreign", "lower", "lower"]
    assert positions(1) == ["S"] and positions(3) == ["B", "M", "E"]
    assert parse_features("none") == () and parse_features("class,casing") == ("casing", "class")
    with pytest.raises(ValueError, match="pos is left out"):
        parse_features("casing,pos")
    casing_ids, position_ids, class_ids = feature_ids([[7], [8, 9]], ["It", "540"], ["PLAIN", "CARDINAL"],
                                                      ("casing", "position", "class"))
    assert casing_ids == [3, 2, 2] and position_ids == [4, 1, 3] and class_ids[1] == class_ids[2] != class_ids[0]


def test_spans_align_one_reading_per_token():
    assert align_spans(["a", "", "b"], 3) == (["a", "", "b"], True)
    assert align_spans(["a"], 3) == (["a", "", ""], False)
    assert align_spans(["a", "b", "c", "d"], 2) == (["a", "b c d"], False)
    assert [corpus_reading("It", "It"), corpus_reading(".", ""), corpus_reading("540", "five forty")] == [
        schemas.SELF, schemas.SIL, "five forty"]


# --- a tiny model --------------------------------------------------------------------------------------


def test_tiny_model_learns_the_sentences_and_reads_them_back_aligned(trained):
    from tnforge.trainers.evaluation.accuracy import is_correct
    from tnforge.trainers.families import load
    from tnforge.trainers.sentence.loading import LoadedSentenceModel

    result, _data = trained
    assert (result.run / "pieces.model").read_bytes() == torch.load(
        result.run / "best.pt", weights_only=False)["pieces"]
    family, loaded = load(result.run)
    assert family.name == "sentence" and isinstance(loaded, LoadedSentenceModel)
    from tnforge.trainers.decoding.sentences import read_sentences

    tokens = [[b for _, b, _ in s] for s in TINY_SENTENCES]
    readings, counts = read_sentences(loaded, tokens, beam=3)
    assert counts["span_mismatch"] == 0 and counts["sentences_decoded"] == len(TINY_SENTENCES)
    for reading, sentence in zip(readings, TINY_SENTENCES, strict=True):
        assert len(reading.readings) == len(sentence) and all(reading.decoded)
        assert all(is_correct(b, a, r) for (_, b, a), r in zip(sentence, reading.readings, strict=True)), \
            reading.readings
    assert readings[0].readings[1] == "five hundred forty" and readings[0].readings[-1] == schemas.SIL


def test_transformer_pieces_enter_the_decoder_at_the_scale_of_the_positions():
    """Drawn at torch's N(0, 1) and scaled by √width, the target pieces drowned the position encodings (RMS 1/√2)
    √width-fold, and on the shared sample the Transformer learned no order in 28 minutes (dev loss 3.0/piece)."""
    from tnforge.trainers.sentence.model import SentenceModelConfig, SentenceTransformer, sinusoids

    for width in (48, 192, 512):
        torch.manual_seed(0)
        net = SentenceTransformer(SentenceModelConfig(arch="transformer", width=width, heads=4), 500)
        pieces = net.target_embedding.weight.detach()[1:] * width ** 0.5
        rms = float(pieces.pow(2).mean().sqrt())
        positions = float(sinusoids(64, width, torch.device("cpu")).pow(2).mean().sqrt())
        assert 0.5 < rms / positions < 2.0, (width, rms, positions)


def test_transformer_steps_give_the_logits_of_the_whole_prefix():
    """Decoding one position at a time with the layers' cached keys and values gives what re-reading the whole
    prefix gives, for rows of different source lengths and after beam search's row selection."""
    from tnforge.trainers.sentence.model import SentenceModelConfig, SentenceTransformer

    torch.manual_seed(3)
    net = SentenceTransformer(SentenceModelConfig(arch="transformer", width=32, heads=4, feedforward=64,
                                                  features="casing", layers=2), 60).eval()
    source = torch.randint(5, 60, (3, 7, 2))
    source[..., 1] = torch.randint(1, 4, (3, 7))
    lengths = torch.tensor([7, 4, 2])
    target = torch.randint(5, 60, (3, 9))
    with torch.no_grad():
        encoded, state = net.encode(source, lengths)
        whole = net.decode(target, encoded)
        stepped = []
        for t in range(target.shape[1]):
            logits, state = net.step(target[:, t], state, encoded)
            stepped.append(logits)
        assert torch.allclose(torch.stack(stepped, dim=1), whole, atol=1e-5)
        order = torch.tensor([2, 0, 0])
        logits, _ = net.step(target[order, 0], state.select(order), encoded.select(order))
        again = net.decode(torch.cat([target[order], target[order, :1]], dim=1), encoded.select(order))[:, -1]
        assert torch.allclose(logits, again, atol=1e-5)


def test_tiny_transformer_learns_the_sentences(tmp_path):
    """The Transformer learns the tiny sentences and reads them back one reading per token."""
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.evaluation.accuracy import is_correct
    from tnforge.trainers.families import load
    from tnforge.trainers.sentence.train import train

    data = write_sentence_dataset(tmp_path / "data")
    config = tiny_config(data, tmp_path / "run", arch="transformer", features="casing,position")
    config.learning_rate, config.epochs = 3e-3, 80
    result = train(config)
    _family, loaded = load(result.run)
    readings, counts = read_sentences(loaded, [[b for _, b, _ in s] for s in TINY_SENTENCES], beam=3)
    assert counts["span_mismatch"] == 0
    for reading, sentence in zip(readings, TINY_SENTENCES, strict=True):
        assert all(is_correct(b, a, r) for (_, b, a), r in zip(sentence, reading.readings, strict=True)), \
            reading.readings


def test_grammar_mask_holds_each_span(trained):
    """A covering grammar that licenses one other reading of 540 (CARDINAL): that span takes it, and the
    sentence still splits into one reading per token."""
    from tnforge.trainers.decoding.constraints import GrammarConstraint
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.families import load

    result, _ = trained
    _, loaded = load(result.run)

    def reading_words(before, cls):
        return {("five", "forty"),} if before == "540" else set()

    sentence = TINY_SENTENCES[0]
    tokens = [[b for _, b, _ in sentence]]
    classes = [[c for c, _, _ in sentence]]
    free, _ = read_sentences(loaded, tokens, classes, beam=1)
    held, counts = read_sentences(loaded, tokens, classes, beam=1, grammar_readings=False,
                                  constraint=GrammarConstraint(reading_words, {"CARDINAL"}))
    assert free[0].readings[1] == "five hundred forty" and held[0].readings[1] == "five forty"
    assert held[0].readings[0] == free[0].readings[0] == schemas.SELF  # greedy: decided before the mask
    assert len(held[0].readings) == len(sentence)
    assert counts["grammar_constrained"] == 1 and counts["span_mismatch"] == 0


def test_normalize_and_evaluate_raw_take_a_sentence_run(trained):
    result, data = trained
    out = CliRunner().invoke(cli, ["normalize", "--model", str(result.run), "--unguarded", "--threads", "1",
                                   "It costs $3, not $5."])
    assert out.exit_code == 0, out.output
    assert out.output.strip().splitlines()[-1] == "It costs three dollars not five dollars"
    report = CliRunner().invoke(cli, ["evaluate", "--raw", "--model", str(result.run), "--data", str(data),
                                      "--split", "test", "--no-grammar", "--threads", "1"])
    assert report.exit_code == 0, report.output
    assert "| raw text → tokenizer → seq2seq (no tagger) | 100.00% (4/4) | 0.00% (0/" in report.output
    windows = CliRunner().invoke(cli, ["evaluate", "--model", str(result.run), "--data", str(data), "--split", "test",
                                       "--no-grammar"])
    assert windows.exit_code != 0 and "Traceback" not in windows.output and "use `evaluate --raw`" in windows.output


def test_decode_raw_writes_each_tokens_hypotheses(trained, tmp_path):
    import pyarrow.parquet as pq

    result, _ = trained
    text = tmp_path / "in.txt"
    text.write_text("Chapter 12 has 3 parts.\n", encoding="utf-8")
    out = CliRunner().invoke(cli, ["decode", "--raw", "--model", str(result.run), "--data", str(text), "--top-k", "2",
                                   "--out", str(tmp_path / "hyps.parquet"), "--threads", "1"])
    assert out.exit_code == 0, out.output
    rows = pq.read_table(tmp_path / "hyps.parquet").to_pylist()
    best = {r["before"]: r["hypothesis"] for r in rows if r["rank"] == 0}
    assert best == {"Chapter": "<self>", "12": "twelve", "has": "<self>", "3": "three", "parts": "<self>", ".": "sil"}


def test_a_class_reading_model_needs_a_tagger_for_raw_text(trained, tmp_path):
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.families import load
    from tnforge.trainers.sentence.reading import NeedsClasses

    result, _ = trained
    _, loaded = load(result.run)
    loaded.model.config.features = "casing,position,class"  # as a model that reads classes would be
    loaded.model.source_embedding.features.append(torch.nn.Embedding(18, 8, padding_idx=0))
    with pytest.raises(NeedsClasses, match="give a tagger"):
        read_sentences(loaded, [["It", "costs", "$3"]])
    readings, _ = read_sentences(loaded, [["It", "costs", "$3"]], [["PLAIN", "PLAIN", "MONEY"]])
    assert len(readings[0].readings) == 3


def test_a_build_without_readings_is_refused_in_one_line(tmp_path, trained):
    _, data = trained
    import shutil

    import pyarrow.parquet as pq

    older = tmp_path / "older"
    shutil.copytree(data, older)
    for path in (older / "sentences").rglob("*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["readings"]), path)
    out = CliRunner().invoke(cli, ["train", "sentence", "--data", str(older), "--out", str(tmp_path / "run"),
                                   "--threads", "1", "--epochs", "1"])
    assert out.exit_code != 0 and "Traceback" not in out.output and "rebuild the dataset" in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_grammar_readings_leave_tokens_read_as_written_or_silent(trained):
    """A grammar that licenses only `<self>` for words and `sil` for punctuation changes nothing: the model can
    spell both (a copy, an empty span), so no token takes a grammar reading in their place."""
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.families import load

    result, _ = trained
    _, loaded = load(result.run)

    def reading_words(before, cls):
        return {(schemas.SIL,)} if cls == "PUNCT" else {(schemas.SELF,)} if cls == "PLAIN" else set()

    tokens = [[b for _, b, _ in s] for s in TINY_SENTENCES]
    classes = [[c for c, _, _ in s] for s in TINY_SENTENCES]
    free, _ = read_sentences(loaded, tokens, classes, beam=2)
    held, _ = read_sentences(loaded, tokens, classes, beam=2, reading_words=reading_words)
    assert [r.readings for r in held] == [r.readings for r in free] and not any(any(r.grammar) for r in held)


def test_grammar_mask_holds_spans_read_as_written_or_silent(tmp_path):
    """Where the grammar licenses only `<self>` (a word) or `sil` (punctuation), the mask holds the span to the
    token's own pieces or to an empty span — even for a model that has learned nothing yet."""
    from tnforge.trainers.decoding.constraints import GrammarConstraint
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.families import load
    from tnforge.trainers.sentence.train import train

    data = write_sentence_dataset(tmp_path / "data")
    config = tiny_config(data, tmp_path / "run", features="casing,position")
    config.epochs, config.learning_rate = 1, 1e-4
    _, loaded = load(train(config).run)

    gold = {before: after for sentence in TINY_SENTENCES for _, before, after in sentence}

    def reading_words(before, cls):  # words: only as written; punctuation: only silent; the rest: gold
        return {(schemas.SELF,)} if cls == "PLAIN" else {(schemas.SIL,)} if cls == "PUNCT" else {
            tuple(gold[before].split())}

    tokens = [[b for _, b, _ in s] for s in TINY_SENTENCES]
    classes = [[c for c, _, _ in s] for s in TINY_SENTENCES]
    free, _ = read_sentences(loaded, tokens, classes, beam=2, grammar_readings=False)
    held, counts = read_sentences(loaded, tokens, classes, beam=2, grammar_readings=False,
                                  constraint=GrammarConstraint(reading_words))
    pairs = [(gold[b], r) for reading, sentence in zip(held, TINY_SENTENCES, strict=True)
             for (_, b, _), r in zip(sentence, reading.readings, strict=True)]
    assert all(want == got for want, got in pairs), pairs
    assert counts["grammar_constrained"] == len(pairs) and counts["span_mismatch"] == 0
    assert [r.readings for r in free] != [r.readings for r in held]  # unheld, the untrained model reads otherwise


def test_a_span_that_runs_on_ends_at_its_limit(tmp_path):
    """A model that never ends a span (untrained) still gives every token its own span, the long ones ended at
    their limit: one token read on and on cannot use up the sentence's length and leave the rest empty."""
    from tnforge.trainers.decoding.sentences import read_sentences
    from tnforge.trainers.families import load
    from tnforge.trainers.sentence.spans import span_limit
    from tnforge.trainers.sentence.train import train

    data = write_sentence_dataset(tmp_path / "data")
    config = tiny_config(data, tmp_path / "run", features="casing,position")
    config.epochs, config.learning_rate, config.max_output_length = 1, 1e-4, 1000  # room for every span's limit
    _, loaded = load(train(config).run)
    tokens = [[b for _, b, _ in s] for s in TINY_SENTENCES]
    readings, counts = read_sentences(loaded, tokens, beam=2, grammar_readings=False)
    assert counts["span_mismatch"] == 0
    for reading in readings:
        lengths = [len(loaded.pieces.encode(r)) if r not in (schemas.SELF, schemas.SIL) else 0
                   for r in reading.readings]
        limits = [span_limit(len(p)) for p in loaded.pieces.encode_tokens(reading.tokens)]
        assert max(n / limit for n, limit in zip(lengths, limits, strict=True)) > 0.5  # a span ran on to its limit
