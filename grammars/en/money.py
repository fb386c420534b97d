"""MONEY: $60 → sixty dollars, $6.5m → six point five million dollars, 88.5 million HRK, $1.50 with cents."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tnforge.grammars.en.cardinal import cardinal_strings, clean, decimal_lattice
from tnforge.grammars.lattice import Lattice, alt, cat, words
from tnforge.grammars.memo import per_grammar

if TYPE_CHECKING:
    from tnforge.grammars.grammar import Grammar

_RANGED = re.compile(r"^(\d[\d,]*(?:\.\d+)?)\s*[-–—]\s*\D{0,3}?(\d[\d,]*(?:\.\d+)?)\s*([A-Za-z]*)$")
_AMOUNT = re.compile(r"^(-?(?:\d[\d,]*)?(?:\.\d+)?)\s*([A-Za-z]*)$")
#: A dollar or pound sign with a country's letters (A$, AU$, NZ$, US$, $US, $A, U$S, E£): Kestrel reads
#: "dollars", "pounds".
_DOLLAR = re.compile(r"^(?:[A-Za-z]{1,3}[$£][A-Za-z]{0,2}|[$£][A-Za-z]{1,2}(?=[\d\s.]))")
_DOLLAR_AFTER = re.compile(r"\s(?:[A-Za-z]{1,3}[$£][A-Za-z]{0,2}|[$£][A-Za-z]{1,2})$")
#: A scale letter glued between the amount and a code or dollar form (2TWST, 5M$US): Kestrel reads the scale.
_GLUED_SCALE = re.compile(r"^(-?\d[\d,]*(?:\.\d+)?\s?(?:k|K|m|M|mn|b|B|bn|t|T|tn))\s?([A-Z]{3}|[A-Za-z]{0,3}[$£][A-Za-z]{0,2})$")
_PLAIN = {"$": ("dollar", "dollars", "cent", "cents"), "£": ("pound", "pounds", "penny", "pence")}


def _scale(g: Grammar, scale: str) -> tuple[str, ...]:
    """Spoken scale of a written one (m, bn, Million, BN, crore), () if not a scale."""
    return g.money_scales.get(scale) or g.money_scales.get(scale.lower(), ())


@per_grammar
def _symbols(g: Grammar) -> tuple[tuple[str, bool], ...]:
    """Currency symbols, longest first, each with whether it may follow the amount without a space (5€,
    50p, 20zł; not 5Rs; a three-letter code may when it follows a digit: 386BSD, 9,500,000USD)."""
    return tuple((symbol, not (symbol.isascii() and symbol.isalpha()) or symbol in ("p", "c"))
                 for symbol in sorted(g.currencies, key=lambda s: (-len(s), s)))


@per_grammar
def _symbol_index(g: Grammar) -> tuple[dict[str, int], tuple[int, ...]]:
    """Each currency symbol's place in `_symbols(g)`, and the symbols' lengths (longest first)."""
    symbols = _symbols(g)
    return {symbol: at for at, (symbol, _) in enumerate(symbols)}, tuple(sorted({len(s) for s, _ in symbols}, reverse=True))


def _symbols_at_ends(g: Grammar, text: str) -> list[tuple[str, bool]]:
    """The entries of `_symbols(g)` (in its order) whose symbol begins or ends `text`: the only ones
    `_split_currency`'s scan can take, found by a lookup per symbol length instead of a scan of the table."""
    index, lengths = _symbol_index(g)
    found = {at for size in lengths if size <= len(text)
             for at in (index.get(text[:size]), index.get(text[-size:])) if at is not None}
    symbols = _symbols(g)
    return [symbols[at] for at in sorted(found)]


def _split_currency(g: Grammar, text: str) -> tuple[str, str] | None:
    """(currency, rest) with the currency written before or after the amount (longest symbol first)."""
    glued = _GLUED_SCALE.match(text)
    if glued and (glued.group(2) in g.currencies or not glued.group(2).isalpha()):
        return glued.group(2), glued.group(1)
    dollar = _DOLLAR.match(text)
    if dollar and dollar.group(0) not in g.currencies:
        return dollar.group(0), text[dollar.end():].strip()
    dollar = _DOLLAR_AFTER.search(text)  # 5 billion $US
    if dollar and dollar.group(0).strip() not in g.currencies:
        return dollar.group(0).strip(), text[: dollar.start()].strip()
    for symbol, glued in _symbols_at_ends(g, text):
        if text.startswith(symbol):
            return symbol, text[len(symbol):].strip()
        code_glued = len(symbol) == 3 and symbol.isupper() and text[: -len(symbol)][-1:].isdigit()
        if text.endswith(symbol) and (glued or code_glued or text[: -len(symbol)].endswith(" ")):
            return symbol, text[: -len(symbol)].strip()
    for code in (re.match(r"^([A-Za-z]{2,3})\b", text), re.search(r"(?<=[\d\s])([A-Za-z]{2,3})$", text)):
        if code and code.group(1) not in g.currencies:  # another case than the table's: TK, RS, Usd, 5 bn tk
            for symbol in (code.group(1).upper(), code.group(1).capitalize(), code.group(1).lower()):
                if symbol in g.currencies:
                    return symbol, (text[code.end():] if code.start() == 0 else text[: code.start()]).strip()
    return None


def lattice(g: Grammar, token: str) -> Lattice:
    """MONEY readings; a minus before the currency sign (-$5, −£3) reads minus five dollars."""
    text = clean(token) or token.strip()
    if len(text) > 2 and text[0] in "-−" and not text[1].isdigit() and text[1] not in " .-−":
        rest = lattice(g, text[1:])
        return cat(words("minus", "negative"), rest) if rest else []
    split = _split_currency(g, text)
    if split is None:
        head, _, name = text.rpartition(" ")  # 25 euros, 1 million dollars
        rows = g.currency_names.get(name.lower()) or g.currency_names.get(" ".join(text.lower().split()[-2:]))
        if not rows or not head:
            return []
        rest = text[: len(text) - len(name)].strip() if name.lower() in g.currency_names else \
            " ".join(text.split()[:-2])
    else:
        symbol, rest = split
        rows = g.currencies.get(symbol, ())
        for sign, plain in _PLAIN.items():
            if sign in symbol and len(symbol) > 1 and (not rows or any(plain[1] in row[1] for row in rows)):
                rows = tuple(dict.fromkeys(rows + (plain,)))
    ranged = _RANGED.match(rest)
    if ranged and (not ranged.group(3) or _scale(g, ranged.group(3))):  # $5–10 million
        first, second = decimal_lattice(g, ranged.group(1)), decimal_lattice(g, ranged.group(2))
        scale = words(*_scale(g, ranged.group(3))) if ranged.group(3) else words("")
        names = words(*sorted({name for row in rows for name in row[:2]}))
        return cat(first, words("to", "through", ""), second, scale, names) if first and second else []
    rest = re.sub(r"(?<=\d) (?=\d{3}(?!\d))", ",", rest)  # $120 000 as $120,000
    match = _AMOUNT.match(rest)
    if not match or not match.group(1) or match.group(1) in ("-", "."):
        return []
    amount, scale = match.group(1), match.group(2)
    if scale and not _scale(g, scale):
        return []
    found: Lattice = []
    for singular, plural_name, minor, minor_plural in rows:
        names = words(singular, plural_name)
        if scale:
            whole, _, tenths = amount.partition(".")
            number = decimal_lattice(g, amount)
            if tenths and not tenths.strip("0") and whole:  # $7.0 million → seven million dollars
                number = alt(number, words(*cardinal_strings(g, whole.replace(",", ""))))
            found += cat(number, words(*_scale(g, scale)), words("", "of"), names)
            continue
        found += cat(decimal_lattice(g, amount), names)
        whole, _, cents = amount.partition(".")
        if len(cents) == 1 and cents != "0":  # PHP 5.1 → five pesos and ten centavos: the tenths as minor units
            cents += "0"
        if len(cents) == 2:
            minor_names = words(minor, minor_plural)
            cent_words = words(*cardinal_strings(g, cents.lstrip("0") or "0"))
            if cents == "00":
                found += cat(words(*cardinal_strings(g, whole)), names)
            elif whole in ("", "0"):
                found += cat(cent_words, minor_names)
            if whole not in ("", "0") and cents != "00":
                found += cat(words(*cardinal_strings(g, whole)), names, words("", "and"), cent_words,
                             alt(minor_names, words("")))
    return found
