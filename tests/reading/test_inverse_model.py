"""The neural route of inverse text normalization on the bundled sample: ITN windows from the reversed sentences,
a tiny inverse model trained through the engine, candidates proposed and licensed by the grammar route, the
model's choice among them, one assembled folder with hashes, and bad input in one line."""

from __future__ import annotations

import json
import math

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tnforge.cli import cli

pytest.importorskip("pynini")

#: A network small enough to train for a few steps in seconds.
TINY = ["--input-embedding", "8", "--output-embedding", "8", "--encoder-hidden", "8", "--decoder-hidden", "8",
        "--attention", "8"]


@pytest.fixture(scope="module")
def model_run(bundled_build, tmp_path_factory: pytest.TempPathFactory):
    run = tmp_path_factory.mktemp("itn-run") / "run"
    said = CliRunner().invoke(cli, ["train", "inverse", "--data", str(bundled_build), "--out", str(run), "--epochs", "1",
                                    "--device", "cpu", "--no-progress", "--contrast", "1", *TINY])
    assert said.exit_code == 0, said.output
    return run


@pytest.fixture(scope="module")
def neural(bundled_build, model_run):
    from tnforge import InverseNormalizer

    return InverseNormalizer.learn(bundled_build, model=model_run)


def test_windows_mark_the_span_and_keep_what_the_split_writes_both_ways(bundled_build) -> None:
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_windows import scored, target, window, window_rows, written_ways

    assert window("it weighs three kilograms today".split(), 2, 4, 1) == "weighs <norm> three kilograms </norm> today"
    assert target("3,000 Km²") == "0,000 km²"
    sentences = read_itn(bundled_build, "train")
    rows = window_rows(sentences)
    assert rows == window_rows(sentences)
    spans = [(s, t) for s in sentences for t in s.tokens if t.start < t.end]
    assert 0 < len(rows["input"]) < len(spans)
    for span, written, others in zip(rows["before"], rows["after"], rows["others"], strict=True):
        assert target(span) in {written, *others.split("\n")} and written not in others.split("\n")
    kept = set(zip(rows["before"], rows["after"], strict=True))
    ways = written_ways(sentences)
    for sentence, token in spans:
        span = " ".join(sentence.words[token.start:token.end])
        if len(ways[span]) > 1 or scored(token.written) != span:
            assert (span, target(token.written)) in kept


def test_candidates_are_licensed_and_include_the_words_as_spoken(neural) -> None:
    router = neural.router
    [proposal] = [p for p in router.proposals("it weighs three kilograms".split()) if p.end - p.start == 2]
    written = [c.written for c in proposal.candidates]
    assert written[0] == "3 kg" and written[-1] == "three kilograms" and "3 km" not in written
    for candidate in proposal.candidates[:-1]:
        assert router.inversion.licenses_span(candidate.written, candidate.words, candidate.cls)


def test_the_model_writes_only_licensed_forms_or_the_words_as_spoken(neural, bundled_build,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge.itn_sentences import read_itn

    monkeypatch.setattr(neural.chooser, "margin", 0.0)  # the model's best everywhere (dev may have chosen ∞)
    sentences = read_itn(bundled_build, "test")
    read = neural.read_batch([s.words for s in sentences])
    inversion = neural.router.inversion
    sources = {token.source for tokens in read for token in tokens}
    assert "model" in sources
    for sentence, tokens in zip(sentences, read, strict=True):
        assert [w for t in tokens for w in t.words] == list(sentence.words)
        for token in tokens:
            if token.source != "as spoken":
                assert (token.written == " ".join(token.words)
                        or inversion.licenses_span(token.written, token.words, token.cls)), token


def test_the_chooser_takes_the_best_scored_candidate(neural, monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge.trainers.inverse import loading

    def last_best(loaded, windows, targets):
        return [[float(i) for i in range(len(options))] for options in targets]

    monkeypatch.setattr(loading, "log_probabilities", last_best)
    monkeypatch.setattr(neural.chooser, "margin", 0.0)
    tokens = neural.read("it weighs three kilograms")
    assert [(t.written, t.source) for t in tokens[2:]] == [("three", "model"), ("kilograms", "model")]
    monkeypatch.setattr(neural.chooser, "margin", 100.0)  # the best is not far enough above the route's choice
    assert neural.denormalize("it weighs three kilograms") == "it weighs 3 kg"
    monkeypatch.setattr(loading, "log_probabilities", lambda m, w, t: [[-float(i) for i in range(len(o))] for o in t])
    monkeypatch.setattr(neural.chooser, "margin", 0.0)
    assert neural.denormalize("it weighs three kilograms") == "it weighs 3 kg"


def test_at_the_margin_dev_may_choose_never_the_model_reads_as_the_grammar_route(neural, bundled_build,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from tnforge import InverseNormalizer
    from tnforge.itn_sentences import read_itn
    from tnforge.trainers.inverse import loading

    def unused(*_args):
        raise AssertionError("the model is not run at an infinite margin")

    monkeypatch.setattr(loading, "log_probabilities", unused)
    monkeypatch.setattr(neural.chooser, "margin", math.inf)
    grammar = InverseNormalizer.learn(bundled_build)
    spoken = [s.words for s in read_itn(bundled_build, "test")]
    assert neural.read_batch(spoken) == grammar.read_batch(spoken) and spoken


def test_one_folder_with_the_model_and_hashes_and_bad_input_in_one_line(bundled_build, model_run, neural,
                                                                         tmp_path) -> None:
    runner = CliRunner()
    folder = tmp_path / "inverse"
    said = runner.invoke(cli, ["denormalizer", "learn", "--data", str(bundled_build), "--model", str(model_run),
                               "--out", str(folder)])
    assert said.exit_code == 0, said.output
    manifest = json.loads((folder / "inverse.json").read_text(encoding="utf-8"))
    assert manifest["route"] == "model" and set(manifest["parts"]) == {"conventions.json", "model.pt"}
    assert manifest["tuning"]["split"] == "dev" and len(manifest["tuning"]["sentence_accuracy"]) == 10
    from tnforge import InverseNormalizer

    assert InverseNormalizer.load(folder).chooser.margin == neural.chooser.margin
    assert (folder / "model.pt").read_bytes() == (model_run / "best.pt").read_bytes()
    said = runner.invoke(cli, ["denormalize", "--model", str(folder), "it weighs three kilograms"])
    assert said.exit_code == 0, said.output
    assert said.output.splitlines()[-1] == neural.denormalize("it weighs three kilograms")
    windows = pq.read_table(model_run / "windows" / "train" / "part-00000.parquet").column("after").to_pylist()
    assert windows and all(not any(c.isdecimal() and c != "0" for c in w) for w in windows)
    (folder / "model.pt").write_bytes((folder / "model.pt").read_bytes()[:-8])
    said = runner.invoke(cli, ["denormalize", "--model", str(folder), "x"])
    assert said.exit_code == 1 and f"{folder / 'model.pt'}: missing or changed" in said.output
    assert len(said.output.strip().splitlines()) == 1
    said = runner.invoke(cli, ["denormalize", "--model", str(model_run), "x"])
    assert said.exit_code == 1 and "a training run: pass it as --model to `tnforge denormalizer learn`" in said.output
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint")
    said = runner.invoke(cli, ["denormalizer", "learn", "--data", str(bundled_build), "--model", str(garbage),
                               "--out", str(tmp_path / "other")])
    assert said.exit_code == 1 and str(garbage) in said.output and "Traceback" not in said.output
    assert len(said.output.strip().splitlines()) == 1
