"""Hashed features of dual encoders: token and reading n-grams, interaction keys, token–reading match keys
(`pair_keys`), and the `Featurizer` that packs them for `nn.EmbeddingBag` (stable hashes: no vocabulary)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import torch

from tnforge.hashing import mix64, stable_hash64
from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.numbers import MONTHS, ORDINAL_WORDS, number_word, reading_numbers

_VOWELS = frozenset("aeiouy")
#: Digit positions (counted from the right of a digit run) that get their own features.
MAX_DIGIT_POSITION = 12
#: Characters of a token / words of a reading (from either end) that get positional features.
MAX_POSITION = 8


def _char_grams(text: str, top: int) -> list[str]:
    padded = f"\x02{text}\x03"
    return [padded[i: i + n] for n in range(1, top + 1) for i in range(len(padded) - n + 1)]


def token_shape(before: str) -> list[str]:
    """Shape features of a token: letter case pattern, letter count, vowel share, digits, other characters.

    They tell a word read as written ("TURNS", "Ottawa") from letters read one by one ("IUCN", "B") or a
    token that needs reading ("1990s"), whatever the word itself."""
    letters = [char for char in before if char.isalpha()]
    upper = sum(1 for char in letters if char.isupper())
    if not letters:
        case = "none"
    elif upper == len(letters):
        case = "upper" if len(letters) > 1 else "upper1"
    elif upper == 0:
        case = "lower"
    elif upper == 1 and letters[0].isupper() and before.lstrip()[:1].isalpha():
        case = "title"
    else:
        case = "mixed"
    vowels = sum(1 for char in letters if char.lower() in _VOWELS)
    share = "v0" if not vowels else ("v-" if vowels * 5 < len(letters) else "v+")
    # The longest run of consonants: words rarely have more than three, letter sequences often do.
    run = max((len(r) for r in re.findall(r"[^aeiouy]+", "".join(letters).lower())), default=0)
    count = min(len(letters), 6)
    keys = [f"case:{case}", f"letters:{count}", f"vowels:{share}", f"consonants:{min(run, 4)}",
            f"shape:{case}/{count}/{share}"]
    if any(char.isdigit() for char in before):
        keys.append("digits" if not letters else "digits+letters")
    others = sorted({char for char in before if not char.isalnum()})
    if others:
        keys.append("other:" + "".join(others[:4]))
    return keys


def input_grams(before: str, top: int = 4, features: int = 1) -> list[str]:
    """Feature strings of a token: char n-grams, digits by place, characters by position from each end, length
    (and, from feature version 2, its shape)."""
    grams = ["c" + g for g in _char_grams(before, top)]
    run: list[str] = []
    text = before + " "
    for i, char in enumerate(text):
        if char.isdigit():
            run.append(char)
            continue
        if char == "," and run and text[i + 1].isdigit():
            continue  # a thousands separator does not end the number
        for place, digit in enumerate(reversed(run)):
            grams.append(f"d{digit}@{min(place, MAX_DIGIT_POSITION)}/{min(len(run), MAX_DIGIT_POSITION)}")
        run = []
    lower = before.lower()
    grams += ["l" + g for g in _char_grams(lower, 2)]
    grams += [f"p{i}:{char}" for i, char in enumerate(lower[:MAX_POSITION])]
    grams += [f"e{i}:{char}" for i, char in enumerate(reversed(lower[-MAX_POSITION:]))]
    grams.append(f"len{min(len(before), 24)}")
    if features >= 2:
        grams += ["s" + key for key in token_shape(before)]
    return grams


def reading_grams(reading: str, top: int = 2) -> list[str]:
    """Feature strings of a reading: word n-grams with boundaries, words by position from each end, count."""
    words = reading.split()
    padded = ["<s>", *words, "</s>"]
    grams = ["w" + " ".join(padded[i: i + n]) for n in range(1, top + 1) for i in range(len(padded) - n + 1)]
    grams += [f"p{i}:{word}" for i, word in enumerate(words[:MAX_POSITION])]
    grams += [f"e{i}:{word}" for i, word in enumerate(reversed(words[-MAX_POSITION:]))]
    grams.append(f"n{min(len(words), 24)}")
    return grams


def _digit_runs(text: str) -> list[str]:
    """Runs of digits of a token (thousands separators inside a run skipped)."""
    return [run.replace(",", "") for run in re.findall(r"\d(?:[\d]|,(?=\d))*", text)]


def input_keys(before: str, features: int = 1) -> list[str]:
    """Key features of a token for the interaction term: digits (and digit pairs) by place, letters, words
    (and, from feature version 2, its shape)."""
    keys = []
    runs = _digit_runs(before)
    for number, run in enumerate(runs[:4]):
        size = min(len(run), MAX_DIGIT_POSITION)
        digits = run[::-1]
        for place, digit in enumerate(digits[:MAX_DIGIT_POSITION]):
            keys.append(f"d{digit}@{place}/{size}")
            keys.append(f"r{number}d{digit}@{place}/{size}")
            if place + 1 < len(digits):
                keys.append(f"dd{digits[place + 1]}{digit}@{place}/{size}")
        keys.append(f"run{number}/{len(runs)}:{size}")
    lower = before.lower()
    keys += [f"t:{word}" for word in re.findall(r"[^\W\d_]+", lower)]
    keys += [f"c{i}:{char}" for i, char in enumerate(lower[:MAX_POSITION]) if not char.isdigit()]
    keys += [f"x:{char}" for char in sorted(set(lower)) if not char.isalnum() and not char.isspace()]
    keys.append(f"len{min(len(before), 24)}")
    if re.search(r"\d(st|nd|rd|th)\b", lower):
        keys.append("ordinal-suffix")
    if features >= 2:
        keys += ["s:" + key for key in token_shape(before)]
    return keys


def output_keys(reading: str) -> list[str]:
    """Key features of a reading for the interaction term: words, words by position, word count."""
    words = reading.split()
    keys = [f"w:{word}" for word in words]
    keys += [f"p{i}:{word}" for i, word in enumerate(words[:MAX_POSITION])]
    keys += [f"e{i}:{word}" for i, word in enumerate(reversed(words[-MAX_POSITION:]))]
    keys.append(f"n{min(len(words), 24)}")
    ordinals = [word for word in words if word in ORDINAL_WORDS]
    keys.append(f"ordinals{min(len(ordinals), 2)}")
    for i in range(len(words) - 2):
        if words[i] == "the" and words[i + 2] == "of" and number_word(words[i + 1]) is not None:
            keys.append("the-ordinal-of" if words[i + 1] in ORDINAL_WORDS else "the-cardinal-of")
    return keys


def _letters(reading: str) -> str:
    """Letters a reading spells out: one-letter words, "x's" plurals (as "xs") and "x_letter" words, joined."""
    letters = []
    for word in reading.split():
        word = word.removesuffix("_letter")
        plural = word.endswith("'s")
        word = word.removesuffix("'s")
        if len(word) == 1 and word.isalpha():
            letters.append(word + ("s" if plural else ""))
    return "".join(letters)


def _bucket(value: float) -> int:
    return min(10, int(value * 10 + 1e-9))


def pair_keys(before: str, reading: str, features: int = 1) -> list[str]:
    """Delexicalised features of how a reading matches its token: numbers the reading spells that are (not)
    among the token's digit runs, spelled letters against the token's letters, months, and the character
    similarity of the token and the reading. From feature version 2, a trivial reading (`<self>`, `sil`) gets
    the token's shape crossed with it instead (the string matching means nothing there)."""
    from difflib import SequenceMatcher

    if features >= 2 and reading in TRIVIAL_TARGETS:
        return [f"trivial:{reading}", *(f"trivial:{reading}:{key}" for key in token_shape(before))]

    keys = []
    lower = before.lower()
    runs = {run.lstrip("0") or "0" for run in _digit_runs(before)}
    spelled, whole = reading_numbers(reading)
    if runs or spelled:
        matched = sum(1 for run in runs if run in spelled)
        keys.append(f"num{min(matched, 4)}/{min(len(runs), 4)}")
        keys.append("num_all" if matched == len(runs) else "num_missing")
        explained = sum(1 for forms in whole if forms & runs)
        keys.append(f"said{min(explained, 4)}/{min(len(whole), 4)}")
        keys.append("said_all" if explained == len(whole) else "said_extra")
        if runs and not spelled:
            keys.append("num_unspoken")
        if spelled and not runs:
            keys.append("num_unwritten")
    letters = "".join(char for char in lower if char.isalpha())
    said = _letters(reading)
    if said or letters:
        ratio = SequenceMatcher(None, letters, said, autojunk=False).ratio() if said and letters else 0.0
        keys.append(f"let{_bucket(ratio)}")
        keys.append("let_eq" if said == letters else ("let_in" if said and said in letters else "let_ne"))
        keys.append(f"letlen{max(-3, min(3, len(said) - len(letters)))}")
    words = set(reading.split())
    written_months = {m for m in MONTHS if m[:3] in re.findall(r"[a-z]+", lower) or m in lower}
    read_months = words & set(MONTHS)
    if written_months or read_months:
        numbered = {m for m in read_months if str(MONTHS.index(m) + 1) in runs}
        keys.append("month_eq" if written_months == read_months else "month_missing" if not read_months
                    else ("month_number" if numbered else "month_unwritten") if not written_months
                    else "month_ne")
    compact = reading.replace(" ", "")
    keys.append(f"sim{_bucket(SequenceMatcher(None, lower, compact, autojunk=False).ratio())}")
    return keys


def word_grams(word: str, top: int = 4) -> list[str]:
    """Feature strings of one output word: the word itself and its character n-grams (n ≥ 2)."""
    return ["W" + word] + ["c" + g for g in _char_grams(word, top) if len(g) >= 2]


class Featurizer:
    """Turns texts into hashed feature ids (with a per-string cache) packed for `nn.EmbeddingBag`."""

    def __init__(self, config: DualEncoderConfig, cache_limit: int = 200_000):
        self.config = config
        self._cache: dict[tuple[str, str], list[int]] = {}
        self._key_cache: dict[tuple[str, str], np.ndarray] = {}
        self._cross_cache: dict[tuple[str, str], np.ndarray] = {}
        self._limit = cache_limit

    def _ids(self, side: str, text: str) -> list[int]:
        key = (side, text)
        found = self._cache.get(key)
        if found is not None:
            return found
        c = self.config
        if side == "input":
            grams, buckets = input_grams(text, c.char_ngrams, c.features), c.input_buckets
        elif side == "reading":
            grams, buckets = reading_grams(text, c.word_ngrams), c.output_buckets
        else:
            grams, buckets = word_grams(text, c.char_ngrams), c.output_buckets
        ids = sorted({stable_hash64(side, g, seed=c.hash_seed) % buckets for g in grams})
        if len(self._cache) >= self._limit:
            self._cache.clear()
        self._cache[key] = ids
        return ids

    def _keys(self, side: str, text: str) -> np.ndarray:
        key = ("key-" + side, text)
        found = self._key_cache.get(key)
        if found is None:
            grams = input_keys(text, self.config.features) if side == "input" else output_keys(text)
            found = np.array(sorted({stable_hash64(side, g, seed=self.config.hash_seed) for g in grams}),
                             dtype=np.uint64)
            if len(self._key_cache) >= self._limit:
                self._key_cache.clear()
            self._key_cache[key] = found
        return found

    def cross_ids(self, before: str, reading: str) -> np.ndarray:
        """Hashed ids of every (input key, reading key) pair of one token and reading."""
        key = (before, reading)
        found = self._cross_cache.get(key)
        if found is None:
            left, right = self._keys("input", before), self._keys("reading", reading)
            mixed = mix64(mix64(left)[:, None] ^ right[None, :]).ravel()
            matches = [stable_hash64("pair", g, seed=self.config.hash_seed)
                       for g in pair_keys(before, reading, self.config.features)]
            mixed = np.concatenate([mixed, np.array(matches, dtype=np.uint64)])
            found = np.unique(mixed % np.uint64(self.config.cross_buckets)).astype(np.int64)
            if len(self._cross_cache) >= self._limit:
                self._cross_cache.clear()
            self._cross_cache[key] = found
        return found

    def pack_cross(self, befores: Sequence[str], readings: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """(flat ids, offsets) of the interaction features of aligned (token, reading) pairs."""
        parts = [self.cross_ids(b, r) for b, r in zip(befores, readings, strict=True)]
        sizes = np.array([len(p) for p in parts], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if len(parts) else np.zeros(0, dtype=np.int64)
        flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return torch.from_numpy(flat), torch.from_numpy(offsets.astype(np.int64))

    def pack(self, side: str, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """(flat ids, offsets) of many texts for one side: "input", "reading" or "word"."""
        flat: list[int] = []
        offsets: list[int] = []
        for text in texts:
            offsets.append(len(flat))
            flat.extend(self._ids(side, text))
        return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)

    def output_side(self) -> str:
        return "reading" if self.config.kind == "sequence" else "word"
