"""Number grammars induced from the paper's 300 minimal numbers (Gorman & Sproat 2016), verbalized by the
reference library num2words, tested on 1,000 numbers drawn by the paper's Appendix A (seeded), none of them
training examples: said exactly as the reference says them, and read back to the same number."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.paths import TEST_DATA
from tnforge.cli import cli
from tnforge.grammars.induction import InductionError, Refusal, induce, load
from tnforge.grammars.induction.examples import Example, parse_pairs
from tnforge.grammars.induction.sampling import draw_numbers
from tnforge.grammars.induction.store import save

num2words = pytest.importorskip("num2words").num2words
DATA = TEST_DATA / "numbers"
MINIMAL = [int(line) for line in (DATA / "minimal.txt").read_text().split()]
TEST = draw_numbers(1000, seed=28, max_digits=9, exclude=MINIMAL)
#: English, German (decade flip, one-word compounds), French (vigesimal, agreement), Spanish, Dutch (compounds):
#: from the 300 examples alone.
EXACT = ["en", "de", "fr", "es", "nl"]


def examples(lang: str) -> list[Example]:
    return [Example(n, num2words(n, lang=lang), f"minimal.txt:{i}") for i, n in enumerate(MINIMAL, start=1)]


@cache
def grammar_dir(lang: str, root: str, allomorph_text: bool = False):
    lm = []
    if allomorph_text:  # number names of the 9,000 other numbers, none of them a test number
        lm = [num2words(int(n), lang=lang) for n in (DATA / "random-trn.txt").read_text().split() if int(n) not in set(TEST)]
    rules, report = induce(examples(lang), lang, lm)
    out = Path(root) / f"{lang}{'-lm' if allomorph_text else ''}"
    save(rules, report, examples(lang), out, len(lm))
    return load(out), report


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("grammars"))


def test_the_test_numbers_follow_appendix_a_and_leave_out_the_training_examples():
    assert len(TEST) == len(set(TEST)) == 1000 and not set(TEST) & set(MINIMAL)
    assert max(TEST) < 10**9 and TEST == draw_numbers(1000, seed=28, max_digits=9, exclude=MINIMAL)
    assert any(n % 1000 == 0 for n in TEST) and any(len(str(n)) == 9 for n in TEST)


@pytest.mark.parametrize("lang", EXACT)
def test_learned_from_300_examples_it_says_and_reads_1000_new_numbers_exactly(lang, root):
    grammar, report = grammar_dir(lang, root)
    wrong = [(n, grammar.say(n), num2words(n, lang=lang)) for n in TEST if grammar.say(n) != num2words(n, lang=lang)]
    assert not wrong, wrong[:5]
    misread = [(n, text) for n in TEST if grammar.read(text := num2words(n, lang=lang)) != n]
    assert not misread, misread[:5]
    assert grammar.manifest["compile_seconds"] < 10 and not report.ambiguous


#: The issue's target: 1,000 of 1,000 (Russian 998).
@pytest.mark.parametrize("lang, floor", [("ru", 998), ("fr", 1000)])
def test_allomorphs_need_the_allomorph_model_over_number_names(lang, floor, root):
    """Russian case forms (три тысячи) and French agreement (quatre-vingts millions, soixante et un millions)
    are chosen by n-gram counts over number names of other numbers (the paper's allomorph model)."""
    grammar, _ = grammar_dir(lang, root, allomorph_text=True)
    right = sum(grammar.say(n) == num2words(n, lang=lang) for n in TEST)
    assert right >= floor, right
    assert all(grammar.read(grammar.say(n)) == n for n in TEST)


def test_russian_without_the_allomorph_text_misses_forms_no_example_shows(root):
    grammar, _ = grammar_dir("ru", root, allomorph_text=True)
    assert all(grammar.read(grammar.say(n)) == n for n in TEST)
    bare, _ = grammar_dir("ru", root)  # only the 300 examples' bigrams: три/четыре before тысяча never seen
    assert bare.say(3000) != num2words(3000, lang="ru") and grammar.say(3000) == num2words(3000, lang="ru")


def test_french_agreement_before_a_base_is_learned_from_the_examples_not_from_the_word(root):
    """vingt et un / cinq cent un take "millions" as any multiplier but one does (no example puts a compound
    ending in a one-word head before a base as that head: "vingt et un mille", not "mille"); "quatre-vingts"
    keeps its s before "millions" and drops it before "mille" as "cents" does in the examples."""
    grammar, _ = grammar_dir("fr", root)
    assert grammar.rules.compound_as_alone is False
    for n in (21_000_000, 501_000_000, 80_000_000, 180_000_001, 80_000, 1_000_000):
        assert grammar.say(n) == num2words(n, lang="fr"), n
    assert grammar.read("quatre-vingts millions") == 80_000_000
    # the same alternation, taught otherwise: a variety whose examples say "deux cent millions"
    variety = [Example(e.value, e.text.replace("cents millions", "cent millions"), e.where) for e in examples("fr")]
    rules, _ = induce(variety, "fr")
    assert rules.say(80_000_000) == "quatre-vingt millions" and rules.say(80_000) == "quatre-vingt mille"


def test_russian_compound_multipliers_stand_as_their_last_word_alone(root):
    grammar, _ = grammar_dir("ru", root)  # двадцать одна тысяча (an example) as одна тысяча → двадцать один миллион
    assert grammar.rules.compound_as_alone is True
    assert grammar.say(21_000_000) == num2words(21_000_000, lang="ru") == "двадцать один миллион"


def test_german_compounds_are_segmented_with_learned_numerals_and_joined_again(root):
    grammar, _ = grammar_dir("de", root)
    assert grammar.say(321) == "dreihunderteinundzwanzig" == num2words(321, lang="de")
    assert grammar.read("siebenhundertneunundachtzigtausendvierhundertzwölf") == 789412
    assert grammar.say(97) == "siebenundneunzig" and grammar.rules.joiners[1000, 100] == ""


def test_english_readings_and_the_inverse(root):
    grammar, _ = grammar_dir("en", root)
    assert grammar.readings("2012") == ["two thousand and twelve", "two thousand twelve"]
    assert grammar.read("two thousand twelve") == grammar.read("two thousand and twelve") == 2012


def test_numbers_past_what_the_examples_teach_are_refused_in_one_line(root):
    grammar, _ = grammar_dir("en", root)
    assert grammar.say(999_999_999_999).startswith("nine hundred and ninety-nine billion")
    for bad in (10**12, "12a"):
        with pytest.raises(Refusal) as error:
            grammar.say(bad)
        assert "\n" not in str(error.value)
    with pytest.raises(Refusal, match="not a reading"):
        grammar.read("one thousand billion")
    small = [e for e in examples("en") if e.value < 2000]  # no example past 1,999: 2,000 and up are refused
    rules, _ = induce(small, "en")
    with pytest.raises(Refusal, match="past what the examples teach"):
        rules.say(12_345)


def test_bad_pairs_and_unexplained_examples_name_their_line():
    with pytest.raises(InductionError, match=r"pairs.tsv:2: 'x1' is not a number"):
        parse_pairs(["1\tone", "x1\tone"], "pairs.tsv")
    with pytest.raises(InductionError, match=r"pairs.tsv:1: expected number<TAB>verbalization"):
        parse_pairs(["1 one"], "pairs.tsv")
    broken = [e if e.value != 1005 else Example(1005, "one thousand and six", "en.tsv:42") for e in examples("en")]
    with pytest.raises(InductionError, match=r"en.tsv:42: no factorization explains 1005 'one thousand and six'"):
        induce(broken, "en")


def test_the_same_examples_give_the_same_files(tmp_path):
    for name in ("a", "b"):
        rules, report = induce(examples("es"), "es")
        save(rules, report, examples("es"), tmp_path / name)
    assert (tmp_path / "a" / "rules.tsv").read_bytes() == (tmp_path / "b" / "rules.tsv").read_bytes()
    manifest = load(tmp_path / "a").manifest
    assert manifest["examples"] == 300 and len(manifest["examples_sha256"]) == 64 and manifest["pynini"]


def test_cli_induce_verbalize_read(tmp_path):
    pairs = tmp_path / "fr.tsv"
    pairs.write_text("".join(f"{e.value}\t{e.text}\n" for e in examples("fr")), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(cli, ["grammar", "induce", "--examples", str(pairs), "--lang", "fr", "--out", str(tmp_path / "g")])
    assert result.exit_code == 0 and "300 examples" in result.output
    assert "compound multipliers stand before a base as their last word alone: no" in result.output
    (tmp_path / "numbers.txt").write_text("97\n71\n")
    result = runner.invoke(cli, ["grammar", "verbalize", str(tmp_path / "g"), "2012", "--file", str(tmp_path / "numbers.txt")])
    assert result.output.splitlines() == ["deux mille douze", "quatre-vingt-dix-sept", "soixante et onze"]
    result = runner.invoke(cli, ["grammar", "read", str(tmp_path / "g"), "quatre-vingt-dix-sept"])
    assert result.exit_code == 0 and result.output.strip() == "97"
    result = runner.invoke(cli, ["grammar", "verbalize", str(tmp_path / "g"), "1000000000000"])
    assert result.exit_code == 1 and "refused: 1000000000000: past what the examples teach" in result.output
    pairs.write_text("1\tun\n2\n", encoding="utf-8")
    result = runner.invoke(cli, ["grammar", "induce", "--examples", str(pairs), "--lang", "fr", "--out", str(tmp_path / "h")])
    assert result.exit_code == 1 and f"{pairs}:2: expected number<TAB>verbalization" in result.output
