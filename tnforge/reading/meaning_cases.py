"""Meaning-critical cases: sentences with a token whose reading must not say a unit, currency, magnitude or
number the text does not make certain, read by a normalizer and judged by the covering grammar.

A case file is UTF-8 TSV, `sentence<TAB>token<TAB>class` a line (`#` comments), class `-` when no class makes a
unit, currency or scale certain (codes such as 221B, A4, 4K). A reading is right in meaning when the grammar
licenses it for the class, or when it adds nothing: it says no unit, currency or scale word
(`grammars.meaning_words`), and it is the token as written or a reading the grammar licenses for the token in
some class (so its numbers are the token's). Anything else is a meaning error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tnforge.schemas import SELF
from tnforge.schemas.classes import COVERED

if TYPE_CHECKING:
    from tnforge.reading.normalizer import Normalizer


@dataclass(frozen=True)
class Case:
    sentence: str
    token: str
    cls: str | None  # None: no class makes a unit, currency or scale certain
    line: int


@dataclass(frozen=True)
class Judged:
    case: Case
    reading: str  # as the corpus writes it
    route: str
    verdict: str  # "licensed", "adds nothing" or "meaning error"


def read_cases(path: str | os.PathLike) -> list[Case]:
    """The cases of a file (ValueError naming file and line for a line that is not sentence, token, class)."""
    cases = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise ValueError(f"{path}, line {number}: expected sentence<TAB>token<TAB>class")
            sentence, token, cls = fields
            cases.append(Case(sentence, token, None if cls == "-" else cls, number))
    return cases


def judge_cases(normalizer: Normalizer, cases: list[Case]) -> list[Judged]:
    """Each case read by `normalizer` and judged (see the module doc); a case whose token the tokenizer does
    not make is a ValueError naming its line."""
    from tnforge.grammars import adapter
    from tnforge.grammars.meaning_words import meaning_words

    licenses, _ = adapter.judge(True)
    words = meaning_words()
    readings = normalizer.read_batch([case.sentence for case in cases])
    judged = []
    for case, reading in zip(cases, readings, strict=True):
        if case.token not in reading.tokens:
            raise ValueError(f"line {case.line}: {case.token!r} is not a token of {case.sentence!r} "
                             f"(tokens: {reading.tokens})")
        t = reading.tokens.index(case.token)
        text = reading.readings[t]
        route = reading.routes[t] if reading.routes else ""
        if case.cls is not None and licenses([(case.token, text, case.cls)])[0]:
            verdict = "licensed"
        elif not words.of(text, case.token) and (text == SELF or any(
                licenses([(case.token, text, cls) for cls in sorted(COVERED)]))):
            verdict = "adds nothing"
        else:
            verdict = "meaning error"
        judged.append(Judged(case, text, route, verdict))
    return judged
