"""Closed word classes of English readings whose substitution changes the meaning of a reading.

Each category groups words that can stand for one another in the same slot of a reading ("three" for
"four", "kilometers" for "kilograms"), so a swap gives a fluent reading that says something else — the
hardest kind of negative for a constraint model (Gokcen, Zhang & Sproat 2019).
"""

from __future__ import annotations

UNITS_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEENS_WORDS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
               "eighteen", "nineteen")
TENS_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
MAGNITUDES = ("hundred", "thousand", "million", "billion", "trillion")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")

_UNIT_SINGULAR = (
    "millimeter", "centimeter", "meter", "kilometer", "inch", "foot", "yard", "mile", "nautical mile",
    "milligram", "gram", "kilogram", "ton", "tonne", "ounce", "pound", "stone",
    "milliliter", "liter", "gallon", "pint", "quart", "cup",
    "second", "minute", "hour", "day", "week", "month", "year", "millisecond",
    "hertz", "kilohertz", "megahertz", "gigahertz", "watt", "kilowatt", "megawatt", "volt", "ampere",
    "joule", "calorie", "kilocalorie", "byte", "kilobyte", "megabyte", "gigabyte", "terabyte", "bit",
    "acre", "hectare", "degree", "percent", "meter per second", "kilometer per hour", "mile per hour",
)
_UNIT_PLURAL_EXCEPTIONS = {"inch": "inches", "foot": "feet", "hertz": "hertz", "kilohertz": "kilohertz",
                           "megahertz": "megahertz", "gigahertz": "gigahertz", "percent": "percent"}


def _plural(word: str) -> str:
    if word in _UNIT_PLURAL_EXCEPTIONS:
        return _UNIT_PLURAL_EXCEPTIONS[word]
    head, sep, tail = word.partition(" per ")
    return f"{_plural(head)}{sep}{tail}" if sep else word + "s"


#: Single-word units (American and British spellings), singular and plural.
UNITS: frozenset[str] = frozenset(
    form
    for singular in _UNIT_SINGULAR
    if " " not in singular
    for base in {singular, singular.replace("meter", "metre").replace("liter", "litre")}
    for form in (base, _plural(base))
)
CURRENCIES: frozenset[str] = frozenset({
    "dollar", "dollars", "euro", "euros", "pound", "pounds", "yen", "yuan", "cent", "cents", "penny",
    "pence", "rupee", "rupees", "franc", "francs", "peso", "pesos", "ruble", "rubles", "won", "krona",
    "kronor", "real", "reais", "rand", "lira", "shilling", "shillings", "dinar", "dinars",
})

_ORDINAL_IRREGULAR = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                      "nine": "ninth", "twelve": "twelfth"}


def ordinal_word(cardinal: str) -> str:
    """The ordinal of a cardinal number word: "four" → "fourth", "twenty" → "twentieth"."""
    if cardinal in _ORDINAL_IRREGULAR:
        return _ORDINAL_IRREGULAR[cardinal]
    if cardinal.endswith("y"):
        return cardinal[:-1] + "ieth"
    return cardinal + "th"


CARDINAL_WORDS: tuple[str, ...] = UNITS_WORDS + TEENS_WORDS + TENS_WORDS + MAGNITUDES
#: cardinal word ↔ ordinal word, both directions ("four" ↔ "fourth", "hundred" ↔ "hundredth").
ORDINAL_OF: dict[str, str] = {word: ordinal_word(word) for word in CARDINAL_WORDS if word != "zero"}
CARDINAL_OF: dict[str, str] = {ordinal: cardinal for cardinal, ordinal in ORDINAL_OF.items()}
#: "first" … "twelfth" → 1 … 12 (days that can be swapped with a month).
DAY_NUMBER: dict[str, int] = {ORDINAL_OF[w]: i + 1 for i, w in enumerate(UNITS_WORDS[1:] + TEENS_WORDS[:3])}
MONTH_NUMBER: dict[str, int] = {month: i + 1 for i, month in enumerate(MONTHS)}

#: Substitution categories in priority order: subtype name → groups of interchangeable words.
SUBSTITUTION_GROUPS: dict[str, tuple[frozenset[str], ...]] = {
    "number": (frozenset(UNITS_WORDS), frozenset(TEENS_WORDS), frozenset(TENS_WORDS)),
    "magnitude": (frozenset(MAGNITUDES),),
    "unit": (UNITS,),
    "currency": (CURRENCIES,),
    "month": (frozenset(MONTHS),),
}
#: word → (subtype, group) for the first category a word belongs to. "pound(s)" is a unit in MEASURE
#: readings and a currency in MONEY readings; `category_of` decides by class.
_WORD_GROUP: dict[str, tuple[str, frozenset[str]]] = {}
for _subtype, _groups in SUBSTITUTION_GROUPS.items():
    for _group in _groups:
        for _word in _group:
            _WORD_GROUP.setdefault(_word, (_subtype, _group))


def category_of(word: str, semiotic_class: str) -> tuple[str, frozenset[str]] | None:
    """The substitution category of a word in a reading of the given class, or None."""
    if semiotic_class == "MONEY" and word in CURRENCIES:
        return "currency", CURRENCIES
    return _WORD_GROUP.get(word)
