"""Window examples for inverse text normalization: per written token of an ITN sentence
(`tnforge.itn_sentences`), its span of spoken words marked in its spoken context → its written form.

    window("it weighs three kilograms today".split(), 2, 4)   # 'it weighs <norm> three kilograms </norm> today'

Written forms are targets in the shape the model learns them: lower case, digits as 0 (`target`). Every token
whose written form differs from its words is kept, and every as-spoken token whose span the split writes in two
ways or more (`written_ways`: "two" → "2" and "two"; all of them, so that the model learns how often each way is
written); of the other as-spoken tokens one in `keep_plain`, and about `PLAIN_CAP` a span at most; each chosen by
a stable hash of the sentence and position.
A row also lists the span's other targets (`others`: the split's other forms of the span, and the words as
spoken): the alternatives its written form is trained to beat. Pure Python, deterministic: the same sentences give the same rows in the same order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from tnforge.hashing import stable_hash64, unit_interval
from tnforge.itn_sentences import ItnSentence, score_words
from tnforge.windows import DEFAULT_WIDTH, window_input

#: Of the as-spoken tokens whose span is written one way only, one in this many is kept.
KEEP_PLAIN = 4
#: As-spoken tokens kept, about, at most, of a span the split writes one way only ("the").
PLAIN_CAP = 4
_DIGITS = re.compile(r"\d")
#: The columns of a window row (those the window families read: `input`, `after`; `others`: the span's other
#: targets in the split and as spoken, one a line, for the inverse family's sequence-level loss).
COLUMNS = ("input", "after", "before", "class", "others")


def window(words: Sequence[str], start: int, end: int, width: int = DEFAULT_WIDTH) -> str:
    """Spoken words `start`..`end` marked with <norm> … </norm>, with `width` words of context either side."""
    tokens = [*words[:start], " ".join(words[start:end]), *words[end:]]
    return window_input(tokens, start, width)


def target(written: str) -> str:
    """A written form as the model learns and scores it: lower case (scoring ignores case), every digit a 0
    (which digits is the grammar's to say; the model says whether digits, how many and in which shape):
    "3,000 km" → "0,000 km"."""
    return _DIGITS.sub("0", written.lower())


def scored(written: str) -> str:
    """A written form as the scoring compares it: its score words, space-joined."""
    return " ".join(score_words(written))


def written_ways(sentences: Iterable[ItnSentence]) -> dict[str, Counter]:
    """Span of spoken words → how often each scored written form was written for it (spoken tokens only)."""
    ways: dict[str, Counter] = {}
    for sentence in sentences:
        for token in sentence.tokens:
            if token.start < token.end:
                span = " ".join(sentence.words[token.start:token.end])
                ways.setdefault(span, Counter())[scored(token.written)] += 1
    return ways


def window_rows(sentences: Sequence[ItnSentence], width: int = DEFAULT_WIDTH, keep_plain: int = KEEP_PLAIN,
                seed: int = 0) -> dict[str, list[str]]:
    """The window examples of `sentences` as columns (`COLUMNS`), in sentence and token order."""
    ways = written_ways(sentences)
    forms: dict[str, set[str]] = {}
    for sentence in sentences:
        for token in sentence.tokens:
            span = " ".join(sentence.words[token.start:token.end])
            forms.setdefault(span, {target(span)}).add(target(token.written))
    rows: dict[str, list[str]] = {name: [] for name in COLUMNS}
    for number, sentence in enumerate(sentences):
        for index, token in enumerate(sentence.tokens):
            if token.start == token.end:
                continue
            span = " ".join(sentence.words[token.start:token.end])
            if scored(token.written) == span:
                seen = ways[span][span]
                share = 1.0 if len(ways[span]) > 1 else min(1 / keep_plain, PLAIN_CAP / seen)
                if unit_interval(stable_hash64(number, index, sentence.spoken, seed=seed)) >= share:
                    continue
            others = "\n".join(sorted(forms[span] - {target(token.written)}))
            for name, value in zip(COLUMNS, (window(sentence.words, token.start, token.end, width),
                                             target(token.written), span, token.cls, others), strict=True):
                rows[name].append(value)
    return rows
