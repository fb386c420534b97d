"""Dual encoders of Gokcen, Zhang & Sproat (2019): string-pair classifiers used as decoding constraints.

* Sequence dual encoder: an input tower over hashed character n-gram features of the written token and a
  reading tower over hashed word n-gram features of a reading; a small network on [u, v, |u − v|, u ⊙ v]
  gives p(the reading is acceptable for the token).
  With `cross_buckets` > 0 the sequence kind adds a "wide" interaction term: a learned weight for every
  hashed pair (input key feature, reading key feature), e.g. (digit 9 in the tens place of a 4-digit run,
  reading word "ninety"), and for delexicalised pair-matching features (`pair_keys`: do the numbers the
  reading spells match the token's digits, the spelled letters its letters, the months its months), summed
  into the logit. The towers alone must learn such digit-to-word mappings
  through two compressed vectors, which near-miss readings ("nineteen ninety six" for 1995) expose.
* Vocabulary-filter dual encoder: the same input tower and a word tower (the word itself plus its
  character n-grams) → p(the word may appear in the token's reading).

Feature version 2 (`features`) adds the token's shape (case, letters, vowels, digits) to the input features and,
for the trivial readings `<self>` and `sil`, pair features of that shape instead of the string matching: a
model trained on trivial pairs too (`trivial`, see `tnforge.generators.trivial_confusions`) judges whether a
token is read as written, and the decoding constraints then stop exempting trivial readings.

Features are hashed into fixed tables with `tnforge.hashing.stable_hash64` (never Python's salted `hash()`),
so a checkpoint needs no vocabulary: the hash seed and table sizes in its config are enough.
The `dot` head (a weighted dot product) scores a whole vocabulary with one matrix product; the `mlp` head
scores a [B × V] matrix in chunks through the same first layer split into per-input, per-word and per-pair
parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from tnforge.hashing import mix64, stable_hash64
from tnforge.schemas import TRIVIAL_TARGETS
from tnforge.trainers.config_dicts import known_fields

KINDS = ("sequence", "vocabulary")
#: Feature version of new models (see the module docstring).
FEATURES = 2
_VOWELS = frozenset("aeiouy")
HEADS = ("mlp", "dot")
#: Digit positions (counted from the right of a digit run) that get their own features.
MAX_DIGIT_POSITION = 12
#: Characters of a token / words of a reading (from either end) that get positional features.
MAX_POSITION = 8


@dataclass
class DualEncoderConfig:
    """Sizes and feature settings of a dual encoder (stored in checkpoints)."""

    kind: str = "sequence"  # "sequence" (input, reading) or "vocabulary" (input, word)
    head: str = "mlp"  # "mlp" on [u, v, |u−v|, u*v], or "dot"
    input_buckets: int = 1 << 16
    output_buckets: int = 1 << 16
    embedding: int = 64
    hidden: int = 128
    dim: int = 64
    head_hidden: int = 64
    dropout: float = 0.1
    char_ngrams: int = 4  # character n-grams of the token, n = 1..char_ngrams
    word_ngrams: int = 2  # word n-grams of the reading, n = 1..word_ngrams
    hash_seed: int = 7
    cross_buckets: int = 0  # sequence kind: hashed (input key × reading key) interaction weights; 0 = none
    features: int = FEATURES  # feature version (checkpoints without one are version 1)
    trivial: bool = False  # trained on trivial readings (<self>/sil) too: it judges them

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DualEncoderConfig:
        return cls(**known_fields(cls, data))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown dual encoder kind {self.kind!r} (use {' or '.join(KINDS)})")
        if self.head not in HEADS:
            raise ValueError(f"unknown head {self.head!r} (use {' or '.join(HEADS)})")
        if self.features not in (1, 2):
            raise ValueError(f"unknown feature version {self.features} (this tnforge knows 1 and 2)")
        if self.cross_buckets and self.kind != "sequence":
            raise ValueError("interaction features (cross_buckets) exist for the sequence kind only")


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
    ordinals = [word for word in words if word in _ORDINAL_WORDS]
    keys.append(f"ordinals{min(len(ordinals), 2)}")
    for i in range(len(words) - 2):
        if words[i] == "the" and words[i + 2] == "of" and _number_word(words[i + 1]) is not None:
            keys.append("the-ordinal-of" if words[i + 1] in _ORDINAL_WORDS else "the-cardinal-of")
    return keys


#: Number words of readings (cardinal value, ordinal flag) for the pair-matching features.
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL_UNITS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                  "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9, "trillion": 10 ** 12}
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(_UNITS)}
NUMBER_WORDS.update({w: 20 + 10 * i for i, w in enumerate(_TENS)})
NUMBER_WORDS.update({w: i for i, w in enumerate(_ORDINAL_UNITS)})
NUMBER_WORDS.update({w[:-1] + "ieth": 20 + 10 * i for i, w in enumerate(_TENS)})
NUMBER_WORDS.update({"o": 0, "oh": 0})
NUMBER_WORDS.update({w + "th": v for w, v in _SCALES.items()})
_ORDINAL_WORDS = frozenset([*_ORDINAL_UNITS, *(w[:-1] + "ieth" for w in _TENS), *(w + "th" for w in _SCALES)])
MONTHS = ("january february march april may june july august september october november december").split()


def _number_word(word: str) -> int | None:
    if word in NUMBER_WORDS or word in _SCALES:
        return NUMBER_WORDS.get(word, _SCALES.get(word))
    if word.endswith("s") and word[:-1] in NUMBER_WORDS:  # "fives", "twenties" (after the ies → y fix below)
        return NUMBER_WORDS[word[:-1]]
    if word.endswith("ies") and word[:-3] + "y" in NUMBER_WORDS:
        return NUMBER_WORDS[word[:-3] + "y"]
    return None


def _cardinal(words: list[str]) -> int | None:
    """Value of number words read as one cardinal ("twenty eight thousand four hundred"), None if not one."""
    total = current = 0
    last = None  # kind of the previous word: unit, teen, tens, hundred, scale
    for word in words:
        value = _number_word(word)
        if value is None:
            return None
        base = word[:-1] if word.endswith("th") and word[:-2] in _SCALES else word
        if base in _SCALES:
            if base == "hundred":
                if last == "hundred":
                    return None
                current = (current or 1) * 100
                last = "hundred"
            else:
                total += (current or 1) * _SCALES[base]
                current = 0
                last = "scale"
            continue
        if value >= 20 and value % 10 == 0 and value < 100:
            if last in ("unit", "tens", "teen"):
                return None
            current += value
            last = "tens"
        else:
            if last in ("unit", "teen") or (last == "tens" and value >= 10):
                return None
            current += value
            last = "teen" if value >= 10 else "unit"
    return total + current


def reading_numbers(reading: str) -> tuple[set[str], list[set[str]]]:
    """Digit strings a reading may spell: (every reading of every stretch of number words, and per maximal run
    the readings of the whole run). A run reads as a cardinal, digit by digit, or as a year ("nineteen
    ninety five", "nineteen o five"); one ending in a large scale word also without it ("ninety billion" → 90)."""
    found: set[str] = set()
    whole: list[set[str]] = []
    run: list[str] = []
    for word in reading.split() + [""]:
        if word and _number_word(word) is not None:
            run.append(word)
            continue
        if run:
            parts, full = _run_numbers(run)
            found |= parts
            whole.append(full)
        run = []
    return found, whole


def _run_numbers(run: list[str]) -> tuple[set[str], set[str]]:
    out: set[str] = set()
    full: set[str] = set()
    for start in range(len(run)):
        for end in range(start + 1, len(run) + 1):
            part = run[start:end]
            value = _cardinal(part)
            if value is None:
                continue
            forms = {str(value)}
            if part[-1] in ("million", "billion", "trillion") and len(part) > 1:
                forms.add(str(_cardinal(part[:-1])))
            out |= forms
            if start == 0 and end == len(run):
                full |= forms
    before_years = set(out)
    values = [_number_word(w) for w in run]
    if all(v is not None and v < 10 for v in values):
        out.add("".join(str(v) for v in values))
    if len(run) >= 2:  # years and digit pairs: "nineteen ninety five", "nineteen o five", "twenty fifteen"
        for split in range(1, len(run)):
            left, right = _cardinal(run[:split]), run[split:]
            if left is None or not 10 <= left <= 99:
                continue
            if right[0] in ("o", "oh") and len(right) == 2 and _cardinal(right[1:]) is not None:
                tail = _cardinal(right[1:])
                if tail is not None and tail < 10:
                    out.add(f"{left}0{tail}")
            else:
                tail = _cardinal(right)
                if tail is not None and 10 <= tail <= 99:
                    out.add(f"{left}{tail:02d}")
            if right == ["hundred"]:
                out.add(f"{left}00")
    full |= out - before_years
    return out, full


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


class Tower(nn.Module):
    """Hashed-feature embedding bag followed by a two-layer MLP."""

    def __init__(self, buckets: int, embedding: int, hidden: int, dim: int, dropout: float):
        super().__init__()
        self.bag = nn.EmbeddingBag(buckets, embedding, mode="mean", sparse=True)
        self.net = nn.Sequential(nn.Linear(embedding, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, dim))

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.net(self.bag(ids, offsets))


class DualEncoder(nn.Module):
    """Two towers and a head: logits of p(acceptable) for (input, output) pairs."""

    def __init__(self, config: DualEncoderConfig):
        super().__init__()
        config.check()
        self.config = c = config
        self.input_tower = Tower(c.input_buckets, c.embedding, c.hidden, c.dim, c.dropout)
        self.output_tower = Tower(c.output_buckets, c.embedding, c.hidden, c.dim, c.dropout)
        if c.head == "mlp":
            self.first = nn.Linear(4 * c.dim, c.head_hidden)
            self.second = nn.Linear(c.head_hidden, 1)
        else:
            self.weight = nn.Parameter(torch.ones(c.dim))
            self.bias = nn.Parameter(torch.zeros(1))
        if c.cross_buckets:
            self.cross = nn.EmbeddingBag(c.cross_buckets, 1, mode="sum", sparse=True)
            nn.init.zeros_(self.cross.weight)

    def encode_inputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.input_tower(ids, offsets)

    def encode_outputs(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.output_tower(ids, offsets)

    def pair_logits(self, u: torch.Tensor, v: torch.Tensor,
                    cross: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """Logits [N] of aligned pairs u[i], v[i] (plus the interaction term of packed `cross` ids, if any)."""
        if self.config.head == "dot":
            logits = (u * self.weight * v).sum(-1) / self.config.dim ** 0.5 + self.bias
        else:
            features = torch.cat([u, v, (u - v).abs(), u * v], dim=-1)
            logits = self.second(torch.relu(self.first(features))).squeeze(-1)
        if self.config.cross_buckets:
            if cross is None:
                raise ValueError("this dual encoder has interaction features: pass the packed cross ids")
            logits = logits + self.cross(*cross).squeeze(-1)
        return logits

    def matrix_logits(self, u: torch.Tensor, v: torch.Tensor, chunk: int = 1 << 20) -> torch.Tensor:
        """Logits [B, V] of every input u[b] with every output v[j] (chunked to bound memory)."""
        if self.config.head == "dot":
            return (u * self.weight) @ v.T / self.config.dim ** 0.5 + self.bias
        d = self.config.dim
        w = self.first.weight  # [H, 4d]
        w_u, w_v, w_a, w_m = w[:, :d], w[:, d:2 * d], w[:, 2 * d:3 * d], w[:, 3 * d:]
        part_u = u @ w_u.T + self.first.bias  # [B, H]
        part_v = v @ w_v.T  # [V, H]
        rows = max(1, chunk // max(1, v.shape[0] * d))
        out = []
        for start in range(0, u.shape[0], rows):
            uu = u[start: start + rows, None, :]  # [b, 1, d]
            pre = (part_u[start: start + rows, None, :] + part_v[None, :, :]
                   + (uu - v[None]).abs() @ w_a.T + (uu * v[None]) @ w_m.T)
            out.append(self.second(torch.relu(pre)).squeeze(-1))
        return torch.cat(out, dim=0)

    def forward(self, in_ids: torch.Tensor, in_offsets: torch.Tensor, out_ids: torch.Tensor,
                out_offsets: torch.Tensor, cross: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        return self.pair_logits(self.encode_inputs(in_ids, in_offsets), self.encode_outputs(out_ids, out_offsets),
                                cross)


# --- checkpoints and scoring ------------------------------------------------------------------------------

FORMAT = "tnforge-dual-encoder"
FORMAT_VERSION = 1
BEST = "best.pt"
LAST = "checkpoint.pt"


def save_dual_encoder(path: str, model: DualEncoder, config: dict[str, Any],
                      training: dict[str, Any] | None = None, metrics: dict[str, Any] | None = None) -> None:
    """Write a dual encoder checkpoint atomically (weights, model config, training config, version)."""
    import io

    from tnforge import __version__
    from tnforge.filesystems import write_atomically

    payload = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "tnforge_version": __version__,
        "torch_version": str(torch.__version__), "model_config": model.config.to_dict(), "config": config,
        "metrics": metrics or {}, "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "training": training or {},
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    with write_atomically(str(path)) as handle:
        handle.write(buffer.getvalue())


def checkpoint_file(path: str | Any) -> Any:
    """best.pt (else checkpoint.pt) of a run directory, or the checkpoint file itself."""
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        for name in (BEST, LAST):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path}: no {BEST} or {LAST} in this dual encoder run directory")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such dual encoder checkpoint")
    return path


def load_payload(path: str | Any, device: torch.device | str = "cpu") -> dict[str, Any]:
    """Read a dual encoder checkpoint (file or run directory) with tensors on `device`."""
    file = checkpoint_file(path)
    try:
        payload = torch.load(file, map_location=device, weights_only=True)
    except Exception as error:  # noqa: BLE001 - any unpickling problem means "not a checkpoint"
        raise ValueError(f"{file}: not a readable tnforge checkpoint ({error})") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{file}: not a tnforge dual encoder checkpoint")
    if payload.get("format_version", 0) > FORMAT_VERSION:
        raise ValueError(f"{file}: checkpoint format {payload['format_version']} is newer than this tnforge")
    return payload


class DualEncoderScorer:
    """A trained dual encoder ready to score: probabilities for pairs, encoded inputs, whole vocabularies."""

    def __init__(self, model: DualEncoder, device: torch.device | str = "cpu", path: Any = None,
                 metrics: dict[str, Any] | None = None):
        self.model = model.to(device).eval()
        self.device = torch.device(device)
        self.config = model.config
        self.featurizer = Featurizer(model.config)
        self.path = path
        self.metrics = metrics or {}
        self._word_cache: dict[tuple[str, ...], torch.Tensor] = {}

    @property
    def kind(self) -> str:
        return self.config.kind

    @property
    def judges_trivial(self) -> bool:
        """Whether the model was trained on trivial readings (`<self>`, `sil`), so its scores of them count."""
        return bool(self.config.trivial)

    @property
    def needs_befores(self) -> bool:
        """Whether `score_encoded` needs the written tokens too (a model with interaction features)."""
        return bool(self.config.cross_buckets)

    def _packed(self, side: str, texts: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        ids, offsets = self.featurizer.pack(side, texts)
        return ids.to(self.device), offsets.to(self.device)

    @torch.no_grad()
    def encode_inputs(self, befores: Sequence[str]) -> torch.Tensor:
        """Input vectors u [N, dim] of written tokens."""
        return self.model.encode_inputs(*self._packed("input", befores))

    @torch.no_grad()
    def encode_outputs(self, texts: Sequence[str]) -> torch.Tensor:
        """Output vectors v [N, dim] of readings (sequence kind) or words (vocabulary kind)."""
        return self.model.encode_outputs(*self._packed(self.featurizer.output_side(), texts))

    @torch.no_grad()
    def score_encoded(self, u: torch.Tensor, texts: Sequence[str],
                      befores: Sequence[str] | None = None) -> torch.Tensor:
        """p(acceptable) [N] of aligned (encoded input u[i], output text i) pairs; `befores` (the tokens of u)
        are needed by a model with interaction features."""
        if not len(texts):
            return torch.zeros(0, device=self.device)
        cross = None
        if self.needs_befores:
            if befores is None:
                raise ValueError("this sequence dual encoder has interaction features: pass the tokens too")
            ids, offsets = self.featurizer.pack_cross(befores, texts)
            cross = (ids.to(self.device), offsets.to(self.device))
        return torch.sigmoid(self.model.pair_logits(u, self.encode_outputs(texts), cross))

    @torch.no_grad()
    def score(self, befores: Sequence[str], texts: Sequence[str], batch_size: int = 4096) -> torch.Tensor:
        """p(acceptable) [N] of aligned (token, reading-or-word) pairs, on CPU."""
        out = []
        for start in range(0, len(befores), batch_size):
            u = self.encode_inputs(befores[start: start + batch_size])
            out.append(self.score_encoded(u, texts[start: start + batch_size],
                                          befores[start: start + batch_size]).float().cpu())
        return torch.cat(out) if out else torch.zeros(0)

    @torch.no_grad()
    def score_matrix(self, befores: Sequence[str], words: Sequence[str]) -> torch.Tensor:
        """p(word may appear) [B, V] of every token with every word (word vectors cached per word list)."""
        key = tuple(words)
        v = self._word_cache.get(key)
        if v is None:
            v = self.encode_outputs(list(words))
            self._word_cache = {key: v}
        return torch.sigmoid(self.model.matrix_logits(self.encode_inputs(befores), v))


def load_dual_encoder(path: str | Any, device: torch.device | str = "cpu") -> DualEncoderScorer:
    """Load a trained dual encoder (eval mode) from a run directory or checkpoint file."""
    payload = load_payload(path, device)
    # Checkpoints written before feature versions existed used version 1.
    model = DualEncoder(DualEncoderConfig.from_dict({"features": 1, **payload["model_config"]}))
    model.load_state_dict(payload["model"])
    return DualEncoderScorer(model, device, checkpoint_file(path), payload.get("metrics"))
