"""Context windows: the model input for one token, with its neighbours and the token marked."""

from __future__ import annotations

from collections.abc import Sequence

from tnforge.schemas import NORM_CLOSE, NORM_OPEN

DEFAULT_WIDTH = 3


def window_input(tokens: Sequence[str], index: int, width: int = DEFAULT_WIDTH) -> str:
    """`width` tokens either side of tokens[index], space-joined, with the token wrapped in <norm> … </norm>."""
    left = tokens[max(0, index - width): index]
    right = tokens[index + 1: index + 1 + width]
    return " ".join([*left, NORM_OPEN, tokens[index], NORM_CLOSE, *right])


def sentence_windows(tokens: Sequence[str], width: int = DEFAULT_WIDTH) -> list[str]:
    """The window input of every token of a sentence."""
    return [window_input(tokens, i, width) for i in range(len(tokens))]
