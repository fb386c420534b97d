"""Learning unit and currency lexicon entries from gold pairs, for review before they go into the tables.

For a MEASURE or MONEY pair, the token is factored into a number and a symbol; when the gold reading starts
(or, for money, also ends) with one of the grammar's readings of the number, the rest of the reading is a
candidate spoken form of the symbol. Candidates are counted; the ones already in a table are flagged.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from tnforge.grammars.en.decimal import number_lattice
from tnforge.grammars.grammar import Grammar
from tnforge.grammars.lattice import iter_strings

_MEASURE = re.compile(r"^(-?[\d,]*\.?\d+)\s*([^\d\s].*)$")
_MONEY_PREFIX = re.compile(r"^([^\d\s.,-]+)\s*(-?[\d,]*\.?\d+(?:\s*[A-Za-z]+)?)$")
_MONEY_SUFFIX = re.compile(r"^(-?[\d,]*\.?\d+(?:\s*(?:thousand|million|billion|trillion|k|m|bn|b))?)\s*([A-Za-z]{2,4})$")


@dataclass(frozen=True)
class Candidate:
    table: str  # "units" or "currencies"
    symbol: str
    spoken: str
    number: str  # "singular" or "plural" (by the amount: 1 → singular)
    count: int
    covered: bool  # the grammar already licenses every pair this candidate came from


def _number_readings(g: Grammar, amount: str) -> list[str]:
    return list(iter_strings(number_lattice(g, amount.replace(" ", "")), limit=200))


def _rest_after(readings: list[str], gold: str) -> str | None:
    for reading in sorted(readings, key=len, reverse=True):
        if gold.startswith(reading + " "):
            return gold[len(reading) + 1:]
    return None


def learn(g: Grammar, pairs: Iterable[tuple[str, str, str, int]]) -> list[Candidate]:
    """Candidate entries from (class, before, after, count) pairs, most frequent first."""
    counts: Counter[tuple[str, str, str, str]] = Counter()
    uncovered: set[tuple[str, str, str, str]] = set()
    for cls, before, after, count in pairs:
        text = before.strip()
        if cls == "MEASURE":
            match = _MEASURE.match(text)
            if match:
                amount, symbol = match.groups()
                spoken = _rest_after(_number_readings(g, amount), after)
                if spoken:
                    form = "singular" if amount in ("1", "1.0") else "plural"
                    key = ("units", symbol.strip(), spoken, form)
                    counts[key] += count
                    if not g.licenses(before, after, cls):
                        uncovered.add(key)
        elif cls == "MONEY":
            prefix, suffix = _MONEY_PREFIX.match(text), _MONEY_SUFFIX.match(text)
            symbol, amount = (prefix.group(1), prefix.group(2)) if prefix else (
                (suffix.group(2), suffix.group(1)) if suffix else (None, None))
            if symbol and amount:
                spoken = _rest_after(_number_readings(g, amount), after)
                if spoken:
                    form = "singular" if amount == "1" else "plural"
                    key = ("currencies", symbol, spoken, form)
                    counts[key] += count
                    if not g.licenses(before, after, cls):
                        uncovered.add(key)
    return [
        Candidate(table, symbol, spoken, form, count, (table, symbol, spoken, form) not in uncovered)
        for (table, symbol, spoken, form), count in counts.most_common()
    ]


def candidates_tsv(candidates: Iterable[Candidate]) -> str:
    """Candidates as a TSV file for review: table, symbol, spoken, number, count, covered."""
    lines = ["table\tsymbol\tspoken\tnumber\tcount\tcovered"]
    lines += [f"{c.table}\t{c.symbol}\t{c.spoken}\t{c.number}\t{c.count}\t{str(c.covered).lower()}" for c in candidates]
    return "\n".join(lines) + "\n"


def review_file(g: Grammar, pairs: Iterable[tuple[str, str, str, int]], min_count: int = 1,
                include_all: bool = False) -> tuple[str, int]:
    """The TSV of the candidates seen at least `min_count` times (only those the tables miss, unless
    `include_all`), and how many it lists."""
    candidates = [c for c in learn(g, pairs) if c.count >= min_count and (include_all or not c.covered)]
    return candidates_tsv(candidates), len(candidates)
