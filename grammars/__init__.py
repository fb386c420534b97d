"""Covering grammars: every acceptable reading of a token, and a fast licensed/unlicensed judgement.

    from tnforge.grammars import readings, licenses
    readings("3kg", "MEASURE")                    # ['three k g', 'three kilogram', 'three kilograms']
    licenses("2016", "twenty sixteen", "DATE")    # True

pynini is imported on the first call, not when this package is imported. The compiled number FSTs come
from a FAR cache keyed by the grammar sources, the tables, the language and the pynini version (see cache.py).

The infrastructure (grammar, cache, lattice, tables, adapter …) lives here; the English class grammars, their
tables (`en/data/`) and test cases (`en/tests/`) in `en/`; induced number grammars of other languages are data
directories outside the source tree, selected by `Grammar(lang=…)` / `use_language` (`languages.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tnforge.schemas.classes import COVERED

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

#: Classes whose grammar really covers the corpus's readings (hard constraints may be used for them).
COVERED_CLASSES: frozenset[str] = COVERED


def get_grammar() -> Grammar:
    """The process-wide grammar (built, or loaded from the FAR cache, on first use)."""
    from tnforge.grammars.grammar import default_grammar

    return default_grammar()


def use_language(lang: str | None, grammar_dir=None) -> None:
    """Build the process-wide grammar in language `lang` (None: `en`) or from the induced number grammar in
    `grammar_dir` (`languages.resolve`; LanguageError, one line, for an unknown language)."""
    from tnforge.grammars.grammar import use_language as use

    use(lang, grammar_dir)


def use_cardinal_grammar(directory) -> None:
    """Take the process-wide grammar's CARDINAL (and ORDINAL) readings from an induced number grammar directory
    (`tnforge grammar induce`; None: the hand-written ones again); see `induced_cardinals`."""
    from tnforge.grammars.grammar import use_cardinal_grammar as use

    use(directory)


def readings(before: str, cls: str | None = None, limit: int = 1000) -> list[str]:
    """Up to `limit` licensed readings of a written token in a semiotic class (any class when None)."""
    return get_grammar().readings(before, cls, limit)


def licenses(before: str, reading: str, cls: str | None = None) -> bool:
    """Whether `reading` is an acceptable reading of `before` (in `cls`, or in any class when None)."""
    return get_grammar().licenses(before, reading, cls)


def licenses_batch(items: Iterable[tuple[str, str, str | None]]) -> list[bool]:
    """`licenses` for many (before, reading, cls) triples, with a per-distinct-token cache."""
    return get_grammar().licenses_batch(items)


def licenses_columns(befores, readings, classes):
    """`licenses` for Arrow columns of inputs, readings and classes: a numpy array of verdicts (`columns.py`)."""
    from tnforge.grammars.columns import licenses_columns as judge

    return judge(get_grammar(), befores, readings, classes)


def reading_words(before: str, cls: str | None = None, limit: int = 1000) -> frozenset[tuple[str, ...]]:
    """The licensed readings of a token as word tuples (capped), for a constrained decoder's masks."""
    return get_grammar().reading_words(before, cls, limit)


def reading(before: str, cls: str | None) -> str | None:
    """The one reading the grammar commits to for a token in a class (the corpus's spelling: a URL's
    `_letter` encoding), or None when a model must choose among its readings (`Grammar.reading`)."""
    return get_grammar().reading(before, cls)


def covered_classes() -> frozenset[str]:
    """Classes the grammar really covers (ELECTRONIC is over-generated only loosely: not a hard constraint)."""
    return COVERED_CLASSES


__all__ = ["use_language", "use_cardinal_grammar", "readings", "licenses", "licenses_batch", "licenses_columns", "reading_words", "reading", "covered_classes", "get_grammar", "COVERED_CLASSES"]
