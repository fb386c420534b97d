"""The span tagger's route of inverse text normalization on the bundled sample: gold tags that tile the reversed
sentences' spans, the lexicon's held-out tags, a tiny span tagger trained through the engine, saved and
loaded, deterministic, and a route that writes only forms the tagged class's grammar licenses."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tnforge.cli import cli

pytest.importorskip("pynini")

#: A network small enough to train for an epoch in seconds.
TINY = ["--word-embedding", "8", "--char-embedding", "4", "--char-filters", "8", "--hidden", "8",
        "--lexicon-embedding", "4", "--epochs", "2", "--device", "cpu", "--threads", "1", "--no-progress"]


def _train(data, out):
    said = CliRunner().invoke(cli, ["train", "span-tagger", "--data", str(data), "--out", str(out), *TINY])
    assert said.exit_code == 0, said.output
    return said


@pytest.fixture(scope="module")
def tagger_run(bundled_build, tmp_path_factory: pytest.TempPathFactory):
    run = tmp_path_factory.mktemp("span-run") / "run"
    said = _train(bundled_build, run)
    assert "best dev (step" in said.output and "spans F1" in said.output
    return run


@pytest.fixture(scope="module")
def tagged(bundled_build, tagger_run):
    from tnforge import InverseNormalizer

    return InverseNormalizer.learn(bundled_build, tagger=tagger_run)


def test_gold_tags_tile_the_spans_written_otherwise(bundled_build) -> None:
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_tags import span_tags, spoken_as_written, tagged_spans

    sentences = read_itn(bundled_build, "train")
    spans = 0
    for sentence in sentences:
        tags = span_tags(sentence)
        assert len(tags) == len(sentence.words)
        otherwise = [(t.start, t.end, t.cls) for t in sentence.tokens
                     if t.start < t.end and not spoken_as_written(t.written, sentence.words[t.start:t.end])]
        assert tagged_spans(tags) == otherwise
        spans += len(otherwise)
    assert spans > 100
    [sentence] = [s for s in sentences if "three" in s.words and "kilograms" in s.words][:1] or [None]
    if sentence is not None:
        at = sentence.words.index("kilograms")
        assert span_tags(sentence)[at].endswith("-MEASURE")
    assert tagged_spans(["I-DATE", "I-DATE", "O", "B-CARDINAL", "I-MEASURE", "B-DATE", "B-DATE"]) == [
        (0, 2, "DATE"), (3, 4, "CARDINAL"), (4, 5, "MEASURE"), (5, 6, "DATE"), (6, 7, "DATE")]


def test_the_lexicons_tags_of_train_are_read_with_the_other_folds_lexicon(bundled_build) -> None:
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_tags import Lexicon, held_out_tags, span_tags

    train = read_itn(bundled_build, "train")
    lexicon = Lexicon.learned(train)
    assert "the" not in lexicon.spans and "and" not in lexicon.spans
    span, cls = next((k, v) for k, v in lexicon.spans.items() if len(k.split()) == 3)
    assert lexicon.tags(["the", *span.split(), "the"]) == ["O", f"B-{cls}", f"I-{cls}", f"I-{cls}", "O"]
    held_out = held_out_tags(train, 4)
    assert held_out == held_out_tags(train, 4)
    assert [len(t) for t in held_out] == [len(s.words) for s in train]
    whole = [lexicon.tags(s.words) for s in train]
    gold = [span_tags(s) for s in train]
    right = sum(a == b for a, b in zip(whole, gold, strict=True))
    assert sum(a == b for a, b in zip(held_out, gold, strict=True)) < right  # unseen spans are not known


def test_the_family_trains_saves_loads_and_is_deterministic(bundled_build, tagger_run, tmp_path) -> None:
    import torch

    from tnforge.trainers.families import WrongKind, load, train_commands

    assert train_commands()["span-tagger"][0].kind == "spans"
    family, loaded = load(tagger_run, "cpu", kind="spans")
    assert family.name == "span tagger" and loaded.vocab.tags[0] == "O"
    record = json.loads((tagger_run / "run.json").read_text(encoding="utf-8"))
    assert record["outcome"]["best"]["dev_sentences"] > 0
    with pytest.raises(WrongKind):
        load(tagger_run, "cpu", kind="inverse")
    again = tmp_path / "again"
    _train(bundled_build, again)
    other = load(again, "cpu", kind="spans")[1]
    for name, tensor in loaded.model.state_dict().items():
        assert torch.equal(tensor, other.model.state_dict()[name]), name
    words = [("it", "weighs", "three", "kilograms"), ("in", "nineteen", "eighty", "four")]
    routes = [["O"] * 4, ["O", "B-DATE", "I-DATE", "I-DATE"]]
    assert loaded.tag(words, routes) == other.tag(words, routes)
    assert all(len(t) == len(w) for t, w in zip(loaded.tag(words, routes), words, strict=True))
    assert loaded.tag(words, routes, 1e6) == routes  # the route's tags, weighed enough, decide


def test_a_tagged_span_is_written_only_in_a_form_its_class_licenses(tagged) -> None:
    from tnforge.reading.inverse_spans import read_tagged

    router = tagged.router
    inversion = router.inversion
    words = "it weighs three kilograms".split()
    tokens = read_tagged(router, words, ["O", "O", "B-MEASURE", "I-MEASURE"])
    assert [t.written for t in tokens] == ["it", "weighs", "3 kg"]
    assert " ".join(t.written for t in read_tagged(router, words, ["O"] * 4)) == "it weighs three kilograms"
    for wrong in ("DATE", "TELEPHONE", "ORDINAL", "PLAIN"):
        for token in read_tagged(router, words, ["O", "O", f"B-{wrong}", f"I-{wrong}"]):
            assert token.written == " ".join(token.words) or inversion.licenses_span(
                token.written, token.words, token.cls), token
            assert not (token.cls == wrong and token.written == "3 kg")


def test_with_a_model_a_tagged_span_gets_its_best_scored_licensed_form(tagged, monkeypatch: pytest.MonkeyPatch
                                                                        ) -> None:
    from types import SimpleNamespace

    from tnforge.reading.inverse_spans import TaggerRoute
    from tnforge.trainers.inverse import loading

    words = "he paid one thousand two hundred dollars".split()
    tags = ["O", "O", "B-CARDINAL", "I-CARDINAL", "I-CARDINAL", "I-CARDINAL", "O"]
    fixed = SimpleNamespace(tag=lambda sentences, routes, weight: [tags for _ in sentences])
    asked = []

    def scores(loaded, windows, targets):
        asked.extend(targets)
        return [[-float(len(target)) for target in options] for options in targets]  # the shortest form best

    monkeypatch.setattr(loading, "log_probabilities", scores)
    [tokens] = TaggerRoute(fixed, 0.0, SimpleNamespace(loaded=None, width=3)).read_batch(tagged.router, [words])
    assert asked == [["0,000", "0000"]]  # CARDINAL's licensed forms only, as the model scores them
    assert [t.written for t in tokens] == ["he", "paid", "1200", "dollars"] and tokens[2].cls == "CARDINAL"
    monkeypatch.setattr(loading, "log_probabilities", lambda m, w, t: [[0.0] * len(o) for o in t])
    [tokens] = TaggerRoute(fixed, 0.0, SimpleNamespace(loaded=None, width=3)).read_batch(tagged.router, [words])
    assert tokens[2].written == "1,200"  # ties keep the train split's order


def test_the_tagger_route_writes_licensed_forms_or_the_words_as_spoken(tagged, bundled_build) -> None:
    from tnforge.itn_sentences import read_itn
    from tnforge.itn_tags import spoken_as_written

    sentences = read_itn(bundled_build, "test")
    tagged.span_tagger.weight = 0.0  # the tagger's own tags (dev may have chosen the grammar route)
    read = tagged.read_batch([s.words for s in sentences])
    assert read == tagged.read_batch([s.words for s in sentences])
    assert "tagger" in {t.source for tokens in read for t in tokens}
    inversion = tagged.router.inversion
    for sentence, tokens in zip(sentences, read, strict=True):
        assert [w for t in tokens for w in t.words] == list(sentence.words)
        for token in tokens:
            assert spoken_as_written(token.written, token.words) or inversion.licenses_span(
                token.written, token.words, token.cls), token


def test_one_folder_with_the_tagger_and_bad_input_in_one_line(bundled_build, tagger_run, tagged, tmp_path) -> None:
    from tnforge import InverseNormalizer

    runner = CliRunner()
    folder = tmp_path / "inverse"
    said = runner.invoke(cli, ["denormalizer", "learn", "--data", str(bundled_build), "--tagger", str(tagger_run),
                               "--out", str(folder)])
    assert said.exit_code == 0, said.output
    manifest = json.loads((folder / "inverse.json").read_text(encoding="utf-8"))
    assert manifest["route"] == "tagger" and set(manifest["parts"]) == {"conventions.json", "tagger.pt"}
    assert manifest["tuning"]["split"] == "dev" and len(manifest["tuning"]["sentence_accuracy"]) == 9
    assert (folder / "tagger.pt").read_bytes() == (tagger_run / "best.pt").read_bytes()
    loaded = InverseNormalizer.load(folder)
    text = "the drive stores two terabytes of data and spins at seven thousand two hundred revolutions per minute"
    tagged.span_tagger.weight = loaded.span_tagger.weight
    assert loaded.denormalize(text) == tagged.denormalize(text)
    said = runner.invoke(cli, ["denormalize", "--model", str(folder), text])
    assert said.exit_code == 0 and said.output.splitlines()[-1] == tagged.denormalize(text)
    for bad in (["--model", str(tagger_run)], ["--tagger", str(tagger_run), "--model", str(tagger_run)],
                ["--tagger", str(bundled_build)]):
        said = runner.invoke(cli, ["denormalizer", "learn", "--data", str(bundled_build), *bad,
                                   "--out", str(tmp_path / "other")])
        assert said.exit_code == 1 and "Traceback" not in said.output, said.output
        assert len(said.output.strip().splitlines()) == 1


def test_a_folder_with_the_tagger_and_an_inverse_model(bundled_build, tagger_run, tmp_path) -> None:
    from tnforge import InverseNormalizer

    model_run = tmp_path / "inverse-run"
    said = CliRunner().invoke(cli, ["train", "inverse", "--data", str(bundled_build), "--out", str(model_run),
                                    "--epochs", "1", "--device", "cpu", "--no-progress", "--input-embedding", "8",
                                    "--output-embedding", "8", "--encoder-hidden", "8", "--decoder-hidden", "8",
                                    "--attention", "8"])
    assert said.exit_code == 0, said.output
    both = InverseNormalizer.learn(bundled_build, model=model_run, tagger=tagger_run)
    assert both.chooser is None and both.span_tagger.chooser is not None
    folder = both.save(tmp_path / "both")
    manifest = json.loads((folder / "inverse.json").read_text(encoding="utf-8"))
    assert manifest["route"] == "tagger" and set(manifest["parts"]) == {"conventions.json", "tagger.pt", "model.pt"}
    loaded = InverseNormalizer.load(folder)
    assert loaded.span_tagger.chooser is not None and loaded.span_tagger.weight == both.span_tagger.weight
    text = "he paid one thousand two hundred dollars in nineteen ninety four"
    assert loaded.denormalize(text) == both.denormalize(text)
