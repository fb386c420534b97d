"""The covering-grammar hook of the negatives: generated readings the grammar licenses are acceptable.

`grammar=None` means "use it when it can be loaded", True requires it, False never uses it. The grammar is
reached only through `tnforge.grammars.adapter` and loaded when a `Licenser` is made (in Beam: in the DoFn's
setup), never at module import.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from tnforge.grammars import adapter


def grammar_available() -> bool:
    """True when the covering grammar can be loaded here."""
    return adapter.available()


def grammar_language() -> str:
    """The judging grammar's language (`adapter.language`: `en` unless --lang / --grammar-dir chose another)."""
    return adapter.language()


def grammar_version() -> str:
    """Which covering grammar judges (`adapter.version`: its sources, tables and pynini version, hashed)."""
    return adapter.version()


def resolve_grammar(grammar: bool | None) -> bool:
    """Whether to judge negatives with the grammar: None → when available; True → required."""
    if grammar is None:
        return grammar_available()
    if grammar and not grammar_available():
        raise adapter.GrammarUnavailable(
            f"the covering grammar was requested (--grammar) but is not available: {adapter.unavailable_reason()}")
    return bool(grammar)


class Licenser:
    """Judges (before, reading, class) triples with the covering grammar."""

    def __init__(self) -> None:
        self._judge = adapter.licenser()

    def __call__(self, items: Sequence[tuple[str, str, str]]) -> list[bool]:
        """For each (before, reading, class): does the grammar accept the reading for the input?"""
        return self._judge(items)

    def columns(self, befores: pa.Array, readings: pa.Array, classes: pa.Array) -> np.ndarray:
        """For each row of the columns: does the grammar accept the reading for the input in the class?"""
        return self._judge.columns(befores, readings, classes)

    def forget(self) -> None:
        """Drop the grammar's cached readings of the tokens judged so far (they will not be asked again)."""
        adapter.forget()
