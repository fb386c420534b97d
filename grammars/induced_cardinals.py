"""An induced number grammar (Gorman & Sproat 2016; `tnforge grammar induce`) as the English grammars'
CARDINAL covering grammar, and through the paper's trivial transduction (the last word made ordinal:
twenty one → twenty first) their ORDINAL one: every reading of a digit string the class grammars build on
(`cardinal.cardinal_strings`, hence CARDINAL, ORDINAL and every class that reads an integer) comes from the
induced grammar's FST instead of the hand-written one (`numbers.py`); years, digits and the rest stay as
they are.

    from tnforge.grammars import use_language, get_grammar
    use_language(None, "induced/en")             # the process-wide grammar: licenses(), the adapter, the CLI
    get_grammar().readings("2012", "CARDINAL")   # ['two thousand and twelve', 'two thousand twelve']
    Grammar(grammar_dir="induced/en")            # or one grammar object of its own
    Grammar(lang="de")                           # the directory `de` under the grammars home (`languages`)

    tnforge grammar coverage /data/ds --grammar-dir induced/en       # a whole command (and local workers)
    TNFORGE_GRAMMAR_DIR=induced/en tnforge grammar readings 2012 --class CARDINAL
    compare(gold_rows, Grammar(), Grammar(grammar_dir="induced/en"))   # per class: who licenses what

Readings are put in the corpus's spelling: lower case, words separated by single spaces (the reference's
"twenty-one" and "one million, two hundred thousand" become "twenty one", "one million two hundred
thousand"). A number the induced grammar refuses (past what its examples teach) has no reading.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tnforge.grammars.en.numbers import NumberFsts

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

#: The environment variables naming an induced grammar directory for the process-wide grammar (the second is
#: the older name, still read).
GRAMMAR_DIR_ENVIRONMENT, ENVIRONMENT = "TNFORGE_GRAMMAR_DIR", "TNFORGE_CARDINAL_GRAMMAR"
_SEPARATORS = re.compile(r"[\s,\-]+")


def corpus_spelling(reading: str) -> str:
    """A reading as the corpus writes number names: lower case, words separated by single spaces."""
    return " ".join(word for word in _SEPARATORS.split(reading.lower()) if word)


class InducedNumberFsts(NumberFsts):
    """The hand-written number FSTs with `cardinal` answered by an induced grammar."""

    def __init__(self, fsts: dict, words, directory: str | os.PathLike):
        from tnforge.grammars.induction import load

        super().__init__(fsts, words)
        self.induced = load(directory)
        self.directory = Path(directory)

    def cardinal(self, digits: str) -> tuple[str, ...]:
        """Every reading the induced grammar licenses for a digit string without leading zeros, in the
        corpus's spelling; () for one it refuses."""
        from tnforge.grammars.induction import Refusal

        key = ("#induced", digits)
        cached = self._memo.get(key)
        if cached is None:
            try:
                found = self.induced.readings(digits) if digits.isdigit() and digits[:1] != "0" or digits == "0" else []
            except Refusal:
                found = []
            cached = tuple(sorted({corpus_spelling(r) for r in found}))
            self._memo[key] = cached
        return cached


def configured() -> str | None:
    """The induced grammar directory the environment names for the process-wide grammar, or None."""
    return os.environ.get(GRAMMAR_DIR_ENVIRONMENT) or os.environ.get(ENVIRONMENT) or None


@dataclass
class ClassComparison:
    """Gold readings of one class licensed by the hand-written and by the induced grammar (weighted by
    occurrences), and the distinct (before, after, count) pairs only one of them licenses."""

    total: int = 0
    hand: int = 0
    induced: int = 0
    only_hand: list[tuple[str, str, int]] = field(default_factory=list)
    only_induced: list[tuple[str, str, int]] = field(default_factory=list)
    tokens: int = 0  # distinct tokens
    differing: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)  # (before, only hand, only induced)

    def line(self, cls: str, examples: int = 3) -> str:
        def listed(pairs: list[tuple[str, str, int]]) -> str:
            return "; ".join(f"{before!r} → {after!r}" for before, after, _ in pairs[:examples]) or "none"

        return (f"{cls}: {self.total:,} gold readings; hand-written licenses {self.hand:,} "
                f"({self.hand / max(self.total, 1):.2%}), induced {self.induced:,} "
                f"({self.induced / max(self.total, 1):.2%}); only hand-written: "
                f"{sum(c for *_, c in self.only_hand):,} ({listed(self.only_hand)}); only induced: "
                f"{sum(c for *_, c in self.only_induced):,} ({listed(self.only_induced)}); tokens whose readings "
                f"differ: {len(self.differing):,} of {self.tokens:,}"
                + "".join(f"; {before!r}: only hand-written {list(h[:2])}, only induced {list(i[:2])}"
                          for before, h, i in self.differing[:examples]))


def compare(rows: Iterable[tuple[str, str, str, int]], hand: Grammar, induced: Grammar,
            classes: tuple[str, ...] = ("CARDINAL", "ORDINAL"), limit: int = 1000) -> dict[str, ClassComparison]:
    """Per class of `classes`: which gold (class, before, after, count) rows each grammar licenses, and the
    tokens whose readings (up to `limit` of each) differ."""
    result: dict[str, ClassComparison] = {cls: ClassComparison() for cls in classes}
    seen: set[tuple[str, str]] = set()
    for cls, before, after, count in rows:
        if cls not in result:
            continue
        stats = result[cls]
        if (cls, before) not in seen:
            seen.add((cls, before))
            stats.tokens += 1
            mine, theirs = set(hand.readings(before, cls, limit)), set(induced.readings(before, cls, limit))
            if mine != theirs:
                stats.differing.append((before, tuple(sorted(mine - theirs)), tuple(sorted(theirs - mine))))
        by_hand, by_induced = hand.licenses(before, after, cls), induced.licenses(before, after, cls)
        stats.total += count
        stats.hand += count * by_hand
        stats.induced += count * by_induced
        if by_hand and not by_induced:
            stats.only_hand.append((before, after, count))
        elif by_induced and not by_hand:
            stats.only_induced.append((before, after, count))
    return result
