"""The linguistic features of Mansfield et al. (2019), one value per source piece, each embedded and
concatenated to the piece's embedding: the token's capitalization, the piece's position in its token, and
the token's semiotic class (gold in training; a tagger's at inference). Value 0 of every feature is padding.

POS is not offered: no part-of-speech tagger usable offline is installed with tnforge (the paper's ablation
shows it matters least)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from tnforge.schemas import SEMIOTIC_CLASSES

#: Every feature a model may read, in the order of the source tensor's feature columns.
FEATURES: tuple[str, ...] = ("casing", "position", "class")
CASINGS: tuple[str, ...] = ("upper", "lower", "mixed", "non-alphanumeric", "foreign")
POSITIONS: tuple[str, ...] = ("B", "M", "E", "S")
#: A class the model does not know (a tagger's class absent from training is read as this).
UNKNOWN_CLASS = "<unknown>"
CLASSES: tuple[str, ...] = (UNKNOWN_CLASS, *SEMIOTIC_CLASSES)
#: Values of each feature (the embedding table has one more row: padding).
VALUES: dict[str, tuple[str, ...]] = {"casing": CASINGS, "position": POSITIONS, "class": CLASSES}


def parse_features(text: str) -> tuple[str, ...]:
    """`casing,position,class` (any subset, in any order) or `none` → the features in `FEATURES` order;
    ValueError naming what is unknown (`pos` included: there is no offline POS tagger)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if names == ["none"]:
        return ()
    unknown = [name for name in names if name not in FEATURES]
    if unknown or not names:
        note = " (no part-of-speech tagger usable offline is installed: pos is left out)" if "pos" in unknown else ""
        raise ValueError(f"--features {text!r}: use none or a comma-separated subset of {','.join(FEATURES)}{note}")
    return tuple(name for name in FEATURES if name in names)


def casing(token: str) -> str:
    """upper, lower, mixed (both cases), non-alphanumeric (no letter or digit), foreign (a letter outside the
    Latin script); a token of digits without letters counts as lower."""
    letters = [c for c in token if c.isalpha()]
    if any(not unicodedata.name(c, "").startswith("LATIN") for c in letters):
        return "foreign"
    if not letters:
        return "lower" if any(c.isdigit() for c in token) else "non-alphanumeric"
    upper, lower = any(c.isupper() for c in letters), any(c.islower() for c in letters)
    return "mixed" if upper and lower else "upper" if upper else "lower"


def positions(count: int) -> list[str]:
    """The position of each of a token's `count` pieces: S alone, else B, M…, E."""
    return ["S"] if count == 1 else ["B", *["M"] * (count - 2), "E"]


def feature_ids(token_pieces: Sequence[Sequence[int]], tokens: Sequence[str], classes: Sequence[str | None],
                features: Sequence[str]) -> list[list[int]]:
    """The feature columns of a sentence's pieces: for each feature in `features`, one id (≥ 1) per piece."""
    columns: list[list[int]] = []
    for name in features:
        index = {value: i + 1 for i, value in enumerate(VALUES[name])}
        column: list[int] = []
        for pieces, token, cls in zip(token_pieces, tokens, classes, strict=True):
            if name == "casing":
                column.extend([index[casing(token)]] * len(pieces))
            elif name == "position":
                column.extend(index[p] for p in positions(len(pieces)))
            else:
                column.extend([index.get(cls or UNKNOWN_CLASS, index[UNKNOWN_CLASS])] * len(pieces))
        columns.append(column)
    return columns
