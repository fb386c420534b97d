"""DIGIT: digit strings read one digit at a time (0 → o / zero / oh): 2007 → two o o seven."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import digit_path
from tnforge.grammars.lattice import Lattice

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_DIGITS = re.compile(r"^\D{0,2}(\d+)\D{0,2}$")


def lattice(g: Grammar, token: str) -> Lattice:
    """DIGIT readings (stray non-digits around the number, as in "43365-", are not read)."""
    match = _DIGITS.match(token.strip())
    return [digit_path(g, match.group(1))] if match else []
