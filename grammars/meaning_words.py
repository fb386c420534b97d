"""The words of a reading that carry meaning beyond the number: units (`kilograms`, `bytes`, `kelvin`, SI
prefixes), currencies (`dollars`, `cents`) and scales (`thousand`, `billion`), from the grammar's own tables,
each mapped to one identity (singular and plural alike), so that two readings can be asked whether they say the
same unit, currency or magnitude (`trainers.decoding.routing.adds_nothing`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tnforge.grammars.tables import load_tables


@dataclass(frozen=True)
class MeaningWords:
    """Unit and currency words → their identity (the singular name), and the scale words."""

    units: dict[str, str]
    scales: frozenset[str]

    def of(self, reading: str, token: str) -> frozenset[str]:
        """The identities of the units and currencies a reading says, and its scale words when the token has
        letters (a scale read from digits alone, "1000" → "one thousand", adds nothing)."""
        words = reading.split()
        found = {self.units[word] for word in words if word in self.units}
        if any(ch.isalpha() for ch in token):
            found |= {word for word in words if word in self.scales}
        return frozenset(found)


@lru_cache(maxsize=1)
def meaning_words() -> MeaningWords:
    """The shipped tables' unit, currency and scale words."""
    tables = load_tables()
    units: dict[str, str] = {}

    def add(names: tuple[str, ...]) -> None:
        identity = names[0].split()[-1]
        for name in names:
            word = name.split()[-1]  # "square meters" → meters; "per mille" → mille
            if len(word) > 2:  # "m m", "c c": letters spelt, which a reading of letters says too
                units.setdefault(word, identity)

    for _symbol, singular, plural in (*tables["units"], *tables["si_units"]):
        add((singular, plural))
    for _symbol, spoken in tables["si_prefixes"]:
        add((spoken,))
    for _symbol, singular, plural, minor_singular, minor_plural in tables["currencies"]:
        add((singular, plural))
        add((minor_singular, minor_plural))
    return MeaningWords(units, frozenset(spoken for _suffix, spoken in tables["money_scales"]))
