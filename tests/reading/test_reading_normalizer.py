"""`tnforge.Normalizer`, the library face of the reading layer: loading (guarded unless asked otherwise),
reading one text, batches and streams, `explain`'s alignment, punctuation kept, a run-time lexicon, threads,
and saving with a model card — on a real tagger and a tiny seq2seq (`tests/support/normalizers.py`)."""

from __future__ import annotations

import json
import threading
import warnings

import pytest

pytest.importorskip("torch")
pytest.importorskip("xgboost")
pytest.importorskip("pynini")

from tnforge import Normalizer, UnguardedWarning  # noqa: E402

TEXTS = ["It costs $3.50 and weighs 3kg.", "Train 540 leaves at 4:45", "He lives on Baker St.",
         "It takes 20 min.", "", "  Two  spaces, and (brackets) here!  "]


@pytest.fixture(scope="module")
def normalizer(safe_models):
    return Normalizer.load(safe_models[2], "cpu", threads=1)


def _cli(args, **kwargs):
    from click.testing import CliRunner

    from tnforge.cli import cli

    return CliRunner().invoke(cli, args, **kwargs)


def test_the_api_reads_as_normalize_file_does(normalizer, safe_models, tmp_path):
    source, out = tmp_path / "in.txt", tmp_path / "out.txt"
    source.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    result = _cli(["normalize", "--model", str(safe_models[2]), "--file", str(source), "--out", str(out),
                   "--no-progress", "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert normalizer.guarded
    assert out.read_text(encoding="utf-8").split("\n")[:-1] == normalizer.normalize_batch(TEXTS)
    assert normalizer.normalize("It costs $3.50 and weighs 3kg.") == \
        "It costs three dollars fifty cents and weighs three kilograms"
    assert [normalizer.normalize(text) for text in TEXTS] == normalizer.normalize_batch(TEXTS, batch_size=2)
    assert list(normalizer.normalize_stream(iter(TEXTS * 3), chunk=4)) == normalizer.normalize_batch(TEXTS * 3)
    with pytest.raises(TypeError, match="for one text: normalize"):
        normalizer.normalize_batch("one text")
    with pytest.raises(TypeError, match="takes a str"):
        normalizer.normalize(None)
    assert repr(normalizer).startswith(f"Normalizer({str(safe_models[2])!r}, family='seq2seq'") and len(repr(normalizer)) < 300


def test_explain_aligns_every_token_with_its_characters(normalizer, bundled_tsv):
    texts = [*TEXTS, *_bundled_texts(bundled_tsv, 40)]
    for text in texts:
        tokens = normalizer.explain(text)
        position = 0
        for token in tokens:
            assert text[token.start:token.end] == token.token  # the substring it came from
            assert token.start >= position and not text[position:token.start].strip()  # only spaces between
            position = token.end
        assert not text[position:].strip()
        assert " ".join(t.reading for t in tokens if t.reading) == normalizer.normalize(text)
    money = {t.token: t for t in normalizer.explain("It costs $3.50 and weighs 3kg.")}
    assert money["$3.50"].cls == "MONEY" and money["$3.50"].reading == "three dollars fifty cents"
    assert money["$3.50"].source in ("model", "grammar") and "MONEY" in money["$3.50"].route
    assert money["."].reading == "" and money["."].corpus_reading == "sil" and money["."].source == "as written"
    assert 0.0 < money["3kg"].probability <= 1.0


def _bundled_texts(path, count):
    from tnforge.tokenizer import detokenize

    sentences, tokens = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        cls, before = line.split("\t")[:2]
        if cls == "<eos>":
            sentences.append(detokenize(tokens))
            tokens = []
            if len(sentences) == count:
                break
        else:
            tokens.append(before)
    return sentences


def test_a_bare_model_is_refused_and_guard_false_is_warned_once(safe_models):
    run, tagger, folder = safe_models
    with pytest.raises(ValueError, match="is a model run, not a normalizer") as refused:
        Normalizer.load(run, "cpu")
    assert "\n" not in str(refused.value)
    with pytest.raises(ValueError, match="has its own tagger"):
        Normalizer.load(folder, "cpu", tagger=tagger)
    guarded = Normalizer.load(run, "cpu", tagger=tagger)  # a tagger: the grammar comes with it
    assert guarded.guarded and guarded.normalize("It weighs 3kg.") == "It weighs three kilograms"
    with pytest.warns(UnguardedWarning, match="guard=False"):
        unguarded = Normalizer.load(run, "cpu", guard=False)
    assert not unguarded.guarded and any("guard=False" in note for note in unguarded.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once, at load: reading says nothing more
        unguarded.normalize("Train 540 leaves at 4:45")
    built = Normalizer(guarded.loaded, guarded.tagger)  # put together by hand, without `load`
    with pytest.warns(UnguardedWarning, match="without the covering grammar"):
        built.normalize("It weighs 3kg.")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        built.normalize("It weighs 3kg.")


def test_a_normalizer_without_the_grammar_needs_guard_false(safe_models, tmp_path):
    run, tagger, _ = safe_models
    with pytest.warns(UnguardedWarning):
        Normalizer.load(run, "cpu", tagger=tagger, guard=False).save(tmp_path / "bare")
    with pytest.raises(ValueError, match="assembled without the covering grammar"):
        Normalizer.load(tmp_path / "bare", "cpu")
    with pytest.warns(UnguardedWarning):
        assert not Normalizer.load(tmp_path / "bare", "cpu", guard=False).guarded


def test_save_writes_a_model_card_and_loads_back_the_same(safe_models, normalizer, tmp_path):
    run, tagger, folder = safe_models
    saved, _notes = Normalizer.load(run, "cpu", tagger=tagger).save(tmp_path / "n")
    manifest = json.loads((saved / "normalizer.json").read_text(encoding="utf-8"))
    card = (saved / "MODEL_CARD.md").read_text(encoding="utf-8")
    for heading in ("## Intended use", "## Training data", "## Figures", "## Limitations", "## Versions"):
        assert heading in card
    assert manifest["card"]["guarded"] and manifest["card"]["versions"]["grammar"] == manifest["grammar"]["version"]
    assert manifest["card"]["model"]["dev"] and "Model, dev" in card and "none recorded" not in card.split("Tagger")[0]
    assert manifest["card"]["training_data"]["found"] and "Licence of the data" in card
    assert manifest["grammar"]["language"] == "en"
    again = Normalizer.load(saved, "cpu")
    assert again.normalize_batch(TEXTS) == normalizer.normalize_batch(TEXTS) and again.grammar_language == "en"
    manifest["grammar"]["language"] = "xx"  # a language this machine has no grammar for: refused in one line
    (saved / "normalizer.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^\S+: no grammar for language 'xx': [^\n]*$"):
        Normalizer.load(saved, "cpu")
    del manifest["grammar"]["language"]  # a normalizer saved before the language was recorded reads as English
    (saved / "normalizer.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert Normalizer.load(saved, "cpu").grammar_language == "en"
    with pytest.raises(ValueError, match="not empty"):
        normalizer.save(tmp_path / "n")
    with pytest.raises(ValueError, match="own parts"):
        again.save(saved, overwrite=True)
    newer = tmp_path / "newer"
    again.save(newer)
    manifest = json.loads((newer / "normalizer.json").read_text(encoding="utf-8"))
    (newer / "normalizer.json").write_text(json.dumps({**manifest, "version": 99}), encoding="utf-8")
    with pytest.raises(ValueError, match="newer than this tnforge reads"):
        Normalizer.load(newer, "cpu")


def test_punctuation_kept_for_prosody(safe_models):
    keep = Normalizer.load(safe_models[2], "cpu", punctuation="keep")
    assert keep.normalize("It costs $3.50, and weighs 3kg.") == \
        "It costs three dollars fifty cents, and weighs three kilograms."
    assert keep.normalize("Train 540 (leaves) at 4:45!") == "Train five hundred forty (leaves) at four forty five!"
    with pytest.raises(ValueError, match="punctuation must be"):
        Normalizer.load(safe_models[2], "cpu", punctuation="some")


def test_a_lexicon_overrides_within_the_grammar_unless_forced(safe_models, tmp_path):
    folder = safe_models[2]
    good = tmp_path / "good.tsv"
    good.write_text("# house readings\n3kg\tthree kilogram\tMEASURE\n\nSt\tsaint\n", encoding="utf-8")
    lexicon = Normalizer.load(folder, "cpu", lexicon=good)
    assert lexicon.normalize("It weighs 3kg.") == "It weighs three kilogram"
    [entry] = [t for t in lexicon.explain("It weighs 3kg.") if t.token == "3kg"]
    assert entry.source == "lexicon" and "line 2" in entry.route
    bad = tmp_path / "bad.tsv"
    bad.write_text("3kg\tthree kilometers\tMEASURE\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{bad}, line 1: the covering grammar does not license"):
        Normalizer.load(folder, "cpu", lexicon=bad)
    forced = Normalizer.load(folder, "cpu", lexicon=bad, force_lexicon=True)
    [entry] = [t for t in forced.explain("It weighs 3kg.") if t.token == "3kg"]
    assert entry.source == "lexicon, forced" and entry.reading == "three kilometers"
    assert forced.unlicensed(forced.read_batch(["It weighs 3kg."])) == []  # the user's own choice, listed apart
    for text, reason in (("3 kg and more\tx\n", "is not one token"), ("3kg\tthree kilos\tWEIGHT\n", "unknown class"),
                         ("3kg\n", "expected written<TAB>reading"), ("3kg\ta\n3kg\tb\n", "already given on line 1")):
        wrong = tmp_path / "wrong.tsv"
        wrong.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=reason):
            Normalizer.load(folder, "cpu", lexicon=wrong, force_lexicon=True)


def test_one_normalizer_shared_by_threads_reads_as_alone(normalizer):
    texts = [f"Train {n} leaves at 4:{n % 60:02d}" for n in range(100, 160)] + TEXTS
    alone = normalizer.normalize_batch(texts)
    answers: dict[int, str] = {}

    def read(indices: range) -> None:
        for i in indices:
            answers[i] = normalizer.normalize(texts[i])

    threads = [threading.Thread(target=read, args=(range(k, len(texts), 4),)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [answers[i] for i in range(len(texts))] == alone


def test_the_cli_takes_the_apis_options(safe_models, tmp_path):
    lexicon = tmp_path / "lexicon.tsv"
    lexicon.write_text("3kg\tthree kilometers\tMEASURE\n", encoding="utf-8")
    refused = _cli(["normalize", "--model", str(safe_models[2]), "--lexicon", str(lexicon), "It weighs 3kg."])
    assert refused.exit_code == 1 and "line 1: the covering grammar does not license" in refused.output
    assert "Traceback" not in refused.output
    forced = _cli(["normalize", "--model", str(safe_models[2]), "--lexicon", str(lexicon), "--force-lexicon",
                   "--punctuation", "keep", "It weighs 3kg."])
    assert forced.exit_code == 0, forced.output
    assert "lexicon, line 1 (forced" in forced.output
    assert forced.output.strip().splitlines()[-1] == "It weighs three kilometers."


def test_an_endless_stream_is_read_with_bounded_memory(normalizer, monkeypatch):
    """`normalize_stream` holds one chunk of lines ahead of what it has answered, and the grammar keeps a bounded
    cache of token readings however many new tokens pass."""
    from tnforge.grammars import grammar

    monkeypatch.setattr(grammar, "TOKEN_CACHE", 25)
    taken = 0

    def lines():
        nonlocal taken
        for n in range(120):
            taken += 1
            yield f"It weighs {n + 1000}kg and costs ${n}."

    expected = normalizer.normalize_batch(list(lines()))
    taken = 0
    for answered, spoken in enumerate(normalizer.normalize_stream(lines(), chunk=10), start=1):
        assert taken - answered < 10  # never more than one chunk read ahead
        assert spoken == expected[answered - 1]
    assert len(grammar.default_grammar()._cache) <= 25
