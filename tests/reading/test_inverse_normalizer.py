"""The grammar route of inverse text normalization on real data: conventions learned from the bundled sample's
train split, written forms only where the class's grammar reads them as the span, one artifact with hashes."""

from __future__ import annotations

import pytest

from tnforge.cli import cli

pytest.importorskip("pynini")


@pytest.fixture(scope="module")
def inverse(bundled_build):
    from tnforge import InverseNormalizer

    return InverseNormalizer.learn(bundled_build)


def test_numbers_are_read_back_by_the_inverted_grammars() -> None:
    from tnforge.grammars import get_grammar
    from tnforge.grammars.inversion import NumberReader

    reader = NumberReader(get_grammar())
    assert reader.digits(("nineteen", "eighty", "four")) == ("1984",)
    assert reader.digits(("two", "thousand", "one", "hundred", "forty")) == ("2140",)
    assert reader.digits(("twenty", "first")) == ("21",)
    assert reader.digits(("kilograms",)) == ()
    words = "carbon sixty four twenty thirteen five million people".split()
    runs = [" ".join(words[a:b]) for a, b, kind in reader.units(words) if kind != "w"]
    assert runs == ["sixty four", "twenty thirteen", "five"]
    words = "three o v two in nineteen oh five".split()
    assert [" ".join(words[a:b]) for a, b, kind in reader.units(words) if kind != "w"] == [
        "three", "two", "nineteen oh five"]
    assert reader.kind(("one", "thousand", "one", "hundred", "fifteen")) == "c4h"
    assert reader.kind(("nineteen", "eighty", "four")) == "y4"


def test_a_filled_ordinal_keeps_its_own_suffix() -> None:
    from tnforge.reading.inverse_route import _ordinal_suffixes_agree

    assert [_ordinal_suffixes_agree(w) for w in ("91st", "91th", "12th", "2rd", "May 10")] == [
        True, False, True, False, True]


def test_the_written_forms_follow_the_train_split_and_the_grammar(inverse) -> None:
    assert inverse.denormalize("it weighs three kilograms") == "it weighs 3 kg"
    assert inverse.denormalize("thirty eight point four square kilometers") == "38.4 km²"
    [token] = [t for t in inverse.explain("it weighs three kilograms") if t.cls != "PLAIN"]
    assert (token.cls, token.words, token.start, token.end) == ("MEASURE", ("three", "kilograms"), 2, 4)
    inversion = inverse.router.inversion
    assert inversion.licenses_span("3 kg", token.words, "MEASURE")
    assert not inversion.licenses_span("3 km", token.words, "MEASURE")


def test_no_written_form_the_grammar_does_not_read_as_its_span(inverse) -> None:
    from tests.support.paths import SHARED_DATA
    from tnforge.itn_sentences import read_itn_corpus

    path = SHARED_DATA / "en_sample.tsv"
    sentences = read_itn_corpus(str(path))[:300] if path.exists() else []
    inversion = inverse.router.inversion
    for sentence in sentences:
        for token in inverse.read_words(sentence.words):
            if token.source in ("convention", "pattern", "letters"):
                assert inversion.licenses_span(token.written, token.words, token.cls), token


def test_save_and_load_give_the_same_bytes_and_check_hashes(inverse, bundled_build, tmp_path) -> None:
    from tnforge import InverseNormalizer

    first = inverse.save(tmp_path / "a")
    InverseNormalizer.learn(bundled_build).save(tmp_path / "b")
    for name in ("conventions.json", "inverse.json"):
        assert (first / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    loaded = InverseNormalizer.load(first)
    assert loaded.denormalize("in nineteen eighty four") == inverse.denormalize("in nineteen eighty four")
    (first / "conventions.json").write_bytes((first / "conventions.json").read_bytes().replace(b"kg", b"km"))
    with pytest.raises(ValueError, match="sha256"):
        InverseNormalizer.load(first)


def test_the_command_line_answers_text_and_files_and_refuses_bad_input(inverse, tmp_path) -> None:
    from click.testing import CliRunner

    model = inverse.save(tmp_path / "inverse")
    runner = CliRunner()
    said = runner.invoke(cli, ["denormalize", "--model", str(model), "it weighs three kilograms"])
    assert said.exit_code == 0 and said.output.splitlines()[-1] == "it weighs 3 kg"
    assert "MEASURE\tthree kilograms\tpattern" in said.output
    spoken = tmp_path / "spoken.txt"
    spoken.write_text("it weighs three kilograms\n\nin nineteen eighty four\n", encoding="utf-8")
    out = tmp_path / "written.txt"
    said = runner.invoke(cli, ["denormalize", "-m", str(model), "--file", str(spoken), "--out", str(out)])
    assert said.exit_code == 0, said.output
    assert out.read_text(encoding="utf-8") == "it weighs 3 kg\n\nin 1984\n"
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\n")
    said = runner.invoke(cli, ["denormalize", "-m", str(model), "--file", str(bad), "--out", str(out)])
    assert said.exit_code == 1
    assert said.output.strip() == f"Error: {bad}, line 2: not UTF-8 text (byte 0xff at column 1)"
    said = runner.invoke(cli, ["denormalize", "-m", str(tmp_path), "x"])
    assert said.exit_code == 1 and "not an inverse normalizer" in said.output and "Traceback" not in said.output


def test_the_guides_python_example_runs_as_written(bundled_build, tmp_path) -> None:
    import os
    import re
    import subprocess
    import sys

    from tests.support.paths import REPO

    page = (REPO / "docs" / "guides" / "denormalize.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    (tmp_path / "out").mkdir()
    os.symlink(bundled_build, tmp_path / "out" / "sample")
    done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "it weighs 3 kg" and lines[-1] == "3 kg MEASURE 2 4 ('three', 'kilograms') pattern"


def test_the_built_sentences_reverse_like_the_corpus_file(bundled_build, bundled_tsv) -> None:
    from tnforge.itn_sentences import read_itn, read_itn_corpus

    built = [s for split in ("train", "dev", "test") for s in read_itn(bundled_build, split)]
    key = lambda s: (s.words, [(t.start, t.end, t.cls, t.written) for t in s.tokens])  # noqa: E731
    assert sorted(built, key=key) == sorted(read_itn_corpus(str(bundled_tsv)), key=key)
