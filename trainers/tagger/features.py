"""Context features of the semiotic-class tagger: a pure function of a sentence's tokens and the model's
lexicon (frequent words; per token and per lower-cased form seen in training, its class counts).

Per token: its characters (codes of the first and last ones: prefix and suffix), shape (case, digits,
punctuation, spaces, vowels), length, number-like traits, its rank among frequent words and its training
class shares, its pronounceability and whether the CMU Pronouncing Dictionary holds it (read as a word or
spelt out); per neighbour at ±1 and ±2: a smaller set (shape, first character, word rank, month name,
dictionary); per sentence: the token's position, the share of words in capitals and of dictionary words.
NumPy only: no Beam, pynini, torch.
"""

from __future__ import annotations

import math
import re
import string
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tnforge.trainers.tagger.dictionary import DICTIONARY_NAMES, dictionary_key, dictionary_traits
from tnforge.trainers.tagger.pronounce import (
    CASE_NAMES,
    DIGIT_NAMES,
    LETTER_NAMES,
    CharModel,
    case_traits,
    digit_traits,
    letter_traits,
    letters,
)

#: Bumped whenever the features change: a model records it and refuses other versions.
FEATURES_VERSION = 5
#: Neighbour offsets that get their own features.
OFFSETS = (-2, -1, 1, 2)

_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split())
_ROMAN = re.compile(r"^(?=[MDCLXVI])M*(C[MD]|D?C{0,3})(X[CL]|L?X{0,3})(I[XV]|V?I{0,3})$")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_PUNCT = frozenset(string.punctuation) | frozenset("—–«»“”‘’…")
_CURRENCY = frozenset("$€£¥₹")
_VOWELS = frozenset("aeiouy")
_FIRST, _LAST = 4, 3
_NAN = float("nan")


def _code(char: str | None) -> float:
    return float(ord(char)) if char is not None else -1.0


def shape(token: str) -> str:
    """Collapsed word shape: X upper, x lower, d digit, other characters as themselves ("Xx", "d:d", "$d")."""
    out: list[str] = []
    for char in token:
        kind = "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() else char
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)


def _consonant_run(text: str) -> int:
    longest = run = 0
    for char in text.lower():
        run = run + 1 if char.isalpha() and char not in _VOWELS else 0
        longest = max(longest, run)
    return longest


def _token_features(token: str, rank: int, shares: Sequence[float], seen: float) -> list[float]:
    """The features of one token on its own (see TOKEN_NAMES)."""
    text = token.strip()
    n = len(text)
    digits = sum(c.isdigit() for c in text)
    upper = sum(c.isupper() for c in text)
    lower = sum(c.islower() for c in text)
    alpha = sum(c.isalpha() for c in text)
    punct = sum(c in _PUNCT for c in text)
    words = text.split()
    number = _NUMBER.search(text)
    value = float(number.group(0).replace(",", "")) if number else -1.0
    bare = text.rstrip(".")
    return [
        n, digits, upper, lower, alpha, text.count(" "), punct, sum(ord(c) > 127 for c in text), len(words),
        *(_code(text[i]) if i < n else -1.0 for i in range(_FIRST)),
        *(_code(text[-i]) if i <= n else -1.0 for i in range(1, _LAST + 1)),
        float(text.istitle()), float(alpha > 0 and upper == alpha), float(alpha > 0 and lower == alpha),
        float(n > 0 and digits == n), float(n > 0 and punct == n),
        text.count("."), text.count(","), text.count(":"), text.count("/"), text.count("-"),
        float(any(c in _CURRENCY for c in text)), float("%" in text),
        float(bool(_ROMAN.match(bare))) if bare else 0.0,
        float(any(w.lower().rstrip(".,") in _MONTHS for w in words)),
        math.log10(value + 1.0) if value >= 0 else -1.0,
        len(_NUMBER.findall(text)),
        float(zlib.crc32(shape(text).encode("utf-8")) % 100_003),
        float(rank), sum(c in _VOWELS for c in text.lower()), _consonant_run(text), seen, *shares,
    ]


@dataclass
class Lexicon:
    """What the features know of the training data: frequent lower-cased words (by rank) and, for each token
    seen in training (and each lower-cased form), how often each class labelled it."""

    classes: tuple[str, ...]
    words: dict[str, int] = field(default_factory=dict)
    counts: dict[str, list[int]] = field(default_factory=dict)
    lower: dict[str, list[int]] = field(default_factory=dict)
    plain: CharModel = field(default_factory=CharModel)  # letters of the PLAIN words (pronounceable)
    spelt: CharModel = field(default_factory=CharModel)  # letters of the LETTERS tokens (spelt out)

    @classmethod
    def fit(cls, sentences: Iterable[Sequence[str]], labels: Iterable[Sequence[str]], classes: Sequence[str],
            max_words: int = 2000, words: dict[str, int] | None = None) -> Lexicon:
        """Learn the lexicon from training sentences and their classes (deterministic: ties by text);
        `words`, when given, is used as the frequent-word ranks instead of counting them."""
        index = {name: i for i, name in enumerate(classes)}
        frequency: Counter = Counter()
        by_token: dict[str, list[int]] = {}
        by_lower: dict[str, list[int]] = {}
        plain: list[str] = []
        spelt: list[str] = []
        for tokens, tags in zip(sentences, labels, strict=True):
            for token, tag in zip(tokens, tags, strict=True):
                if tag == "PLAIN" and token.replace("'", "").replace("-", "").isalpha():
                    plain.append(letters(token))
                elif tag == "LETTERS":
                    spelt.append(letters(token))
                frequency[token.lower()] += 1
                by_token.setdefault(token, [0] * len(classes))[index[tag]] += 1
                by_lower.setdefault(token.lower(), [0] * len(classes))[index[tag]] += 1
        if words is None:
            ranked = sorted(frequency.items(), key=lambda item: (-item[1], item[0]))[:max_words]
            words = {w: i for i, (w, _) in enumerate(ranked)}
        return cls(tuple(classes), dict(words), dict(sorted(by_token.items())), dict(sorted(by_lower.items())),
                   CharModel.fit(plain), CharModel.fit(spelt))

    def to_dict(self) -> dict:
        return {"classes": list(self.classes), "words": sorted(self.words, key=self.words.__getitem__),
                "counts": self.counts, "lower": self.lower, "plain_ngrams": self.plain.counts,
                "letters_ngrams": self.spelt.counts}

    @classmethod
    def from_dict(cls, data: dict) -> Lexicon:
        return cls(tuple(data["classes"]), {w: i for i, w in enumerate(data["words"])},
                   {t: list(c) for t, c in data["counts"].items()}, {t: list(c) for t, c in data["lower"].items()},
                   CharModel(data["plain_ngrams"]), CharModel(data["letters_ngrams"]))

    def _shares(self, counts: list[int] | None) -> tuple[float, list[float]]:
        seen = float(sum(counts)) if counts else 0.0
        return math.log1p(seen), ([c / seen for c in counts] if counts and seen else [-1.0] * len(self.classes))

    def describe(self, token: str) -> list[float]:
        """The features of one token on its own."""
        seen, shares = self._shares(self.counts.get(token))
        seen_lower, lower_shares = self._shares(self.lower.get(token.lower()))
        text = token.strip()
        word = letters(text)
        plain, plain_worst = self.plain.score(word)
        spelt, spelt_worst = self.spelt.score(word)
        return [*_token_features(token, self.words.get(token.lower(), -1), shares, seen), seen_lower,
                *lower_shares, plain, plain_worst, spelt, spelt_worst, plain - spelt, *letter_traits(word),
                *case_traits(text), *digit_traits(text), *dictionary_traits(dictionary_key(text))]


TOKEN_NAMES = (
    ["len", "digits", "upper", "lower", "alpha", "spaces", "punct", "non_ascii", "words"]
    + [f"char{i}" for i in range(_FIRST)] + [f"char_{i}" for i in range(1, _LAST + 1)]
    + ["title", "all_upper", "all_lower", "all_digits", "all_punct", "dots", "commas", "colons", "slashes",
       "hyphens", "currency", "percent", "roman", "month", "log_value", "numbers", "shape", "word_rank", "vowels",
       "consonant_run", "seen"]
)
#: A neighbour's features ("exists" and a subset of its own, by name).
NEIGHBOUR_NAMES = ("exists", "len", "digits", "char0", "title", "all_upper", "all_lower", "all_digits",
                   "all_punct", "month", "word_rank", "plain_logp", "plain_minus_letters", "lower_share_PLAIN",
                   "cmu_known")
#: Per sentence: the token's position, its length, the share of words in capitals (headlines) and how English
#: its words look (mean log-probability of their letters under the PLAIN model: foreign names, other languages).
SENTENCE_NAMES = ("index", "from_end", "n_tokens", "caps_share", "sentence_plain_logp", "sentence_cmu_share")
#: Pronounceability (mean and least log2-probability of the token's letters under the PLAIN and the LETTERS
#: character models, their difference), syllable shape, case pattern, digit groups.
WORD_NAMES = ("plain_logp", "plain_worst", "letters_logp", "letters_worst", "plain_minus_letters",
              *LETTER_NAMES, *CASE_NAMES, *DIGIT_NAMES, *DICTIONARY_NAMES)


def feature_names(classes: Sequence[str]) -> list[str]:
    """Names of the columns of `features`, in order."""
    own = [*TOKEN_NAMES, *(f"share_{c}" for c in classes), "seen_lower", *(f"lower_share_{c}" for c in classes),
           *WORD_NAMES]
    around = [f"{'m' if o < 0 else 'p'}{abs(o)}_{name}" for o in OFFSETS for name in NEIGHBOUR_NAMES]
    return [*own, *around, *SENTENCE_NAMES]


def _sentence_traits(rows: Sequence[Sequence[float]], at: dict[str, int]) -> list[float]:
    """Share of a sentence's words of two or more letters written in capitals (headlines: "GOAT TO HERO"),
    mean PLAIN log-probability of their letters (NaN without such words)."""
    words = [r for r in rows if r[at["alpha"]] >= 2]
    if not words:
        return [0.0, _NAN, _NAN]
    return [sum(r[at["all_upper"]] for r in words) / len(words), sum(r[at["plain_logp"]] for r in words) / len(words),
            sum(r[at["cmu_known"]] for r in words) / len(words)]


def features(sentences: Sequence[Sequence[str]], lexicon: Lexicon) -> np.ndarray:
    """The float32 feature matrix of every token of `sentences`, in order (one row per token)."""
    rows: list[list[float]] = []
    cache: dict[str, list[float]] = {}
    at = {name: i for i, name in enumerate(feature_names(lexicon.classes))}
    pick = [at.get(name, -1) for name in NEIGHBOUR_NAMES[1:]]  # a missing class share: -1 (never seen)
    empty = [0.0, *(-1.0 if name in ("char0", "word_rank", "lower_share_PLAIN") else _NAN if "logp" in name
                    or "letters" in name or name.startswith("cmu") else 0.0 for name in NEIGHBOUR_NAMES[1:])]
    for tokens in sentences:
        own = []
        for token in tokens:
            if token not in cache:
                cache[token] = lexicon.describe(token)
            own.append(cache[token])
        near = [[1.0, *(r[i] if i >= 0 else -1.0 for i in pick)] for r in own]
        n, sentence = len(tokens), _sentence_traits(own, at)
        for t in range(n):
            around: list[float] = []
            for offset in OFFSETS:
                j = t + offset
                around.extend(near[j] if 0 <= j < n else empty)
            rows.append([*own[t], *around, float(t), float(n - 1 - t), float(n), *sentence])
    width = len(feature_names(lexicon.classes))
    return np.asarray(rows, dtype=np.float32).reshape(-1, width)
