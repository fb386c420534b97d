"""The covering grammar as class inference needs it: `(before, reading)` → the classes that license the reading.

Reached only through `tnforge.grammars.adapter` (tolerant: a class whose grammar fails on a token does not
license it) and loaded on the first token asked about, so building non-aligned inputs never touches it.
Without the grammar (pynini missing), every reading is licensed by none: class inference then uses its
shape rules alone, and `note` says so in the manifest.
"""

from __future__ import annotations

from tnforge.grammars import adapter
from tnforge.schemas import SEMIOTIC_CLASSES

#: Classes a non-trivial reading may be licensed in (PUNCT readings are silence).
CANDIDATES: tuple[str, ...] = tuple(c for c in SEMIOTIC_CLASSES if c != "PUNCT")


class GrammarClasses:
    """`(before, reading)` → the classes whose covering grammar licenses the reading (lazy, tolerant)."""

    def __init__(self) -> None:
        self._judge = None
        self.note = ""

    def _load(self) -> None:
        judge, reason = adapter.judge(None)
        self._judge = judge or (lambda items: [None] * len(items))
        self.note = f"covering grammar {adapter.language()} {adapter.version()}" if judge is not None else reason

    def __call__(self, before: str, reading: str) -> list[str]:
        if self._judge is None:
            self._load()
        verdicts = self._judge([(before, reading, cls) for cls in CANDIDATES])
        return [cls for cls, ok in zip(CANDIDATES, verdicts, strict=True) if ok]
