"""The PLAIN abbreviations the corpus expands, read by their context: "St John" → saint, "Baker St" → street.

The corpus writes these abbreviations without their period and reads them as words (the shared sample:
st → saint 5 times before a name and street once after one, "York st #4"; mr → mister 8, ltd → limited 6,
sr → senior 4, dr → doctor 4, vs → versus 3, vol → volume 3, jr → junior 2, etc → etcetera 2,
dept → department 2, bros → brothers 2, MT → mount 1; never read as written). A token is one of them when,
without a final period and lowercased, it is in `ABBREVIATIONS` and it is written in lowercase or with one
capital (`St`, `st`; not `ST`, which may be letters); its reading is the first when the next token starts
with a capital letter (a name follows: "St John", "Dr Smith", "Mt Hood") and the second otherwise ("Baker
St", "Mulholland Dr"). `Mrs`, `Ms` and `No` are left out: the corpus reads "mrs" and "No" as written.
Every reading here is one the covering grammar's PLAIN table licenses (`grammars/en/data/plain.tsv`).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Abbreviation (lowercase, no period) → (reading before a name, reading otherwise).
ABBREVIATIONS: dict[str, tuple[str, str]] = {
    "st": ("saint", "street"), "dr": ("doctor", "drive"), "mt": ("mount", "mount"), "mr": ("mister", "mister"),
    "vol": ("volume", "volume"), "ltd": ("limited", "limited"), "jr": ("junior", "junior"),
    "sr": ("senior", "senior"), "vs": ("versus", "versus"), "etc": ("etcetera", "etcetera"),
    "dept": ("department", "department"), "bros": ("brothers", "brothers"), "ave": ("avenue", "avenue"),
}


def abbreviation(token: str) -> str | None:
    """The table key of an abbreviation token (`St`, `st.`, `Vol`), or None."""
    word = token.strip().rstrip(".")
    if not word or not (word.islower() or (word[0].isupper() and word[1:].islower())):
        return None
    return word.lower() if word.lower() in ABBREVIATIONS else None


def abbreviation_reading(tokens: Sequence[str], index: int) -> tuple[str, str] | None:
    """(reading, why) of the abbreviation at `index` by its context, or None when it is not one."""
    key = abbreviation(tokens[index])
    if key is None:
        return None
    following = tokens[index + 1].strip() if index + 1 < len(tokens) else ""
    before_name = following[:1].isupper()
    reading = ABBREVIATIONS[key][0 if before_name else 1]
    return reading, f"abbreviation {'before a name' if before_name else 'not before a name'}: {reading}"
