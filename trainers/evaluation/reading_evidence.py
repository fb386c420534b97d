"""How a corpus reads the kinds of token that raw-text normalization still gets wrong: for each kind, decided
by a token's written form and its neighbour alone (all capitals, a Roman numeral after a name, a long number
after a name, …), the count of each class the corpus gives such tokens, the most a single decision per kind
could get right, and the written forms the corpus itself reads in more than one class.

A kind whose tokens the corpus reads in several classes is one no decision from the written form and its
context can read right every time: its minority is the floor of errors such a decision must make
(benchmarks/safe_normalize.py prints these counts for the shared sample's train split and the bundled sample).
Pure Python: no pyarrow, torch, xgboost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tnforge.trainers.tagger.priors import unknown_title_word
from tnforge.trainers.tagger.rules import NUMBERED, ROMAN

_CAPITALS = re.compile(r"[A-Z]{2,5}")
_CAPITALS_PLURAL = re.compile(r"[A-Z]{2,5}s")
_TITLE = re.compile(r"[A-Z][a-z]{1,4}")
_LONG_NUMBER = re.compile(r"\d{4,}")
_SHORT_NUMBER = re.compile(r"\d{1,2}")


def _after_name(tokens: Sequence[str], index: int) -> bool:
    """Whether the token before is a capitalised word ("Henry", "Motorola", "NASA")."""
    previous = tokens[index - 1].strip() if index > 0 else ""
    return previous[:1].isupper() and previous.replace("-", "").isalpha()


#: (kind, test of the token at an index of its sentence), in the order they are reported. A token may be of
#: several kinds (a Title-case word of 2–5 letters, and one that no dictionary holds).
KINDS: tuple[tuple[str, Callable[[Sequence[str], int], bool]], ...] = (
    ("all capitals, 2–5 letters (LAC, AS, CARB, ADUM, WHO)", lambda t, i: bool(_CAPITALS.fullmatch(t[i]))),
    ("capitals with a plural s (EPs)", lambda t, i: bool(_CAPITALS_PLURAL.fullmatch(t[i]))),
    ("Title case, 2–5 letters (Fuu, Daf)", lambda t, i: bool(_TITLE.fullmatch(t[i]))),
    ("Title case, 2–5 letters, in no pronouncing dictionary", lambda t, i: unknown_title_word(t[i])),
    ("Roman numeral of 2+ letters after a capitalised word (Henry VIII, Louis XIV, Bowl XLVIII)",
     lambda t, i: len(t[i]) > 1 and bool(ROMAN.fullmatch(t[i])) and _after_name(t, i)
     and t[i - 1].strip().lower() not in NUMBERED),
    ("one-letter Roman numeral after a capitalised word (Stephen V, Elizabeth I)",
     lambda t, i: len(t[i]) == 1 and bool(ROMAN.fullmatch(t[i])) and _after_name(t, i)
     and t[i - 1].strip().lower() not in NUMBERED),
    ("Roman numeral after War, Part, Volume, Class, Division (the tagger's rule)",
     lambda t, i: i > 0 and bool(ROMAN.fullmatch(t[i])) and t[i - 1].strip().lower() in NUMBERED),
    ("number of 4+ digits after a capitalised word (Motorola 68000, MOS 6502)",
     lambda t, i: bool(_LONG_NUMBER.fullmatch(t[i])) and _after_name(t, i)),
    ("number of 4+ digits elsewhere (is 4471, code 10001)",
     lambda t, i: bool(_LONG_NUMBER.fullmatch(t[i])) and not _after_name(t, i)),
    ("number of 1–2 digits (11)", lambda t, i: bool(_SHORT_NUMBER.fullmatch(t[i]))),
)


@dataclass
class KindCounts:
    """How a corpus reads one kind of token: classes counted, and each written form's classes."""

    kind: str
    classes: Counter = field(default_factory=Counter)
    forms: dict[str, Counter] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return sum(self.classes.values())

    @property
    def best_single(self) -> int:
        """Tokens one decision for the whole kind (its most frequent class) reads in the corpus's class."""
        return max(self.classes.values(), default=0)

    @property
    def disputed_forms(self) -> list[tuple[str, Counter]]:
        """Written forms the corpus reads in more than one class, most frequent first (ties by text)."""
        found = [(form, classes) for form, classes in self.forms.items() if len(classes) > 1]
        return sorted(found, key=lambda item: (-sum(item[1].values()), item[0]))

    def weighted(self, weights: dict[str, float]) -> dict[str, float]:
        """The class counts as a tagger trained with these class weights sees them (count × weight), most first:
        where its majority differs from the counts', the trees lean to the rarer class on such tokens."""
        found = {cls: n * weights.get(cls, 1.0) for cls, n in self.classes.items()}
        return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    def as_dict(self, weights: dict[str, float] | None = None) -> dict:
        return {"kind": self.kind, "tokens": self.tokens, "classes": dict(self.classes.most_common()),
                "best_single": self.best_single, "floor_of_errors": self.tokens - self.best_single,
                "disputed_forms": {form: dict(c.most_common()) for form, c in self.disputed_forms},
                **({"weighted": self.weighted(weights)} if weights else {})}


def kind_counts(sentences: Sequence[Sequence[str]], labels: Sequence[Sequence[str]]) -> list[KindCounts]:
    """Per `KINDS` entry, the classes the corpus (tokenized sentences and their gold classes) gives its tokens."""
    found = [KindCounts(kind) for kind, _ in KINDS]
    for tokens, classes in zip(sentences, labels, strict=True):
        for index, cls in enumerate(classes):
            for counts, (_, test) in zip(found, KINDS, strict=True):
                if test(tokens, index):
                    counts.classes[cls] += 1
                    counts.forms.setdefault(tokens[index], Counter())[cls] += 1
    return found
