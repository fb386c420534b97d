"""The coverage report's table, misses and closing line (no grammar needed: the counts are given)."""

from __future__ import annotations

from tnforge.grammars.coverage import (
    COVERAGE_TARGET,
    ClassCoverage,
    below_target,
    coverage_summary,
    coverage_table,
)


def _result() -> dict[str, ClassCoverage]:
    return {
        "PLAIN": ClassCoverage(total=10, licensed=5, readings=4, tokens=2, misses=[("a", "b", 5)]),
        "MONEY": ClassCoverage(total=1000, licensed=990, readings=30, tokens=10,
                               misses=[("$1", "one pound", 6), ("$2", "two pounds", 4)]),
        "DATE": ClassCoverage(total=200, licensed=200, readings=8, tokens=4),
    }


def test_only_number_classes_below_the_target_are_named():
    assert COVERAGE_TARGET == 0.995
    assert below_target(_result()) == ["MONEY"]


def test_table_rows_then_misses_per_class():
    lines = coverage_table(_result(), misses=1)
    assert lines[0].split() == ["class", "licensed", "pairs", "share", "readings/token"]
    assert [line.split()[0] for line in lines[1:4]] == ["DATE", "MONEY", "PLAIN"]
    assert lines[2].split() == ["MONEY", "990", "1,000", "99.00%", "3.0"]
    assert lines[4:] == ["MISS MONEY\t$1\tone pound\t6", "MISS PLAIN\ta\tb\t5"]


def test_summary_line():
    assert coverage_summary(_result(), 1.25) == (
        "1,195/1,210 gold readings licensed (98.76%) in 1.2 s; number classes below 99.5%: MONEY")
