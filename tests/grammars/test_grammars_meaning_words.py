"""The grammar's meaning words (`grammars.meaning_words`): units, currencies and scales from its own tables,
singular and plural as one, letters spelt never counted, scales only where the token has letters."""

from __future__ import annotations

import pytest

pytest.importorskip("pynini")

from tnforge.grammars.meaning_words import meaning_words  # noqa: E402


def test_units_currencies_and_scales_are_known_by_their_identity():
    words = meaning_words()
    assert words.of("three kilograms", "3kg") == words.of("three kilogram", "3kg") == frozenset({"kilogram"})
    assert words.of("two hundred twenty one byte", "221B") == frozenset({"byte"})
    assert words.of("three dollars fifty cents", "$3.50") == frozenset({"dollar", "cent"})
    assert words.of("twelve billion", "12B") == frozenset({"billion"})
    assert words.of("one thousand", "1000") == frozenset()  # a scale read from the digits adds nothing
    assert words.of("five g", "5G") == words.of("m m", "mm") == frozenset()  # letters spelt say no unit
    assert words.of("b fifty two", "B52") == frozenset()
