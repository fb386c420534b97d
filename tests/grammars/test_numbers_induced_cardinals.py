"""The induced English number grammar (Gorman & Sproat 2016) as the CARDINAL and ORDINAL covering grammar of
the English grammars, checked against the hand-written one on every CARDINAL/ORDINAL gold reading of the
bundled sample and of ../shared/data/en_sample.tsv."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.paths import TEST_DATA
from tnforge.cli import cli
from tnforge.gold_pairs import read_gold_pairs
from tnforge.grammars import adapter, get_grammar, licenses, use_cardinal_grammar
from tnforge.grammars.grammar import Grammar
from tnforge.grammars.induced_cardinals import ENVIRONMENT, compare, corpus_spelling
from tnforge.grammars.induction import InductionError, induce
from tnforge.grammars.induction.examples import Example
from tnforge.grammars.induction.store import save

num2words = pytest.importorskip("num2words").num2words
pytest.importorskip("pynini")
MINIMAL = TEST_DATA / "numbers" / "minimal.txt"


@pytest.fixture(scope="module")
def induced_dir(tmp_path_factory) -> Path:
    """The English grammar induced from the paper's 300 minimal numbers, said by num2words."""
    examples = [Example(int(n), num2words(int(n), lang="en"), f"minimal.txt:{i}")
                for i, n in enumerate(MINIMAL.read_text().split(), start=1)]
    rules, report = induce(examples, "en")
    out = tmp_path_factory.mktemp("induced") / "en"
    save(rules, report, examples, out)
    return out


@pytest.fixture(scope="module")
def grammars(induced_dir) -> tuple[Grammar, Grammar]:
    return Grammar(), Grammar(cardinal_grammar=induced_dir)


@pytest.fixture
def process_grammar_restored():
    yield
    use_cardinal_grammar(None)


def _value(before: str) -> int | None:
    digits = before.replace(",", "")
    return int(digits) if digits.isdigit() else None


@pytest.mark.parametrize("sample", ["bundled_tsv", "shared_tsv"])
def test_induced_cardinals_license_what_the_hand_written_grammar_does_on_the_samples(sample, grammars, induced_dir, request):
    hand, induced = grammars
    rows = read_gold_pairs(request.getfixturevalue(sample), ("CARDINAL", "ORDINAL"))
    result = compare(rows, hand, induced)
    limit = induced.numbers.induced.rules.limit
    for cls, stats in result.items():
        assert stats.total > 0 and stats.hand == stats.total, (cls, stats.line(cls))
        # what only the hand-written grammar licenses: numbers past the 300 examples' largest power
        assert all((_value(before) or 0) >= limit for before, _, _ in stats.only_hand), stats.line(cls)
        assert not stats.only_induced
        # readings: the induced grammar's are the hand-written ones, less colloquial hundreds (fifteen hundred)
        # and the numbers it refuses; it licenses nothing the hand-written grammar does not
        assert all(not only_induced for _, _, only_induced in stats.differing), stats.line(cls)
    assert result["ORDINAL"].induced == result["ORDINAL"].total  # the trivial transduction: twenty first


def test_readings_come_from_the_induced_fst_in_the_corpus_spelling(grammars):
    hand, induced = grammars
    assert corpus_spelling("One million, two hundred and twenty-one") == "one million two hundred and twenty one"
    assert induced.readings("2012", "CARDINAL") == hand.readings("2012", "CARDINAL")
    assert "one hundred thirty thousand" in induced.readings("130,000", "CARDINAL")  # "and" optional inside a multiplier
    assert "fifteen hundred thirty two" in hand.readings("1532", "CARDINAL")
    assert "fifteen hundred thirty two" not in induced.readings("1532", "CARDINAL")  # no example says it
    assert induced.readings("21st", "ORDINAL") == ["the twenty first", "twenty first"]
    assert induced.readings("1,000,000,000,000", "CARDINAL") == []  # refused: past what the examples teach
    assert induced.readings("2016", "DATE") == hand.readings("2016", "DATE")  # years stay hand-written


def test_the_process_grammar_and_the_adapter_use_the_induced_cardinals(induced_dir, process_grammar_restored):
    hand_version = adapter.version()
    item = [("1,000,000,000,000", "one trillion", "CARDINAL")]
    assert adapter.licenser()(item) == [True]
    use_cardinal_grammar(induced_dir)
    assert get_grammar().cardinal_grammar == str(induced_dir)
    assert adapter.licenser()(item) == [False] and licenses("2012", "two thousand twelve", "CARDINAL")
    assert adapter.version() != hand_version and len(adapter.version()) == 20
    use_cardinal_grammar(None)
    assert adapter.licenser()(item) == [True] and adapter.version() == hand_version


def test_a_directory_that_is_no_induced_grammar_is_refused_in_one_line(tmp_path, monkeypatch, process_grammar_restored):
    with pytest.raises(InductionError, match="not a grammar directory") as error:
        use_cardinal_grammar(tmp_path)
    assert "\n" not in str(error.value)
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path))
    use_cardinal_grammar(None)  # the process grammar is rebuilt on next use, from the environment
    result = CliRunner().invoke(cli, ["grammar", "readings", "12"])
    assert result.exit_code == 1 and result.output.strip().endswith("(manifest.json is missing; make one with "
                                                                    "`tnforge grammar induce`)")
    assert len(result.output.strip().splitlines()) == 1


def test_cli_readings_and_coverage_with_the_induced_cardinals(induced_dir, bundled_tsv, monkeypatch,
                                                              process_grammar_restored):
    runner = CliRunner()
    assert "one trillion" in runner.invoke(cli, ["grammar", "readings", "1,000,000,000,000", "--class", "CARDINAL"]).output
    monkeypatch.setenv(ENVIRONMENT, str(induced_dir))
    use_cardinal_grammar(None)
    result = runner.invoke(cli, ["grammar", "readings", "1,000,000,000,000", "--class", "CARDINAL"])
    assert result.exit_code == 0 and "one trillion" not in result.output
    result = runner.invoke(cli, ["grammar", "coverage", str(bundled_tsv), "--class", "CARDINAL"])
    assert result.exit_code == 0 and "MISS CARDINAL\t1,000,000,000,000\tone trillion" in result.output
