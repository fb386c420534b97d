"""Plain text → corpus-style tokens → context windows, for normalizing raw sentences with a trained model.
`tokenize` is `tnforge.tokenizer.tokenize` (the Sproat & Jaitly corpus tokenization; rules, limits and
figures: docs/explanation/tagger.md); windows come from `tnforge.windows`, as in the dataset build."""

from __future__ import annotations

from collections.abc import Sequence

from tnforge.schemas import SELF, SIL
from tnforge.tokenizer import tokenize
from tnforge.windows import DEFAULT_WIDTH, sentence_windows, window_input

__all__ = ["DEFAULT_WIDTH", "sentence_windows", "spoken", "tokenize", "window_input"]


def spoken(tokens: Sequence[str], readings: Sequence[str]) -> str:
    """The spoken sentence: `<self>` → the token, `sil` → nothing, otherwise the reading."""
    words = [token if reading == SELF else reading for token, reading in zip(tokens, readings, strict=True)
             if reading != SIL and reading]
    return " ".join(words)


def reading_table(tokens: Sequence[str], readings: Sequence[str]) -> str:
    """Each token beside its reading, one a line, then a blank line and the spoken sentence."""
    width = max((len(t) for t in tokens), default=0)
    rows = [f"{token:<{width}}  {reading}" for token, reading in zip(tokens, readings, strict=True)]
    return "\n".join([*rows, "", spoken(tokens, readings)])
