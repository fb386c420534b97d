"""ELECTRONIC: URLs, domains, hashtags: letters read as words or spelled, digits one by one (or as a number),
symbols by name (dot, slash, colon, dash, underscore, hash tag).

The corpus writes these readings one character at a time (`b_letter a_letter … dot n_letter e_letter t_letter`);
`decode_letters` turns that into plain words ("battle dot net") and `encode_letters` back. The lattice
over-generates (every run read as a word or spelt) and always holds the one reading the corpus writes
(`electronic_reading.verbalize`), which is the class's deterministic reading (`Grammar.reading`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, digit_path
from tnforge.grammars.en.electronic_reading import NAMES, spoken_words, verbalize
from tnforge.grammars.lattice import Lattice, TokenReadings, alt, cat, words
from tnforge.letter_spelling import decode_letters, encode_letters

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_PIECE = re.compile(r"[A-Za-z]+|\d+|.", re.UNICODE)


def _letters(run: str) -> tuple[str, ...]:
    """A run of letters read as a word, spelled, or spelled then a word (USATODAY → u s a today)."""
    from tnforge.grammars.en.plain import american

    lower = run.lower()
    choices = [lower, " ".join(lower), *sorted(american(lower))]
    choices += [f"{' '.join(lower[:k])} {lower[k:]}" for k in range(1, len(run) - 1)]
    return tuple(dict.fromkeys(choices))


def lattice(g: Grammar, token: str) -> Lattice:
    """ELECTRONIC readings (plain words; `licenses` also accepts the corpus's letter encoding)."""
    text = token.strip()
    if not any(char.isalpha() or char in "#@" for char in text):
        return []
    slots: list[tuple[str, ...]] = []
    for piece in _PIECE.findall(text):
        if piece.isdigit():
            number = cardinal_strings(g, piece) if len(piece) <= 4 else ()
            path = digit_path(g, piece)
            if number:
                slots.append(tuple(dict.fromkeys((*number, *(" ".join(c[0] for c in path),)))))
            else:
                slots.extend(path)
        elif piece.isalpha():
            slots.append(_letters(piece))
        elif piece in NAMES:
            slots.append(tuple(n for n in (NAMES[piece], *g.symbols.get(piece, ())) if n != "number"))
        elif piece.isspace():
            continue
        else:
            slots.append(g.symbols.get(piece, (piece,)))
    found = cat([tuple(slots)], words("")) if slots else []
    plain = " ".join(spoken_words(text))
    return alt(found, words(plain)) if plain and plain not in TokenReadings(found) else found


__all__ = ["decode_letters", "encode_letters", "lattice", "verbalize"]
