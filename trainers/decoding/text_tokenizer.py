"""Plain text → corpus-style tokens → context windows, for normalizing raw sentences with a trained model.

`tokenize` is a small rule-based approximation of the Sproat & Jaitly corpus tokenization:
  * punctuation is split off as separate tokens ("leaves." → "leaves", ".");
  * kept whole: times and numbers with separators (4:45, 3.5, 1,000, 1/2, 2011-11-11), currency amounts
    ($3, £1.5), numbers with a unit or suffix glued on (3kg, 1980s, 21st, 50%), URLs and e-mail addresses,
    domain names (google.com), dotted acronyms (U.S., D.C.), common abbreviations (Dr., Mr., etc.),
    words with internal hyphens or apostrophes (e-mail, don't, Women's);
  * a "Month D, YYYY" / "D Month YYYY" date becomes one token, as in the corpus.
Limits: multi-word tokens other than those dates (e.g. "0.001251 g/cm3", "5 km") stay separate tokens;
an abbreviation not in the short list loses its final period to a separate "." token; a sentence-final
abbreviation keeps the period (no extra "." token). The corpus itself came from Google's internal
tokenizer, so expect small differences on unusual text.

Windows come from `tnforge.windows` (`window_input`, `sentence_windows`), the very functions the dataset
build uses, so a raw sentence reaches the model exactly as the training examples did.
"""

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
    """Split plain text into corpus-style tokens (see the module docstring for the rules and limits)."""
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
