"""Coverage of gold readings: per class, the share of gold (before, after) pairs the grammar licenses."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tnforge.grammars.grammar import Grammar, default_grammar
from tnforge.schemas.classes import NUMERIC

#: The classes that carry numbers (the 99.5% coverage target applies to them).
NUMBER_CLASSES: tuple[str, ...] = NUMERIC


@dataclass
class ClassCoverage:
    """Counts for one class (weighted by occurrences) and the distinct misses."""

    total: int = 0
    licensed: int = 0
    readings: int = 0  # sum over distinct tokens of their number of readings (capped)
    tokens: int = 0
    misses: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.licensed / self.total if self.total else 1.0

    @property
    def mean_readings(self) -> float:
        return self.readings / self.tokens if self.tokens else 0.0


def measure_coverage(
    rows: Iterable[tuple[str, str, str, int]], grammar: Grammar | None = None, reading_cap: int = 1000
) -> dict[str, ClassCoverage]:
    """Coverage per class of (class, before, after, count) rows; trivial targets of PLAIN/PUNCT included."""
    grammar = grammar or default_grammar()
    result: dict[str, ClassCoverage] = defaultdict(ClassCoverage)
    seen_tokens: set[tuple[str, str]] = set()
    for cls, before, after, count in rows:
        stats = result[cls]
        stats.total += count
        if grammar.licenses(before, after, cls):
            stats.licensed += count
        else:
            stats.misses.append((before, after, count))
        if (cls, before) not in seen_tokens:
            seen_tokens.add((cls, before))
            stats.tokens += 1
            stats.readings += min(grammar.token_readings(before, cls).size, reading_cap)
    return dict(result)


def read_corpus_pairs(path: str | Path) -> list[tuple[str, str, str, int]]:
    """Distinct (class, before, after) of a corpus TSV (`CLASS<TAB>before<TAB>after`) with counts."""
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) != 3 or row[0] == "<eos>":
                continue
            counts[(row[0], row[1], row[2])] += 1
    return [(cls, before, after, n) for (cls, before, after), n in sorted(counts.items())]
