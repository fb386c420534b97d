"""The one ELECTRONIC reading the corpus writes (a deterministic verbaliser, pure Python, no grammar needed).

Studied on the shared sample's train and dev URLs (its test URL held out). Pieces are letter runs, digit
runs and symbols:

* a run of letters is read as one word (`lagrangefootball`, `BioLib` → biolib, `programme` → program), but
  spelt letter by letter when it is `http`/`www` or another name read that way (`edu`, `asp`), ends in a
  glued-on `http` (`nethttp`), has no vowel (`cfm`, `html`), is in capitals (`KNCHR`), is a two-letter
  domain label after a dot (`.cz`, `.ru`; `uk` is a word), and capitals before a capitalised word are
  spelt before it (`GCatholic` → g catholic);
* digits are read one by one (0 → o), a two-digit `%` escape as a number (`%20` → percent twenty);
* symbols by name: `.` dot, `/` slash, `:` colon, `-` dash, `_` underscore, `%` percent …;
* a hashtag reads `hash tag` then its words, in plain words (`#Selfie` → hash tag selfie).

The corpus writes the reading one character at a time: the letters of a word run together
(`w_letter e_letter b_letter`), words apart by `  _letter`, `dot` bare (`encode_letters`).
"""

from __future__ import annotations

import re

from tnforge.grammars.en.plain import reading as american
from tnforge.letter_spelling import encode_letters

_PIECE = re.compile(r"[^\W\d_]+|\d+|\S", re.UNICODE)
_HASHTAG = re.compile(r"^#([^\W_]+)$", re.UNICODE)
_CAMEL = re.compile(r"^([A-Z]+)([A-Z][a-z]{2,})$")
#: Symbols by name (`.` is `dot`, the one name the corpus leaves unspelt).
NAMES = {".": "dot", "/": "slash", ":": "colon", "-": "dash", "_": "underscore", "%": "percent", "#": "hash tag",
         "@": "at", "~": "tilde", "?": "question mark", "=": "equals", "&": "and", "+": "plus"}
#: Names spelt letter by letter although they hold a vowel.
SPELT = frozenset({"http", "https", "www", "edu", "asp", "aspx"})
#: Two-letter domain labels read as a word.
WORDS = frozenset({"uk"})
_DIGITS = ("o", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
          "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_VOWELS = frozenset("aeiouy")


def two_digits(digits: str) -> str:
    """A number under 100 in words (`20` → twenty, `07` → seven, `00` → zero)."""
    value = int(digits)
    if value < 10:
        return "zero" if value == 0 else _DIGITS[value]
    if value < 20:
        return _TEENS[value - 10]
    tens, ones = divmod(value, 10)
    return _TENS[tens] + (f" {_DIGITS[ones]}" if ones else "")


def _word(lower: str) -> str:
    """A word in a URL, in the corpus's American spelling (`programme` → program: `plain.reading`)."""
    return american(lower) or lower


def letter_words(run: str, after_dot: bool = False) -> list[str]:
    """A run of letters as the corpus reads it in a URL: one word, or letters spelt one by one."""
    lower = run.lower()
    camel = _CAMEL.match(run)
    if camel:
        return [*camel.group(1).lower(), _word(camel.group(2).lower())]
    spelt = (lower in SPELT or (lower.endswith("http") and len(lower) > 4)
             or (len(lower) > 1 and (run.isupper() or not _VOWELS & set(lower)))
             or (after_dot and len(lower) == 2 and lower not in WORDS))
    return list(lower) if spelt else [_word(lower)]


def spoken_words(token: str) -> list[str]:
    """The reading in plain words (`Battle.net` → battle dot net, `KNCHR` → k n c h r)."""
    out: list[str] = []
    pieces = _PIECE.findall(token.strip())
    for index, piece in enumerate(pieces):
        before = pieces[index - 1] if index else ""
        if piece[0].isdigit():
            if before == "%" and len(piece) == 2:
                out.extend(two_digits(piece).split())
            else:
                out.extend(_DIGITS[int(d)] if d.isascii() else d for d in piece)
        elif piece[0].isalpha():
            out.extend(letter_words(piece, after_dot=before == "."))
        elif piece in NAMES:
            out.extend(NAMES[piece].split())
    return out


def verbalize(token: str) -> str:
    """The corpus's reading of an ELECTRONIC token (`Battle.net` → `b_letter a_letter t_letter t_letter
    l_letter e_letter dot n_letter e_letter t_letter`; `#Selfie` → `hash tag selfie`); "" for a token
    without a letter, `#` or `@` (no URL: the ELECTRONIC lattice has no reading of it either)."""
    if not any(char.isalpha() or char in "#@" for char in token):
        return ""
    hashtag = _HASHTAG.match(token.strip())
    if hashtag:
        return " ".join(["hash", "tag", *(_word(w) for w in hashtag.group(1).lower().split())])
    return encode_letters(" ".join(spoken_words(token)))
