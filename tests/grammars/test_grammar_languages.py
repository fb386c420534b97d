"""Grammars by language: `en` by default; an induced number grammar as a data directory outside the source
tree, selected by `Grammar(lang=…)` / `--lang` / `--grammar-dir`, refused in one line when it is not there, and
recorded in the FAR cache key and the grammar's version."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.paths import TEST_DATA
from tnforge.cli import cli
from tnforge.grammars import adapter, use_language
from tnforge.grammars.cache import grammar_key
from tnforge.grammars.grammar import Grammar
from tnforge.grammars.induction import induce
from tnforge.grammars.induction.examples import Example
from tnforge.grammars.induction.store import save
from tnforge.grammars.languages import Language, LanguageError, recorded, resolve
from tnforge.grammars.tables import load_tables

num2words = pytest.importorskip("num2words").num2words
pytest.importorskip("pynini")
CODE = "en-induced"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """A grammars home holding one language: the English numbers induced from the paper's 300 examples."""
    examples = [Example(int(n), num2words(int(n), lang="en"), f"minimal.txt:{i}")
                for i, n in enumerate((TEST_DATA / "numbers" / "minimal.txt").read_text().split(), start=1)]
    rules, report = induce(examples, CODE)
    root = tmp_path_factory.mktemp("grammars")
    save(rules, report, examples, root / CODE)
    return root


@pytest.fixture
def in_home(home, monkeypatch) -> Path:
    monkeypatch.setenv("TNFORGE_GRAMMARS", str(home))
    for name in ("TNFORGE_LANG", "TNFORGE_GRAMMAR_DIR", "TNFORGE_CARDINAL_GRAMMAR"):
        monkeypatch.setenv(name, "")  # restored (unset) after the test, whatever the CLI sets
    yield home
    use_language(None)


def test_english_is_the_default_and_old_records_read_as_english():
    assert resolve() == resolve("en") == Language("en", None)
    assert Language().identity == "en"
    assert recorded(None) == recorded("") == "en" and recorded("de") == "de"


def test_an_unknown_language_or_a_missing_directory_is_refused_in_one_line(in_home, tmp_path):
    with pytest.raises(LanguageError, match=r"^no grammar for language 'xx': .*xx does not exist \(make it with "
                                            r"`tnforge grammar induce --examples EXAMPLES --lang xx"):
        resolve("xx")
    with pytest.raises(LanguageError, match="no grammar directory there"):
        resolve(None, tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(LanguageError, match="not a grammar directory"):
        resolve(None, tmp_path / "empty")
    with pytest.raises(LanguageError, match="is no language code"):
        resolve("../elsewhere")
    with pytest.raises(LanguageError, match=f"a grammar of language '{CODE}', not 'de'"):
        resolve("de", in_home / CODE)
    with pytest.raises(LanguageError):
        Grammar(lang="xx")


def test_a_language_of_the_grammars_home_reads_cardinals_from_its_directory(in_home):
    language = resolve(CODE)
    assert language.directory == in_home / CODE and resolve(None, in_home / CODE) == language
    assert language.identity.startswith(f"{CODE}:") and len(language.identity) == len(CODE) + 21
    grammar = Grammar(lang=CODE)
    assert grammar.cardinal_grammar == str(in_home / CODE) and grammar.language_identity == language.identity
    assert "two thousand twelve" in grammar.readings("2012", "CARDINAL")
    assert grammar.licenses("21st", "twenty first", "ORDINAL")
    assert Grammar().language_identity == "en"


def test_the_cache_key_and_the_version_follow_the_language(in_home):
    tables = load_tables()
    induced = resolve(CODE).identity
    assert grammar_key(tables) == grammar_key(tables, "en") != grammar_key(tables, induced)
    english = adapter.version()
    assert adapter.language() == "en"
    use_language(CODE)
    assert adapter.language() == CODE and adapter.version() == grammar_key(tables, induced) != english
    use_language(None)
    assert adapter.language() == "en" and adapter.version() == english


def test_lang_and_grammar_dir_on_the_command_line(in_home):
    runner = CliRunner()
    refused = runner.invoke(cli, ["grammar", "readings", "21", "--class", "CARDINAL", "--lang", "xx"])
    assert refused.exit_code == 1 and refused.output.startswith("Error: --lang: no grammar for language 'xx'")
    assert len(refused.output.strip().splitlines()) == 1 and "Traceback" not in refused.output
    missing = runner.invoke(cli, ["grammar", "readings", "21", "--grammar-dir", str(in_home / "nowhere")])
    assert missing.exit_code == 1 and missing.output.startswith("Error: --grammar-dir: ")
    for command in (["build", "--out", str(in_home / "out")], ["negatives", str(in_home / "out")],
                    ["grammar", "coverage", str(in_home / "out")]):
        refused = runner.invoke(cli, [*command, "--lang", "xx"])
        assert refused.exit_code == 1 and refused.output.startswith("Error: --lang: no grammar for language 'xx'"), command
    read = runner.invoke(cli, ["grammar", "readings", "2012", "--class", "CARDINAL", "--lang", CODE])
    assert read.exit_code == 0 and "two thousand twelve" in read.output.splitlines()
    assert adapter.language() == CODE


def test_the_class_registry_names_the_en_modules():
    """Every class of `schemas/classes.py` has its module in `tnforge.grammars.en`, with a `lattice`."""
    import importlib

    from tnforge.schemas.classes import GRAMMAR_MODULES

    for cls, name in GRAMMAR_MODULES.items():
        assert callable(importlib.import_module(f"tnforge.grammars.en.{name}").lattice), cls
