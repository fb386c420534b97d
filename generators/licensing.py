"""The covering-grammar hook: generated readings the grammar licenses are acceptable, not negative.

The grammar (`tnforge.grammars.licenses` / `licenses_batch`, built on pynini) is optional. `grammar=None`
means "use it when it can be imported", True requires it, False never uses it. The grammar is imported
only when a `Licenser` is made (in Beam: in the DoFn's setup), never at module import.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence


def grammar_available() -> bool:
    """True when pynini is installed and `tnforge.grammars` offers `licenses` or `licenses_batch`."""
    if importlib.util.find_spec("pynini") is None:
        return False
    try:
        grammars = importlib.import_module("tnforge.grammars")
    except Exception:  # noqa: BLE001 - a broken optional grammar means "not available"
        return False
    return callable(getattr(grammars, "licenses_batch", None)) or callable(getattr(grammars, "licenses", None))


def resolve_grammar(grammar: bool | None) -> bool:
    """Whether to judge negatives with the grammar: None → when available; True → required."""
    if grammar is None:
        return grammar_available()
    if grammar and not grammar_available():
        raise RuntimeError(
            "the covering grammar was requested (--grammar) but is not available: it needs pynini and "
            "tnforge.grammars.licenses"
        )
    return bool(grammar)


class Licenser:
    """Judges (before, reading, class) triples with the covering grammar."""

    def __init__(self) -> None:
        grammars = importlib.import_module("tnforge.grammars")
        batch = getattr(grammars, "licenses_batch", None)
        if callable(batch):
            self._judge: Callable[[list[tuple[str, str, str]]], list[bool]] = lambda items: list(batch(items))
        else:
            single = grammars.licenses
            self._judge = lambda items: [bool(single(b, r, c)) for b, r, c in items]

    def __call__(self, items: Sequence[tuple[str, str, str]]) -> list[bool]:
        """For each (before, reading, class): does the grammar accept the reading for the input?"""
        if not items:
            return []
        verdicts = [bool(v) for v in self._judge(list(items))]
        if len(verdicts) != len(items):
            raise RuntimeError(f"the grammar judged {len(verdicts)} of {len(items)} readings")
        return verdicts
