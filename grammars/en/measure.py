"""MEASURE: 3kg → three kilograms, 2.5 μm, 107 mph, 0.001251 g/cm3 → … grams per c c, 142/km² → … per square
kilometers, 1,046.0 sq mi, 50% → fifty percent, 1/2 cc → half a c c."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import clean
from tnforge.grammars.en.decimal import number_lattice
from tnforge.grammars.en.fraction import VULGAR, fraction_lattice
from tnforge.grammars.lattice import Lattice, alt, cat, words
from tnforge.grammars.memo import per_grammar

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_NUMBER = re.compile(r"^(-?(?:\d[\d,]*)?(?:\.\d+)?(?:\s*(?:thousand|million|billion|trillion))?)")
_FRACTION = re.compile(r"^(\d+)/(\d+)\s+")
_POWER = {"2": "square", "²": "square", "3": "cubic", "³": "cubic"}


_SQUARE = ("sq ", "sq.", "square ")
_CUBIC = ("cu ", "cu.", "cubic ")


_BRITISH = re.compile(r"(met|lit)re")


def _base_names(g: Grammar, unit: str) -> list[tuple[str, str]]:
    """A unit's names as written in the tables, in another case (hz, khz, db), or written out (mile, feet,
    metres: Kestrel reads British spellings the American way)."""
    return list(g.units.get(unit, ())) or list(g.units_folded.get(unit.lower(), ())) or \
        list(g.unit_names.get(_BRITISH.sub(r"\1er", unit.lower()), ()))


def _unit_names(g: Grammar, unit: str) -> list[tuple[str, str]]:
    """(singular, plural) names of one unit, with powers (m2, km², sq mi, square kilometer, meter2). A symbol's
    letters only where the units table has them as a row (cc, kg, mm): never "thirty two f t" for 32 ft."""
    unit = unit.strip().rstrip(".") if unit.strip() not in g.units else unit.strip()
    names: list[tuple[str, str]] = list(g.units.get(unit, ()))
    if not names and re.fullmatch(r"[A-Za-z]+\.[A-Za-z]+", unit):  # fl.oz as fl oz
        names = list(g.units.get(unit.replace(".", " "), ()))
    lower = unit.lower()
    for prefixes, power in ((_SQUARE, "square"), (_CUBIC, "cubic")):
        for prefix in prefixes:
            if lower.startswith(prefix):
                names += [(f"{power} {s}", f"{power} {p}") for s, p in _base_names(g, unit[len(prefix):].strip())]
    if not names and unit and unit[-1] in _POWER and _base_names(g, unit[:-1]):
        power = _POWER[unit[-1]]
        base = _base_names(g, unit[:-1])
        names += [(f"{power} {s}", f"{power} {p}") for s, p in base]
        names += [(f"{s} {'squared' if power == 'square' else 'cubed'}",) * 2 for s, _ in base]
        if unit[:-1].lower() == "cm" and power == "cubic":
            names.append(("c c", "c c"))
    if not names:  # another case (hz, KHZ), written out (1/4 mile, 3 feet)
        names = _base_names(g, unit)
    return names


_PER = re.compile(r"^(.*?)\s*(?:/|\bper\s+|\bp/)\s*(.+)$")
_TIMES = re.compile(r"\s*[·⋅]\s*")


def _names(g: Grammar, unit: str) -> Lattice:
    """One unit's readings, or a product of units read one after the other (N·m → newton meters, kW·h →
    kilowatt hours, as the unseparated Nm and kWh)."""
    parts = _TIMES.split(unit.strip())
    found = []
    for part in parts:
        names = _unit_names(g, part)
        if not names:
            return []
        found.append(words(*sorted({name for pair in names for name in pair})))
    return cat(*found) if len(found) > 1 else found[0]


@per_grammar
def unit_lattice(g: Grammar, unit: str, has_number: bool) -> Lattice:
    """Readings of a unit expression: a unit, a product (N·m), or ratios of units ("km/h", "g/cm3", "/km²")."""
    unit = unit.strip()
    direct = _names(g, unit)
    if direct:
        return direct
    ratio = _PER.match(unit)  # km/h, /km², per km², mg per kg, p/min
    if not ratio:
        return []
    head, tail = ratio.groups()
    per = _names(g, tail)
    if not per:
        return []
    per_words = cat(words("per"), per)
    if not head.strip():
        return per_words if has_number else []
    top = _names(g, head)
    if not top:
        return []
    return cat(top, per_words)


def _single(g: Grammar, token: str) -> Lattice:
    """A number (or fraction) and a unit."""
    text = clean(token) if not token.strip().endswith(".") else token.strip()
    text = text or token.strip()
    fraction = _FRACTION.match(text)
    if fraction:
        unit = unit_lattice(g, text[fraction.end():], True)
        if not unit:
            return []
        numerator, denominator = fraction.groups()
        amount = fraction_lattice(g, numerator, denominator)
        if (numerator, denominator) == ("1", "2"):
            amount = alt(amount, words("half a", "half an"))
        return alt(cat(amount, unit), cat(amount, words("of a", "of an"), unit))
    if text and text[0] in VULGAR:
        return []
    match = _NUMBER.match(text)
    number_text = match.group(1).strip() if match else ""
    if not number_text or number_text in ("-", "."):
        return []
    number = number_lattice(g, number_text.replace(" ", ""))
    if not number and " " in number_text:
        number = number_lattice(g, number_text)
    unit = unit_lattice(g, text[match.end():], True)
    if not number or not unit:
        return []
    return cat(number, unit)


_RANGED = re.compile(r"^(-?[\d,]*\.?\d+)\s*(?:[-–—]|to)\s*(-?[\d,]*\.?\d+)\s*([^\d\s].*)$")
_COMPOUND = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*([^\d\s]+)")


_BY = re.compile(r"(?<=[\d\s.])\s*[x×]\s*(?=[\d.])")


def _dimensions(g: Grammar, text: str) -> Lattice:
    """10 x 20 cm → ten by twenty centimeters, 100 m × 50 m → one hundred meters by fifty meters (the last
    side carries the unit)."""
    sides = _BY.split(text)
    if len(sides) < 2 or len(sides) > 3:
        return []
    pieces = [_single(g, side) or (number_lattice(g, side.strip()) if index < len(sides) - 1 else [])
              for index, side in enumerate(sides)]
    if not all(pieces):
        return []
    return cat(*[part for index, piece in enumerate(pieces) for part in
                 ((words("by"), piece) if index else (piece,))])


def lattice(g: Grammar, token: str) -> Lattice:
    """MEASURE readings: a number and a unit, a range (3–5 km), a compound (6 ft 2 in), dimensions (10 x 20 cm),
    or a bare ratio whose number stood in the token before (/km², per km2 → per square kilometers)."""
    token = token.replace("−", "-")  # the minus sign (−40 °F) as a hyphen
    found = _single(g, token)
    if found:
        return found
    text = clean(token) or token.strip()
    found = _dimensions(g, text)
    if found:
        return found
    if re.match(r"^(?:/|per\s)", text):
        return unit_lattice(g, text, True)
    ranged = _RANGED.match(text)
    if ranged:
        first, second = number_lattice(g, ranged.group(1)), number_lattice(g, ranged.group(2))
        unit = unit_lattice(g, ranged.group(3), True)
        return cat(first, words("to", "through", ""), second, unit) if first and second and unit else []
    parts = _COMPOUND.findall(text)
    if len(parts) > 1 and "".join(n + u for n, u in parts) == text.replace(" ", ""):
        pieces = [cat(number_lattice(g, number), unit_lattice(g, unit, True)) for number, unit in parts]
        if all(pieces):
            return cat(*[piece for index, piece in enumerate(pieces) for piece in
                         ((words("and", ""), piece) if index else (piece,))])
    return []
