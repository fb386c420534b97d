"""Facts about single tokens shared by the build, the samplers and the validators."""

from __future__ import annotations

import re

_NUMBER_PREFIX = re.compile(
    r"^\s*[-+±~≈]?\s*(?:\d[\d,.\s]*\d|\d)(?:\s*(?:thousand|million|billion|trillion)\b)?\s*"
)
_CARDINAL = re.compile(r"^[-−]?(?:\d{1,3}(?:[,\s.]\d{3})+|\d+)$")


def measure_unit(before: str) -> str | None:
    """The unit part of a MEASURE token: "2.5 μm" → "μm", "4,507.4/km²" → "/km²", "31.7%" → "%".

    Returns None when the token has no number prefix followed by a unit.
    """
    match = _NUMBER_PREFIX.match(before)
    if not match:
        return None
    unit = before[match.end():].strip()
    return unit or None


def cardinal_value(before: str) -> int | None:
    """The integer value of a CARDINAL token written with digits ("1,500,000" → 1500000), else None."""
    text = before.strip()
    if not _CARDINAL.match(text):
        return None
    negative = text[0] in "-−"
    digits = re.sub(r"\D", "", text)
    value = int(digits)
    return -value if negative else value
