"""The corpus's letter-by-letter encoding of spelt-out readings (URLs): each letter of a word as `x_letter`,
run together, words apart by `  _letter`, `dot` bare — and back to plain words for speech ("battle dot net").
Pure Python, shared by the grammars (which write it) and the decoders (which turn it into words)."""

from __future__ import annotations


def decode_letters(reading: str) -> str:
    """`b_letter a_letter dot n_letter  _letter s_letter` → `ba dot n s` (the corpus's ELECTRONIC encoding)."""
    out = []
    for piece in reading.replace("  _letter", " \0").split(" "):
        if piece == "\0" or piece == "_letter":
            out.append(" ")
        elif piece.endswith("_letter"):
            out.append(piece[: -len("_letter")])
        elif piece:
            out.append(f" {piece} ")
    return " ".join("".join(out).split())


def encode_letters(reading: str) -> str:
    """Plain words → the corpus's encoding: a word's letters as `x_letter` run together, words apart by
    `  _letter`, `dot` bare (`ba dot n s` → `b_letter a_letter dot n_letter  _letter s_letter`)."""
    tokens: list[str] = []
    for index, word in enumerate(reading.split()):
        if word == "dot":
            tokens.append("dot")
            continue
        if index and tokens[-1] != "dot":
            tokens.append("_letter")
        tokens.extend(f"{c}_letter" for c in word)
    return " ".join(tokens).replace(" _letter", "  _letter")
