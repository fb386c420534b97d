"""The one registry of semiotic classes: name, covering-grammar module, and whether the grammar covers it.

Everything that lists classes reads this table: the readers (valid class names), the validation suites,
the grammars (which module reads which class), the CLI's `--class` choices, evaluation's ordering and the
decoding constraint (which classes a hard grammar mask may constrain). Add a class here, once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SemioticClass:
    """One class of the Sproat & Jaitly corpus."""

    name: str
    grammar: str  # module under tnforge.grammars.en whose `lattice(grammar, token)` gives its readings
    covered: bool  # the grammar really covers the corpus's readings: a hard constraint may be used
    numeric: bool  # carries numbers (coverage targets are reported for these)


#: In the order the papers list them.
CLASSES: tuple[SemioticClass, ...] = (
    SemioticClass("PLAIN", "plain", covered=True, numeric=False),
    SemioticClass("PUNCT", "punct", covered=True, numeric=False),
    SemioticClass("DATE", "date", covered=True, numeric=True),
    SemioticClass("LETTERS", "letters", covered=True, numeric=False),
    SemioticClass("CARDINAL", "cardinal", covered=True, numeric=True),
    SemioticClass("VERBATIM", "verbatim", covered=True, numeric=False),
    SemioticClass("MEASURE", "measure", covered=True, numeric=True),
    SemioticClass("ORDINAL", "ordinal", covered=True, numeric=True),
    SemioticClass("DECIMAL", "decimal", covered=True, numeric=True),
    # ELECTRONIC readings are over-generated only loosely: never a hard constraint.
    SemioticClass("ELECTRONIC", "electronic", covered=False, numeric=False),
    SemioticClass("DIGIT", "digit", covered=True, numeric=True),
    SemioticClass("MONEY", "money", covered=True, numeric=True),
    SemioticClass("FRACTION", "fraction", covered=True, numeric=True),
    SemioticClass("TIME", "time", covered=True, numeric=True),
    SemioticClass("TELEPHONE", "telephone", covered=True, numeric=True),
    SemioticClass("ADDRESS", "address", covered=True, numeric=False),
)
BY_NAME: dict[str, SemioticClass] = {cls.name: cls for cls in CLASSES}
#: The class names, in order.
NAMES: tuple[str, ...] = tuple(cls.name for cls in CLASSES)
#: Classes whose grammar really covers the corpus's readings.
COVERED: frozenset[str] = frozenset(cls.name for cls in CLASSES if cls.covered)
#: Classes that carry numbers, in order.
NUMERIC: tuple[str, ...] = tuple(cls.name for cls in CLASSES if cls.numeric)
#: Class → grammar module name (under tnforge.grammars.en).
GRAMMAR_MODULES: dict[str, str] = {cls.name: cls.grammar for cls in CLASSES}

#: Joins the classes of a token the tagger is unsure about into one decoding key ("CARDINAL|DATE"): the
#: covering grammar reads such a key as the union of its classes' readings.
UNION = "|"


def union_class(classes: tuple[str, ...] | list[str]) -> str:
    """The decoding key of several likely classes (one class: the class itself)."""
    return UNION.join(classes)


def union_parts(key: str | None) -> tuple[str, ...]:
    """The classes of a decoding key (`union_class`); () for None."""
    return tuple(part for part in key.split(UNION) if part) if key else ()
