"""TIME: 10.30pm → ten thirty p m, 9:00 pm → nine p m / nine o'clock p m, 14:05 → fourteen o five, 6:30 PST →
six thirty p s t, 10:15 UTC+1 → ten fifteen u t c plus one."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, digit_path
from tnforge.grammars.lattice import Lattice, alt, cat, words

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_TIME = re.compile(
    r"^(\d{1,2})(?:[:.]\s?(\d{2}))?(?:[:.](\d{2}))?(?:\.(\d+))?\s*(?:([ap])\.?\s*(m)\.?)?\s*([A-Z]{1,5})?"
    r"(?:\s?([+\-−])\s?(\d{1,2})(?::?(\d{2}))?)?$",
    re.IGNORECASE,
)
#: a m / p m written before the hour (PM2 → two p m).
_HALF_FIRST = re.compile(r"^([ap])\.?\s?m\.?\s?(\d{1,2})$", re.IGNORECASE)
_HOURS = {"h", "hr", "hrs"}  # 20:00 hrs → twenty hundred hours, as the 4-digit military form


def _zone(g: Grammar, zone: str, sign: str | None, hours: str | None, minutes: str | None) -> Lattice:
    """A time zone read letter by letter (PST → p s t, UTC → u t c), with an offset (UTC+1 → u t c plus one,
    GMT-5:30 → g m t minus five thirty); hrs after a time also reads "hours"."""
    found = words(" ".join(zone.lower()))
    if zone.lower() in _HOURS:
        found = alt(found, words("hours"))
    if sign is None:
        return found
    offset = words(*cardinal_strings(g, str(int(hours))))
    if minutes is not None:
        offset = cat(offset, minutes_lattice(g, minutes))
    return cat(found, words("plus" if sign == "+" else "minus"), offset)


def minutes_lattice(g: Grammar, minutes: str, hundred: bool = True) -> Lattice:
    """The minutes after the hour; a full hour unsaid, "o'clock" or, when `hundred`, "hundred" (16:00 → sixteen
    hundred)."""
    if minutes == "00":
        return words("", "o'clock", *(["hundred"] if hundred else []))
    if minutes[0] == "0":
        return cat(words("o", "oh", "zero"), words(*cardinal_strings(g, minutes[1])))
    return words(*cardinal_strings(g, minutes))


_SINGULAR = {"hours": "hour", "minutes": "minute", "seconds": "second"}


def _units(g: Grammar, values: tuple[str, ...], names: tuple[str, ...], fraction: str | None = None) -> Lattice:
    """A duration: 0:02:01 → zero hours two minutes and one second; 1:02.5 → one minute two point five seconds."""
    pieces: list[Lattice] = []
    for index, (value, name) in enumerate(zip(values, names, strict=True)):
        number = words(*cardinal_strings(g, str(int(value))))
        if fraction is not None and index == len(values) - 1:
            number = cat(number, words("point"), [digit_path(g, fraction)])
        if index == len(values) - 1 and index:
            pieces.append(words("and", ""))
        pieces += [number, words(name, _SINGULAR[name])]
    return cat(*pieces)


def _milliseconds(g: Grammar, minutes: str, seconds: str, hundredths: str, hours: str | None = None) -> Lattice:
    """2:34.19 → two minutes thirty four seconds and nineteen milliseconds (Kestrel reads the digits after the
    point as a number of milliseconds); with hours, 1:02:03.45 → one hour two minutes three seconds and forty five
    milliseconds."""
    values, names = ((hours,) if hours else ()) + (minutes, seconds), (("hours",) if hours else ()) + ("minutes",
                                                                                                    "seconds")
    return cat(*[cat(words(*cardinal_strings(g, str(int(value)))), words(name, _SINGULAR[name]))
                 for value, name in zip(values, names, strict=True)], words("and"),
               words(*cardinal_strings(g, str(int(hundredths)))), words("milliseconds", "millisecond"))


_MILITARY = re.compile(r"^([01]\d|2[0-4])([0-5]\d)\s*(h|hrs|hours)?$", re.IGNORECASE)


def _military(g: Grammar, match: re.Match) -> Lattice:
    """0900 → o nine hundred (hours), 1430 → fourteen thirty."""
    hours, minutes = match.group(1), match.group(2)
    hour = words(*cardinal_strings(g, str(int(hours))))
    if hours[0] == "0":
        hour = alt(hour, cat(words("o", "oh", "zero"), hour))
    return cat(hour, words("hundred") if minutes == "00" else minutes_lattice(g, minutes), words("", "hours"))


def lattice(g: Grammar, token: str) -> Lattice:
    """TIME readings."""
    half_first = _HALF_FIRST.match(token.strip())
    if half_first and 1 <= int(half_first.group(2)) <= 12:
        return lattice(g, f"{half_first.group(2)} {half_first.group(1)}m")
    military = _MILITARY.match(token.strip())
    if military:
        return _military(g, military)
    match = _TIME.match(token.strip())
    if not match:
        return []
    hours, minutes, seconds, fraction, half, m, zone, sign, offset_hours, offset_minutes = match.groups()
    if (half is None) != (m is None) or (minutes is None and half is None) or int(hours) > 59:
        return []
    if zone and half is None and zone.lower() in ("a", "p"):
        return []  # 10:30 a is not a time with a zone
    if sign is not None and (not zone or int(offset_hours) > 14 or offset_minutes and int(offset_minutes) > 59):
        return []
    if minutes is not None and int(minutes) > 59 or seconds is not None and int(seconds) > 59:
        return []
    if fraction is not None and (minutes is None or half is not None):
        return []
    clock = int(hours) <= 24  # a time of day; else only a duration (45:30)
    if half and not clock:
        return []
    hour = words(*cardinal_strings(g, str(int(hours))))
    if minutes is None:
        found = cat(hour, words("", "o'clock"))
    elif seconds is None and fraction is None:  # 10:30, or 2:35 as a duration
        # "hundred" only on the 24-hour clock: 16:00 → sixteen hundred, but 8:00am → eight a m, 6:00 → six o'clock
        hundred = half is None and not 1 <= int(hours) <= 12
        found = alt(cat(hour, minutes_lattice(g, minutes, hundred)) if clock else [],
                    [] if half else _units(g, (hours, minutes), ("hours", "minutes")),
                    [] if half else _units(g, (hours, minutes), ("minutes", "seconds")))
    elif seconds is None:  # 1:02.5; 2:34.19 → two minutes thirty four seconds and nineteen milliseconds
        found = _units(g, (hours, minutes), ("minutes", "seconds"), fraction)
        if half is None and len(fraction) == 3:
            found = alt(found, _milliseconds(g, hours, minutes, fraction))
    else:  # 18:00:00, 1:02:03.4
        found = alt(cat(hour, minutes_lattice(g, minutes), words(*cardinal_strings(g, str(int(seconds)))))
                    if clock and fraction is None else [],
                    [] if half else _units(g, (hours, minutes, seconds), ("hours", "minutes", "seconds"), fraction))
        if half is None and fraction is None and token.strip()[match.start(3) - 1] == ".":  # 2:34.19
            found = alt(found, _milliseconds(g, hours, minutes, seconds))
        if half is None and fraction is not None and len(fraction) <= 3:  # 1:02:03.45
            found = alt(found, _milliseconds(g, minutes, seconds, fraction, hours))
    if half is not None:
        found = cat(found, words(f"{half.lower()} m"))
    if zone:
        found = cat(found, _zone(g, zone, sign, offset_hours, offset_minutes))
    return found
