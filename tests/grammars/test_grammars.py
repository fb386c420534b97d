"""Covering grammars: per-class written~spoken files, coverage and rejection on the real sample, the FAR
cache and its invalidation, the enumeration cap, lazy import, the CLI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

pytest.importorskip("pynini")

from tests.support.paths import SHARED_DATA
from tnforge import grammars  # noqa: E402
from tnforge.gold_pairs import read_corpus_pairs  # noqa: E402
from tnforge.grammars import grammar as grammar_module  # noqa: E402
from tnforge.grammars.coverage import NUMBER_CLASSES, measure_coverage  # noqa: E402
from tnforge.grammars.grammar import Grammar  # noqa: E402
from tnforge.grammars.tables import DEFAULT_TABLE_DIR, TableError, load_tables  # noqa: E402
from tnforge.grammars.testcases import CASES_DIR, all_cases, load_cases  # noqa: E402
from tnforge.manifest import mark_complete, write_manifest  # noqa: E402

SHARED_TSV = SHARED_DATA / "en_sample.tsv"


@pytest.fixture(scope="module")
def g(tmp_path_factory) -> Grammar:
    """A grammar compiled into a temporary cache, installed as the process default for the public API."""
    built = Grammar(cache_dir=tmp_path_factory.mktemp("grammar-cache"))
    previous = grammar_module._default
    grammar_module._default = built
    yield built
    grammar_module._default = previous


@pytest.fixture(scope="module")
def sample_pairs() -> list[tuple[str, str, str, int]]:
    if not SHARED_TSV.exists():
        pytest.skip(f"{SHARED_TSV} not present")
    return read_corpus_pairs(SHARED_TSV)


@pytest.mark.parametrize("path", sorted(CASES_DIR.glob("*.txt")), ids=lambda p: p.stem)
def test_written_spoken_files(g: Grammar, path: Path) -> None:
    cases = load_cases(path)
    assert any(c.licensed for c in cases) and any(not c.licensed for c in cases), f"{path.name} needs both kinds"
    wrong = [c for c in cases if g.licenses(c.written, c.spoken, c.cls) != c.licensed]
    assert not wrong, "\n".join(f"{path.name}:{c.line}: {c.written!r} ~ {c.spoken!r} expected "
                                f"{'licensed' if c.licensed else 'rejected'}" for c in wrong)


def test_every_class_has_a_case_file() -> None:
    classes = {case.cls for case in all_cases()}
    assert classes >= set(NUMBER_CLASSES) | {"LETTERS", "ELECTRONIC", "VERBATIM", "PLAIN", "PUNCT"}


def test_coverage_of_number_classes_on_the_sample(g: Grammar, sample_pairs) -> None:
    result = measure_coverage(sample_pairs, g)
    for cls in NUMBER_CLASSES:
        stats = result[cls]
        assert stats.total > 0
        assert stats.share >= 0.995, f"{cls}: {stats.share:.4f} licensed; misses {stats.misses[:5]}"
    # The other classes are reported; they must stay high too.
    for cls in ("LETTERS", "ELECTRONIC", "VERBATIM", "PLAIN", "PUNCT"):
        assert result[cls].share >= 0.99, (cls, result[cls].misses[:5])


def test_meaning_changing_corruptions_are_rejected(g: Grammar, sample_pairs) -> None:
    from tnforge.grammars.corruptions import corruptions

    items = [(before, bad, cls) for cls, before, after, _ in sample_pairs if cls in NUMBER_CLASSES
             for _kind, bad in corruptions(g, after, per_word=1)]
    assert len(items) > 3000
    verdicts = g.licenses_batch(items)
    licensed = [item for item, ok in zip(items, verdicts, strict=True) if ok]
    assert 1 - len(licensed) / len(items) >= 0.999, licensed[:10]


def test_public_api(g: Grammar) -> None:
    assert "three kilograms" in grammars.readings("3kg", "MEASURE")
    assert grammars.licenses("2016", "twenty sixteen", "DATE")
    assert grammars.licenses("2016", "twenty  sixteen ")  # whitespace is normalized; any class
    assert not grammars.licenses("2016", "twenty seventeen")
    assert grammars.licenses_batch([("3kg", "three kilograms", "MEASURE"), ("3kg", "three kilometers", "MEASURE"),
                                    ("Hello", "<self>", "PLAIN"), (",", "sil", "PUNCT")]) == [True, False, True, True]
    words = grammars.reading_words("2nd", "ORDINAL")
    assert ("second",) in words and ("the", "second") in words
    assert {"CARDINAL", "DATE", "MEASURE", "MONEY"} <= grammars.covered_classes()
    assert "ELECTRONIC" not in grammars.covered_classes()
    with pytest.raises(ValueError, match="unknown semiotic class"):
        grammars.readings("3", "NOT_A_CLASS")


def test_enumeration_is_capped(g: Grammar) -> None:
    found = grammars.readings("000000000000", "DIGIT", limit=100)
    assert 0 < len(found) <= 100 and len(set(found)) == len(found)
    token = g.token_readings("000000000000", "DIGIT")
    assert token.size == 3 ** 12 and token.strings is None  # too many to materialize
    assert g.licenses("000000000000", " ".join(["oh"] * 6 + ["zero"] * 6), "DIGIT")
    assert not g.licenses("000000000000", " ".join(["o"] * 11), "DIGIT")


def test_cache_hit_and_invalidation_when_a_table_changes(tmp_path: Path) -> None:
    tables = tmp_path / "tables"
    shutil.copytree(DEFAULT_TABLE_DIR, tables)
    cache = tmp_path / "cache"
    first = Grammar(table_dir=tables, cache_dir=cache)
    assert not first.from_cache and len(list(cache.glob("*.far"))) == 1 and len(list(cache.glob("*.json"))) == 1
    second = Grammar(table_dir=tables, cache_dir=cache)
    assert second.from_cache
    assert second.readings("1905", "CARDINAL") == first.readings("1905", "CARDINAL")
    assert not second.licenses("2007", "two nought nought seven", "DIGIT")
    with open(tables / "digit_words.tsv", "a", encoding="utf-8") as handle:
        handle.write("0\tnought\n")
    third = Grammar(table_dir=tables, cache_dir=cache)
    assert not third.from_cache and len(list(cache.glob("*.far"))) == 2
    assert third.licenses("2007", "two nought nought seven", "DIGIT")
    assert not [p for p in cache.iterdir() if p.name.startswith(".tmp-")]


def test_malformed_table_names_file_and_line(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_TABLE_DIR, tmp_path / "t")
    with open(tmp_path / "t" / "units.tsv", "a", encoding="utf-8") as handle:
        handle.write("furlong\tfurlong\n")
    with pytest.raises(TableError, match=r"units\.tsv:\d+"):
        load_tables(tmp_path / "t")


def test_package_import_does_not_load_pynini() -> None:
    code = "import sys, tnforge.grammars; assert 'pynini' not in sys.modules, 'pynini imported eagerly'"
    subprocess.run([sys.executable, "-c", code], check=True)


def _write_dataset(root: Path) -> None:
    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.hashing import stable_hash64
    from tnforge.schemas import POSITIVE_PAIRS

    rows = [("MEASURE", "3kg", "three kilograms", 2), ("MEASURE", "7 kg", "seven kilograms", 1),
            ("MONEY", "$60", "sixty dollars", 1), ("DATE", "2016", "twenty seventeen", 1)]
    table = pa.table({
        "key": pa.array([stable_hash64(c, b, a) for c, b, a, _ in rows], pa.uint64()),
        "split": ["train"] * len(rows),
        "class": [r[0] for r in rows], "before": [r[1] for r in rows],
        "after": [r[2] for r in rows], "count": [r[3] for r in rows],
    })
    write_sharded(table, dataset_path(root, "positive_pairs", "train"), POSITIVE_PAIRS)
    write_manifest(root, mark_complete({}))  # a finished build: the grammar tools refuse an unfinished one


def test_cli_readings_coverage_and_learn_lexicon(g: Grammar, tmp_path: Path) -> None:
    from tnforge.cli.grammar import grammar as grammar_cli

    runner = CliRunner()
    result = runner.invoke(grammar_cli, ["readings", "3kg", "--class", "MEASURE"])
    assert result.exit_code == 0 and "three kilograms" in result.output
    result = runner.invoke(grammar_cli, ["readings", "3kg", "--class", "MEASURE", "--check", "three kilometers"])
    assert result.exit_code == 1 and "not licensed" in result.output

    _write_dataset(tmp_path / "ds")
    result = runner.invoke(grammar_cli, ["coverage", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    assert "MISS DATE\t2016\ttwenty seventeen" in result.output
    assert any(line.startswith("MEASURE") and "100.00%" in line for line in result.output.splitlines())

    out = tmp_path / "candidates.tsv"
    result = runner.invoke(grammar_cli, ["learn-lexicon", str(tmp_path / "ds"), "--out", str(out), "--all"])
    assert result.exit_code == 0, result.output
    rows = out.read_text(encoding="utf-8").splitlines()
    assert "units\tkg\tkilograms\tplural\t3\ttrue" in rows
    assert "currencies\t$\tdollars\tplural\t1\ttrue" in rows

    result = runner.invoke(grammar_cli, ["coverage", str(tmp_path / "nowhere")])
    assert result.exit_code != 0 and "neither a dataset directory" in result.output
