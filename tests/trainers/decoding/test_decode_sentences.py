"""Raw text → spoken text: the reading pipeline by class (trainers.decoding.raw_text), batch mode on files
and standard streams (`tnforge normalize --file`), and evaluation from plain text — on a tiny model trained
on hand-made sentences and on real sentences of the bundled sample."""

from __future__ import annotations

import pytest

from tnforge.reading import Normalizer

torch = pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.schemas import SELF, SIL  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from tnforge.trainers.seq2seq.loading import load_model

    result, data = H.train_tiny(tmp_path_factory.mktemp("raw"))
    return load_model(result.run), data, result.run


def _gold(sentences=H.TINY_SENTENCES):
    tokens = [[b for _, b, _ in s] for s in sentences]
    classes = [[c for c, _, _ in s] for s in sentences]
    afters = [[a for _, _, a in s] for s in sentences]
    return tokens, classes, afters


def test_confident_plain_and_punct_skip_the_seq2seq_the_rest_is_decoded_by_class(tiny):
    from tnforge.trainers.decoding.sentences import read_sentences

    loaded, _, _ = tiny
    tokens, classes, afters = _gold()
    readings, counts = read_sentences(loaded, tokens, classes, batch_size=3)
    assert counts == {}
    for reading, cls, gold in zip(readings, classes, afters, strict=True):
        assert reading.decoded == [c not in ("PLAIN", "PUNCT") for c in cls]
        assert [r for r, c in zip(reading.readings, cls, strict=True) if c == "PUNCT"] == [SIL] * cls.count("PUNCT")
        assert [r for r, c in zip(reading.readings, cls, strict=True) if c == "PLAIN"] == [SELF] * cls.count("PLAIN")
        assert reading.readings == gold  # the tiny model learnt its sentences
    assert readings[0].spoken == "Train five hundred forty leaves at four forty five"
    # Below the threshold (or without classes) every token goes through the seq2seq, in any batch size.
    unsure, _ = read_sentences(loaded, tokens, classes, [[0.5] * len(t) for t in tokens], batch_size=2)
    classless, _ = read_sentences(loaded, tokens, None, batch_size=256)
    for reading in (*unsure, *classless):
        assert all(reading.decoded)
    assert [r.readings for r in unsure] == [r.readings for r in classless]
    with pytest.raises(ValueError, match="sentence 0: 6 tokens but 5 classes"):
        read_sentences(loaded, tokens[:1], [classes[0][:5]])


def test_grammar_constraint_uses_each_tokens_class(tiny):
    pytest.importorskip("pynini")
    from tnforge.grammars import adapter
    from tnforge.trainers.decoding.constraint_sets import grammar_constraint
    from tnforge.trainers.decoding.sentences import read_sentences

    loaded, _, _ = tiny
    reading_words, covered = adapter.reading_words()
    constraint = grammar_constraint(loaded, reading_words, covered)
    tokens, classes, afters = _gold()
    readings, counts = read_sentences(loaded, tokens, classes, constraint=constraint)
    decoded = sum(c not in ("PLAIN", "PUNCT") for cls in classes for c in cls)
    assert counts["grammar_constrained"] + counts["grammar_unconstrained"] == decoded
    assert counts["grammar_constrained"] >= decoded - 1
    assert [r.readings for r in readings] == afters
    # Every decoded reading is one the grammar licenses for the token's class.
    judge = adapter.licenser()
    items = [(t, r, c) for reading in readings
             for t, r, c, d in zip(reading.tokens, reading.readings, reading.classes, reading.decoded, strict=True) if d]
    assert all(judge(items))
    # A PLAIN token the grammar reads otherwise ("centre" → "center", "-" → "to") goes to the seq2seq.
    from tnforge.trainers.decoding.sentences import read_as_written

    assert read_as_written("centre", "PLAIN", 1.0, 0.9, reading_words) is None
    assert read_as_written("-", "PLAIN", 1.0, 0.9, reading_words) is None
    assert read_as_written("Train", "PLAIN", 1.0, 0.9, reading_words) == SELF
    assert read_as_written("centre", "PLAIN", 1.0, 0.9) == SELF
    assert read_as_written(",", "PUNCT", 0.95, 0.9, reading_words) == SIL
    assert read_as_written(",", "PUNCT", 0.85, 0.9, reading_words) is None
    assert read_as_written("12", "CARDINAL", 1.0, 0.9, reading_words) is None


def test_real_sentences_read_with_gold_classes(tiny, bundled_tsv):
    """Sentences of the bundled sample: what passes through is exactly the written text and silence (and the
    abbreviations the corpus expands, by their context: `St` → saint); the tokens and line structure survive
    whatever the (tiny, untrained-on-them) model says."""
    from tnforge.abbreviations import abbreviation_reading
    from tnforge.trainers.decoding.sentences import read_sentences

    loaded, _, _ = tiny
    sentences, sentence = [], []
    for line in bundled_tsv.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if fields[0] == "<eos>":
            sentences.append(sentence)
            sentence = []
        else:
            sentence.append((fields[0], fields[1], fields[2]))
    sentences = sentences[:40]
    tokens, classes, afters = _gold(sentences)
    readings, _ = read_sentences(loaded, tokens, classes, batch_size=64)
    expanded = 0
    for reading, cls, gold in zip(readings, classes, afters, strict=True):
        words = [(t if r == SELF else r) for t, r, c in zip(reading.tokens, reading.readings, cls, strict=True)
                 if c == "PLAIN"]
        expected = [(abbreviation_reading(reading.tokens, i) or (t,))[0]
                    for i, (t, c) in enumerate(zip(reading.tokens, cls, strict=True)) if c == "PLAIN"]
        assert words == expected
        for i, c in enumerate(cls):
            if c == "PLAIN" and abbreviation_reading(reading.tokens, i):
                assert reading.readings[i] == gold[i]  # as the corpus reads it ("St Petersburg": saint)
                expanded += 1
        assert sum(reading.decoded) == sum(c not in ("PLAIN", "PUNCT") for c in cls)
    assert sum(sum(r.decoded) for r in readings) > 20
    assert expanded >= 1


def _cli(args, **kwargs):
    from click.testing import CliRunner

    from tnforge.cli import cli

    return CliRunner().invoke(cli, args, **kwargs)


LINES = ["Train 540 leaves at 4:45.", "", "It costs $3, not $5.", "   ", "Chapter 12 has 3 parts."]


def test_batch_mode_file_round_trip_keeps_every_line(tiny, tmp_path):
    _, _, run = tiny
    source = tmp_path / "in.txt"
    source.write_bytes(("\r\n".join(LINES) + "\r\n").encode("utf-8"))  # CRLF line ends
    out = tmp_path / "sub" / "out.txt"
    result = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(source), "--out", str(out), "--batch-size", "2"])
    assert result.exit_code == 0, result.output
    spoken = out.read_text(encoding="utf-8").split("\n")
    assert spoken[-1] == "" and len(spoken) - 1 == len(LINES)
    assert spoken[:5] == ["Train five hundred forty leaves at four forty five", "",
                          "It costs three dollars not five dollars", "", "Chapter twelve has three parts"]
    assert "normalized 5 sentences" in result.output
    # Standard input to standard output: the same lines.
    piped = _cli(["normalize", "-m", str(run), "--unguarded", "-f", "-", "--no-progress"], input="\n".join(LINES) + "\n")
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split("\n")[:5] == spoken[:5]


def test_normalize_in_a_pipe_logs_lines_not_redraws(tiny, tmp_path):
    _, _, run = tiny
    source = tmp_path / "in.txt"
    source.write_text("Train 540 leaves at 4:45.\nChapter 12 has 3 parts.\n", encoding="utf-8")
    result = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(source), "--out", str(tmp_path / "out.txt")])
    assert result.exit_code == 0, result.output
    assert "\r" not in result.stderr
    assert any(line.startswith("normalize:") and "2/2" in line for line in result.stderr.splitlines())


def test_batch_mode_bad_utf8_is_one_line_and_writes_nothing(tiny, tmp_path):
    _, _, run = tiny
    source = tmp_path / "bad.txt"
    source.write_bytes(b"Train 540 leaves.\nIt costs \xff$3.\n")
    out = tmp_path / "out.txt"
    result = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(source), "--out", str(out)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (f"Error: {source}, line 2: not UTF-8 text (byte 0xff at "
                                                      "column 10)")
    assert "Traceback" not in result.output
    assert not out.exists() and list(tmp_path.iterdir()) == [source]
    both = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(source), "some text"])
    assert both.exit_code == 2 and "either TEXT or --file" in both.output
    folder = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(tmp_path), "--out", str(out)])
    assert folder.exit_code == 1 and folder.output.strip().endswith(f"{tmp_path}: a folder, not a text file")
    into = _cli(["normalize", "--model", str(run), "--unguarded", "--file", str(source), "--out", str(tmp_path)])
    assert into.exit_code == 1 and "Traceback" not in into.output and "--out takes the path" in into.output
    stray = _cli(["normalize", "--model", str(run), "--out", str(out), "some text"])
    assert stray.exit_code == 2 and "--out goes with --file" in stray.output
    grammar = _cli(["normalize", "--model", str(run), "--grammar-constraint", "x"])
    assert grammar.exit_code == 2 and "needs --tagger" in grammar.output
    # A bare model run, with nothing to guard its readings, is refused in one line saying what to add.
    bare = _cli(["normalize", "--model", str(run), "Train 540 leaves at 4:45"])
    assert bare.exit_code == 1 and len(bare.output.strip().splitlines()) == 1
    assert "tnforge normalizer assemble" in bare.output and "--tagger TAGGER_RUN" in bare.output


def test_plain_text_evaluation_rows_agree_with_evaluate(tiny):
    """The every-token-decoded gold row is exactly `tnforge evaluate`'s figures; raw text whose tokenization
    agrees scores like gold tokens; WER and sentence accuracy follow from the spoken sentences."""
    pytest.importorskip("pynini")
    from tnforge.grammars import adapter
    from tnforge.trainers.evaluation.decoded import evaluate_decoding
    from tnforge.trainers.evaluation.raw_text import evaluate_raw, raw_markdown, word_errors
    from tnforge.trainers.kernel.examples import example_files

    loaded, data, _ = tiny
    files = example_files(data, "dev")
    judge, _ = adapter.judge(True)
    reference = evaluate_decoding(loaded, files, "dev", judge=judge)
    result = evaluate_raw(Normalizer(loaded, confidence=None), files, "dev", judge=judge)
    rows = result["rows"]
    every = rows["gold tokens + gold classes, every token decoded"]
    assert result["sentences"] == len(H.TINY_SENTENCES) == every["sentences"]
    assert every["tokens"] == reference["tokens"] and every["nontrivial"] == reference["nontrivial"]
    assert every["sentences_correct"] == reference["sentences"]["correct"]
    assert every["unrecoverable"] == reference["unrecoverable"]
    assert every["decoded"] == reference["tokens"]["count"]
    by_class = rows["gold tokens + gold classes → seq2seq"]
    assert by_class["decoded"] == sum(c not in ("PLAIN", "PUNCT") for s in H.TINY_SENTENCES for c, _, _ in s)
    assert by_class["class_accuracy"] == 1.0
    raw = rows["raw text → tokenizer → seq2seq (no tagger)"]
    assert raw["tokenization_agrees"] == 4 and raw["class_accuracy"] is None
    assert raw["sentence_accuracy"] == raw["sentences_correct"] / 4
    assert raw["wer"] == raw["word_errors"] / raw["words"]
    for row in rows.values():  # every sentence read wrong is listed, with its word errors
        assert len(row["wrong_sentences"]) == row["sentences"] - row["sentences_correct"]
        assert sum(w["word_errors"] for w in row["wrong_sentences"]) == row["word_errors"]
        assert all(w["gold"] != w["spoken"] for w in row["wrong_sentences"])
    table = raw_markdown(result, "t")
    assert table.count("\n| ") == 3 + 1 and "every token decoded" in table
    assert word_errors("a b c d", "a x c") == 2 and word_errors("", "a") == 1 and word_errors("a b", "a b") == 0


def test_cli_evaluate_raw_writes_the_stage_table(tiny, tmp_path):
    import json

    _, data, run = tiny
    report = tmp_path / "report"
    result = _cli(["evaluate", "--raw", "--model", str(run), "--data", str(data), "--split", "dev", "--no-grammar",
                   "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert "| raw text → tokenizer → seq2seq (no tagger) |" in result.output
    saved = json.loads((report / "raw.json").read_text(encoding="utf-8"))
    assert saved["sentences"] == 4 and set(saved["rows"]) == {
        "raw text → tokenizer → seq2seq (no tagger)", "gold tokens + gold classes → seq2seq",
        "gold tokens + gold classes, every token decoded"}
    assert (report / "raw.md").read_text(encoding="utf-8").startswith("# Plain-text evaluation")


@pytest.fixture(scope="module")
def tagger(bundled_build, tmp_path_factory):
    """A real tagger trained on the bundled sample's train sentences (few rounds: seconds)."""
    pytest.importorskip("xgboost")
    from tnforge.trainers.tagger import TaggerConfig, load_tagger, train_tagger

    run = tmp_path_factory.mktemp("tagger") / "run"
    train_tagger(TaggerConfig(data=str(bundled_build), out=str(run), rounds=40, threads=1))
    return load_tagger(run), run


def test_tagger_classes_drive_the_pipeline_on_real_raw_sentences(tiny, tagger, bundled_build):
    from tnforge.abbreviations import abbreviation
    from tnforge.tokenizer import detokenize, tokenize
    from tnforge.trainers.decoding.sentences import normalize_texts, read_as_written, tag_sentences
    from tnforge.trainers.evaluation.raw_text import gold_sentences
    from tnforge.trainers.kernel.examples import example_files

    loaded, _, _ = tiny
    model, _ = tagger
    texts = [detokenize(s.tokens) for s in gold_sentences(example_files(bundled_build, "dev"), "dev")]
    assert len(texts) == 22
    readings = normalize_texts(loaded, texts, model, threshold=0.9, confidence=None)
    tagged = tag_sentences(model, [tokenize(t) for t in texts])
    for reading, classes, probabilities, alternatives, likely in zip(readings, *tagged, strict=True):
        assert reading.probabilities == probabilities and all(c in model.classes for c in classes)
        assert all(cls not in alt and len(alt) == 3 for cls, alt in zip(classes, alternatives, strict=True))
        for cls, (names, shares) in zip(classes, likely, strict=True):  # the first class, then by probability
            assert names[0] == cls and list(shares) == sorted(shares, reverse=True) and 1 <= len(names) <= 4
            assert len(names) == 1 or (shares[0] < 0.99 and min(shares[1:]) >= 0.01)
        for token, cls, p, decoded in zip(reading.tokens, classes, probabilities, reading.decoded, strict=True):
            assert decoded == (read_as_written(token, cls, p, 0.9) is None and abbreviation(token) is None)
    decoded = sum(sum(r.decoded) for r in readings)
    assert 0 < decoded < sum(len(r.tokens) for r in readings) / 2  # most tokens are confident PLAIN/PUNCT
    everything = normalize_texts(loaded, texts, model, threshold=2.0)
    assert all(all(r.decoded) for r in everything)


def test_cli_normalize_with_tagger_and_grammar(tiny, tagger, tmp_path):
    pytest.importorskip("pynini")
    _, _, run = tiny
    _, tagger_run = tagger
    args = ["normalize", "--model", str(run), "--tagger", str(tagger_run), "--grammar-constraint"]
    result = _cli([*args, "Train 540 leaves at 4:45."])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == "Train five hundred forty leaves at four forty five"
    assert lines[4].split()[:2] == ["4:45", "TIME"] and lines[4].split()[3] == "*"
    piped = _cli([*args, "--file", "-", "--no-progress"], input="\n".join(LINES) + "\n")
    assert piped.exit_code == 0, piped.output
    assert piped.stdout.split("\n")[:2] == ["Train five hundred forty leaves at four forty five", ""]
    assert len(piped.stdout.split("\n")) == len(LINES) + 1


def test_plain_text_evaluation_with_a_tagger(tiny, tagger, bundled_build):
    pytest.importorskip("pynini")
    from tnforge.grammars import adapter
    from tnforge.trainers.evaluation.raw_text import evaluate_raw
    from tnforge.trainers.kernel.examples import example_files

    loaded, _, _ = tiny
    model, _ = tagger
    judge, _ = adapter.judge(True)
    result = evaluate_raw(Normalizer(loaded, model), example_files(bundled_build, "dev"), "dev", judge=judge)
    rows = result["rows"]
    assert list(rows) == ["raw text → tokenizer → tagger → seq2seq", "gold tokens → tagger → seq2seq",
                          "gold tokens + gold classes → seq2seq", "gold tokens + gold classes, every token decoded"]
    tagged = rows["gold tokens → tagger → seq2seq"]
    assert tagged["tokenization_agrees"] == 22 and 0.8 < tagged["class_accuracy"] < 1.0 + 1e-9
    assert rows["gold tokens + gold classes → seq2seq"]["class_accuracy"] == 1.0
    assert rows["raw text → tokenizer → tagger → seq2seq"]["tokenization_agrees"] <= 22
    for row in rows.values():
        assert row["unrecoverable_class_right_covered"] <= row["unrecoverable"] <= len(row["errors"])


def test_cli_decode_raw_writes_top_k_hypotheses_of_every_token(tiny, tagger, tmp_path):
    import pyarrow.parquet as pq

    from tnforge.hashing import stable_hash64
    from tnforge.tokenizer import tokenize

    _, _, run = tiny
    _, tagger_run = tagger
    source = tmp_path / "in.txt"
    source.write_text("Train 540 leaves at 4:45.\n\nIt costs $3.\n", encoding="utf-8")
    out = tmp_path / "hyps.parquet"
    result = _cli(["decode", "--raw", "--model", str(run), "--tagger", str(tagger_run), "--grammar-constraint",
                   "--data", str(source), "--out", str(out), "--top-k", "3"])
    assert result.exit_code == 0, result.output
    assert "decoded 10 inputs" in result.output
    rows = pq.read_table(out).to_pylist()
    by_token: dict[int, list[dict]] = {}
    for row in rows:
        by_token.setdefault(row["key"], []).append(row)
    expected = {stable_hash64("in.txt", line, index): token
                for line, text in ((1, "Train 540 leaves at 4:45."), (3, "It costs $3."))
                for index, token in enumerate(tokenize(text))}
    assert {key: hyps[0]["before"] for key, hyps in by_token.items()} == expected
    for hyps in by_token.values():
        hyps.sort(key=lambda h: h["rank"])
        assert [h["rank"] for h in hyps] == list(range(len(hyps))) and all(h["gold"] is None for h in hyps)
        scores = [h["score"] for h in hyps]
        assert scores == sorted(scores, reverse=True) and 1 <= len(hyps) <= 3
    time = next(hyps for hyps in by_token.values() if hyps[0]["before"] == "4:45")
    assert time[0]["class"] == "TIME" and time[0]["hypothesis"] == "four forty five" and time[0]["score"] < 0
    leaves = next(hyps for hyps in by_token.values() if hyps[0]["before"] == "leaves")
    assert [(h["hypothesis"], h["score"]) for h in leaves] == [("<self>", 0.0)]


def test_live_standard_input_gets_each_answer_before_the_next_line(tiny):
    """A producer that waits for each answer (a TTS front end on a pipe) is answered line by line, not
    after a full batch or the end of input."""
    import select
    import subprocess
    import sys

    _, _, run = tiny
    process = subprocess.Popen([sys.executable, "-m", "tnforge", "normalize", "--model", str(run), "--unguarded", "--file", "-",
                                "--no-progress"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        answers = []
        for line in LINES[:3]:
            process.stdin.write((line + "\n").encode())
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 180)
            assert ready, f"no answer to {line!r} while the input stayed open"
            answers.append(process.stdout.readline().decode().rstrip("\n"))
        process.stdin.close()
        assert process.wait(timeout=60) == 0, process.stderr.read().decode()
    finally:
        process.kill()
    assert answers == ["Train five hundred forty leaves at four forty five", "",
                       "It costs three dollars not five dollars"]


def test_speech_turns_the_corpus_letter_spelling_into_words():
    """`normalize` writes URLs as a speech engine says them; `--corpus-letters` keeps the corpus's spelling."""
    from tnforge.grammars.en.electronic_reading import verbalize
    from tnforge.trainers.decoding.sentences import SentenceReading, reading_table
    url = verbalize("Battle.net")
    assert url.startswith("b_letter a_letter t_letter")
    reading = SentenceReading(["See", "Battle.net", "."], ["PLAIN", "ELECTRONIC", "PUNCT"], [1.0, 0.9, 1.0],
                              [SELF, url, SIL], [False, False, False])
    assert reading.spoken == f"See {url}"
    assert reading.speech == "See battle dot net"
    assert Normalizer(None).spoken(reading) == "See battle dot net"
    assert Normalizer(None, corpus_letters=True).spoken(reading) == f"See {url}"
    assert reading_table(reading).splitlines()[-1] == "See battle dot net"
    assert "_letter" not in reading_table(reading) and "_letter" in reading_table(reading, corpus_letters=True)
    # The corpus's pause marker inside a reading (TELEPHONE) is no word a speech engine should say; a token
    # written "sil" is a word like any other.
    phone = SentenceReading(["Call", "555-123-4567", "sil"], ["PLAIN", "TELEPHONE", "PLAIN"], [1.0, 1.0, 1.0],
                            [SELF, "five five five sil one two three sil four five six seven", SELF],
                            [False, False, False])
    assert phone.speech == "Call five five five one two three four five six seven sil"
    assert phone.spoken == "Call five five five sil one two three sil four five six seven sil"


def test_the_reading_table_explains_its_marks() -> None:
    """`*` (decoded by the model) and `=` (the grammar's one reading) get a legend line, only when shown."""
    from tnforge.trainers.decoding.sentences import SentenceReading, reading_table

    both = SentenceReading(["Train", "540", "BBC", "."], ["PLAIN", "CARDINAL", "LETTERS", "PUNCT"], [1.0] * 4,
                           [SELF, "five hundred forty", "b b c", SIL], [False, True, False, False],
                           grammar=[False, False, True, False])
    lines = reading_table(both).splitlines()
    assert lines[1].split()[3] == "*" and lines[2].split()[3] == "="
    assert lines[-3:] == ["* decoded by the model   = the grammar's one reading", "",
                          "Train five hundred forty b b c"]
    decoded = SentenceReading(["540"], ["CARDINAL"], [1.0], ["five hundred forty"], [True])
    assert reading_table(decoded).splitlines()[-3] == "* decoded by the model"
    written = SentenceReading(["Train", "."], ["PLAIN", "PUNCT"], [1.0, 1.0], [SELF, SIL], [False, False])
    assert "decoded by" not in reading_table(written) and "grammar's one" not in reading_table(written)
