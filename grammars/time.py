"""TIME: 10.30pm → ten thirty p m, 9:00 pm → nine p m / nine o'clock p m, 14:05 → fourteen o five."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.cardinal import cardinal_strings
from tnforge.grammars.lattice import Lattice, alt, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_TIME = re.compile(
    r"^(\d{1,2})(?:[:.](\d{2}))?(?:[:.](\d{2}))?\s*([ap])?\.?\s*(m)?\.?\s*([A-Z]{2,4})?$", re.IGNORECASE
)


def minutes_lattice(g: Grammar, minutes: str) -> Lattice:
    if minutes == "00":
        return words("", "o'clock", "hundred")
    if minutes[0] == "0":
        return cat(words("o", "oh", "zero"), words(*cardinal_strings(g, minutes[1])))
    return words(*cardinal_strings(g, minutes))


def lattice(g: Grammar, token: str) -> Lattice:
    """TIME readings."""
    match = _TIME.match(token.strip())
    if not match:
        return []
    hours, minutes, seconds, half, m, zone = match.groups()
    if (half is None) != (m is None) or int(hours) > 24 or (minutes is None and half is None):
        return []
    if minutes is not None and int(minutes) > 59:
        return []
    hour = words(*cardinal_strings(g, str(int(hours))))
    found = cat(hour, minutes_lattice(g, minutes)) if minutes is not None else cat(hour, words("", "o'clock"))
    if minutes is not None and seconds is not None:
        found = alt(
            cat(found, words(*cardinal_strings(g, str(int(seconds))))),
            cat(hour, words("hours", "hour"), words(*cardinal_strings(g, str(int(minutes)))), words("minutes", "minute"),
                words("and", ""), words(*cardinal_strings(g, str(int(seconds)))), words("seconds", "second")),
        )
    if half is not None:
        found = cat(found, words(f"{half.lower()} m"))
    if zone:
        found = cat(found, words(" ".join(zone.lower())))
    return found
