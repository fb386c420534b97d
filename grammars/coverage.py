"""Coverage of gold readings: per class, the share of gold (before, after) pairs the grammar licenses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from tnforge.grammars.grammar import Grammar, default_grammar
from tnforge.schemas.classes import NUMERIC

#: The classes that carry numbers (the coverage target applies to them).
NUMBER_CLASSES: tuple[str, ...] = NUMERIC
#: Share of gold readings the grammar must license in each number class.
COVERAGE_TARGET = 0.995


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



def below_target(result: dict[str, ClassCoverage]) -> list[str]:
    """The number classes whose share of licensed gold readings is under COVERAGE_TARGET, in name order."""
    return [cls for cls in sorted(result) if cls in NUMBER_CLASSES and result[cls].share < COVERAGE_TARGET]


def coverage_table(result: dict[str, ClassCoverage], misses: int) -> list[str]:
    """The coverage report: one row per class, then up to `misses` "MISS class<TAB>before<TAB>after<TAB>count"
    lines per class."""
    lines = [f"{'class':<11} {'licensed':>9} {'pairs':>8} {'share':>8} {'readings/token':>15}"]
    for cls in sorted(result):
        stats = result[cls]
        lines.append(f"{cls:<11} {stats.licensed:>9,} {stats.total:>8,} {stats.share:>8.2%} {stats.mean_readings:>15.1f}")
    for cls in sorted(result):
        lines += [f"MISS {cls}\t{before}\t{after}\t{count}" for before, after, count in result[cls].misses[:misses]]
    return lines


def coverage_summary(result: dict[str, ClassCoverage], seconds: float) -> str:
    """The closing line: gold readings licensed overall, time taken, number classes below the target."""
    total = sum(s.total for s in result.values())
    licensed = sum(s.licensed for s in result.values())
    return (f"{licensed:,}/{total:,} gold readings licensed ({licensed / max(total, 1):.2%}) in {seconds:.1f} s; "
            f"number classes below {COVERAGE_TARGET:.1%}: {', '.join(below_target(result)) or 'none'}")
