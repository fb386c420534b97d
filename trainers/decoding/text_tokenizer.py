"""Plain text → corpus-style tokens → context windows, for normalizing raw sentences with a trained model.
`tokenize` approximates the Sproat & Jaitly corpus tokenization (rules and limits: docs/training.md); windows
come from `tnforge.windows`, the very functions the dataset build uses."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tnforge.schemas import SELF, SIL
from tnforge.windows import DEFAULT_WIDTH, sentence_windows, window_input

__all__ = ["DEFAULT_WIDTH", "sentence_windows", "spoken", "tokenize", "window_input"]

_MONTHS = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
           r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")
ABBREVIATIONS = frozenset({
    "mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "jr.", "sr.", "mt.", "ft.", "vs.", "etc.", "inc.", "ltd.",
    "co.", "corp.", "no.", "vol.", "pp.", "fig.", "gen.", "gov.", "sen.", "rep.", "rev.", "capt.", "col.",
    "lt.", "sgt.", "ave.", "blvd.", "approx.", "dept.", "est.", "e.g.", "i.e.",
})
_PATTERN = re.compile(
    "|".join([
        rf"(?P<date>{_MONTHS}\s+\d{{1,2}},\s+\d{{3,4}}|\d{{1,2}}\s+{_MONTHS}\s+\d{{3,4}})",
        r"(?P<url>(?:[a-zA-Z][a-zA-Z0-9+.-]*://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]'])",
        r"(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
        r"(?P<number>[$€£¥#]?\d+(?:[.,:/-]\d+)*(?:[A-Za-z%°]+\d*)?)",
        r"(?P<acronym>(?:[A-Za-z]\.){2,})",
        r"(?P<domain>[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|info)\b)",
        r"(?P<word>\w+(?:['’-]\w+)*'?\.?)",
        r"(?P<other>\S)",
    ])
)


def tokenize(text: str) -> list[str]:
    """Split plain text into corpus-style tokens (rules and limits: docs/training.md)."""
    tokens: list[str] = []
    for match in _PATTERN.finditer(text):
        token = match.group(0)
        if match.lastgroup == "word" and token.endswith(".") and len(token) > 1:
            single_initial = len(token) == 2 and token[0].isupper()  # "M." in "M. Smith"
            if token.lower() not in ABBREVIATIONS and not single_initial:
                tokens.extend([token[:-1], "."])
                continue
        tokens.append(token)
    return tokens


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
