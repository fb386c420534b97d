"""DATE: years (1984, 2016 → twenty sixteen / two thousand sixteen), decades (1980s, '80s, 990's), month names
and abbreviations, day-month-year and month-day-year orders, ISO and numeric dates, weekdays, "the … of …"."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, digit_path, ordinal_strings
from tnforge.grammars.en.numbers import plural
from tnforge.grammars.lattice import Lattice, alt, cat, collapse, words
from tnforge.grammars.memo import per_grammar

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_DECADE = re.compile(r"^'?(\d{1,4})'?s$")
_NUMERIC = re.compile(r"^(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})$")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{1,4})(?:\s*(AD|BC|CE|BCE|A\.D\.|B\.C\.))?"
_TRAIL = " ,./;:-"
_MONTH = r"([A-Za-z]+\.?)"
_PATTERNS = (
    (re.compile(rf"^{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?$"), ("month", "day", "year", "era")),
    (re.compile(rf"^{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?$"), ("day", "month", "year", "era")),
    (re.compile(rf"^{_MONTH},?\s+{_YEAR}$"), ("month", "year", "era")),
)
_PLAIN_YEAR = re.compile(rf"^{_YEAR}$")
#: The two commonest layouts in one match (9 December 2014, December 13, 2015): a fast path to the same lattice.
_COMMON = re.compile(r"^(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([A-Za-z]{3,9})\.?"
                     r"|([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?)\s+(\d{3,4})$")
_ERA_FIRST = re.compile(r"^(AD|A\.D\.|CE|BC|BCE)\s*(\d{1,4})$")
_SHORT_YEAR = re.compile(r"^[''](\d{2})$")
_RANGE = re.compile(r"^(\d{3,4})\s*[-–—/]\s*(\d{2}|\d{3,4})$")
_PREFIX = re.compile(r"^(mid|early|late|circa|ca\.|c\.)[-\s]*(.+)$", re.IGNORECASE)
_PREFIX_WORDS = {"mid": ("mid",), "early": ("early",), "late": ("late",), "circa": ("circa",),
                 "ca.": ("circa", "c a"), "c.": ("circa", "c")}
_WEEKDAY = re.compile(r"^([A-Za-z]+)\.?,?\s+(.*)$")


@per_grammar
def year_lattice(g: Grammar, year: str) -> Lattice:
    """Readings of a year: paired (nineteen eighty four), cardinal (two thousand six), digit by digit."""
    if not year.isdigit():
        return []
    if len(year) > 1 and year[0] == "0":  # '08, 10/10/00: o eight, o o
        return collapse([digit_path(g, year)] + ([] if len(year) > 2 else
                                                 cat(words("o", "oh", "zero"), words(*cardinal_strings(g, year[1])))))
    paired = g.numbers.year(year) if len(year) in (3, 4) else ()
    found = words(*paired, *cardinal_strings(g, year))
    if len(year) == 4:
        found = alt(found, [digit_path(g, year)])
    return collapse(found)


def era_words(era: str | None) -> Lattice:
    if not era:
        return words("")
    era = era.replace(".", "").upper()
    spelled = " ".join(era.lower())
    return words(spelled, {"AD": "anno domini", "BC": "before christ"}.get(era, spelled))


def decade_lattice(g: Grammar, digits: str) -> Lattice:
    """1980s → nineteen eighties, 2000s → two thousands, 40s → forties, 235s → two thirty fives, 00s → o o."""
    if digits[:1] == "0":
        return alt(year_lattice(g, digits), cat(words("o", "oh", "zero"), words(*(
            f"{h} {plural(t)}".strip() for h, _, t in (r.rpartition(" ") for r in cardinal_strings(g, digits[1:]))))))
    readings = set(g.numbers.year(digits)) if len(digits) in (3, 4) else set()
    readings.update(cardinal_strings(g, digits))
    result = set()
    for reading in readings:
        head, _, last = reading.rpartition(" ")
        result.add(f"{head} {plural(last)}".strip())
    return words(*sorted(result))


@per_grammar
def _day_month_forms(g: Grammar, day: int, month: int) -> Lattice:
    if not 1 <= day <= 31 or month not in g.month_names:
        return []
    ordinal = words(*ordinal_strings(g, str(day)))
    name = words(g.month_names[month])
    return collapse(alt(cat(words("the", ""), ordinal, words("of"), name), cat(name, words("the", ""), ordinal)))


_OF: tuple[tuple[str, ...], ...] = (("", "of"),)


def preload(g: Grammar) -> None:
    """Prepare every day and month's readings (372 small sets) when the grammar loads."""
    for month in g.month_names:
        for day in range(1, 32):
            _day_month_forms(g, day, month)


def day_month(g: Grammar, day: str, month: int, year: Lattice | None) -> Lattice:
    """Every order of a day and a month (and an optional year lattice)."""
    forms = _day_month_forms(g, int(day), month)
    if year is None or not forms:
        return forms
    if len(forms) == 1 and len(year) == 1:  # the usual case: both collapsed into one slot
        return [forms[0] + _OF + year[0]]
    return cat(forms, words("", "of"), year)


def _year_era(g: Grammar, year: str, era: str | None) -> Lattice:
    found = year_lattice(g, year)
    return cat(found, era_words(era)) if era and found else found


def _month(g: Grammar, text: str) -> int | None:
    found = g.months.get(text.lower().rstrip("."))
    return found[0] if found else None


def _core(g: Grammar, text: str) -> Lattice:
    """A date without weekday."""
    common = _COMMON.match(text)
    if common:
        day, month = (common.group(1), common.group(2)) if common.group(1) else (common.group(4), common.group(3))
        number = _month(g, month)
        found = day_month(g, day, number, year_lattice(g, common.group(5))) if number is not None else []
        if found:
            return found
    if text.isdigit():
        return year_lattice(g, text)
    decade = _DECADE.match(text)
    if decade:
        return decade_lattice(g, decade.group(1))
    numeric = _NUMERIC.match(text)
    if numeric:
        first, _, middle, last = numeric.groups()
        found: Lattice = []
        if len(first) == 4:  # ISO year-month-day
            found += day_month(g, last, int(middle), year_lattice(g, first))
        elif len(last) in (2, 4):
            year = year_lattice(g, last)
            found += day_month(g, first, int(middle), year)  # day-month-year
            found += day_month(g, middle, int(first), year)  # month-day-year
        return found
    for pattern, names in _PATTERNS:
        match = pattern.match(text)
        if not match:
            continue
        parts = dict(zip(names, match.groups(), strict=True))
        number = _month(g, parts["month"])
        if number is None:
            continue
        year = _year_era(g, parts["year"], parts.get("era")) if parts.get("year") else None
        if year == []:
            continue
        if "day" not in parts:
            return cat(words(g.month_names[number]), words("", "of"), year or [])
        found = day_month(g, parts["day"], number, year)
        if found:
            return found
    plain_year = _PLAIN_YEAR.match(text)
    if plain_year and plain_year.group(2):
        return cat(year_lattice(g, plain_year.group(1)), era_words(plain_year.group(2)))
    return _other(g, text)


def _other(g: Grammar, text: str) -> Lattice:
    """Eras before the year (AD 1066), '08, year ranges (1939–45, 2010/11), mid-/circa prefixes."""
    if match := _ERA_FIRST.match(text):
        year = year_lattice(g, match.group(2))
        return alt(cat(era_words(match.group(1)), year), cat(year, era_words(match.group(1)))) if year else []
    if match := _SHORT_YEAR.match(text):
        return year_lattice(g, match.group(1))
    if match := _RANGE.match(text):
        first, second = year_lattice(g, match.group(1)), year_lattice(g, match.group(2))
        return cat(first, words("to", "", "through"), second) if first and second else []
    if match := _PREFIX.match(text):
        rest = _core(g, match.group(2))
        return cat(words(*_PREFIX_WORDS[match.group(1).lower()]), rest) if rest else []
    return []


def lattice(g: Grammar, token: str) -> Lattice:
    """DATE readings."""
    text = token.strip().rstrip(_TRAIL).strip() or token.strip()
    weekday = _WEEKDAY.match(text) if text[:1].isalpha() else None
    if weekday and weekday.group(1).lower() in g.weekdays:
        rest = _core(g, weekday.group(2))
        return cat(words(g.weekdays[weekday.group(1).lower()]), words("", "the"), rest) if rest else []
    return _core(g, text)
