"""Span tags of spoken words for inverse text normalization (the span tagger's data, `tnforge train span-tagger`).

One tag a spoken word of an ITN sentence (`tnforge.itn_sentences`): `O` where its token is written as spoken
(as the scoring compares them: "Saint" for "saint"), `B-CLASS` for the first word of a token of CLASS written
otherwise ("three kilograms" → `3 kg`: B-MEASURE I-MEASURE), `I-CLASS` for its further words.

`Lexicon`: the spans of spoken words the train split mostly wrote otherwise than spoken, with their class, and
the tags it gives a sentence by itself (longest span first, left to right): a feature of the tagger, read in
training with the lexicon of the other folds (`held_out_tags`). Pure Python, deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tnforge.itn_sentences import ItnSentence, score_words

OUTSIDE = "O"
#: Longest span of words the lexicon keeps.
MAX_SPAN = 6


def spoken_as_written(written: str, words: Sequence[str]) -> bool:
    """Whether a written form scores as the spoken words themselves ("Saint" for "saint", "well-known" for
    "well known")."""
    return score_words(written) == list(words)


def span_tags(sentence: ItnSentence) -> list[str]:
    """The gold tag of each spoken word of an ITN sentence (the module's scheme)."""
    tags = [OUTSIDE] * len(sentence.words)
    for token in sentence.tokens:
        if token.start < token.end and not spoken_as_written(token.written, sentence.words[token.start:token.end]):
            tags[token.start:token.end] = [f"B-{token.cls}"] + [f"I-{token.cls}"] * (token.end - token.start - 1)
    return tags


def tagged_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, end, class) of each tagged span: a B-C and the I-C after it; an I-C after anything else starts a
    span of C."""
    spans: list[tuple[int, int, str]] = []
    for i, tag in enumerate(tags):
        if tag == OUTSIDE:
            continue
        kind, _, cls = tag.partition("-")
        if kind == "I" and spans and spans[-1][1] == i and spans[-1][2] == cls:
            spans[-1] = (spans[-1][0], i + 1, cls)
        else:
            spans.append((i, i + 1, cls))
    return spans


@dataclass(frozen=True)
class Lexicon:
    """Span of spoken words (space-joined) → the class it was mostly written in, where the split wrote it
    otherwise than spoken more often than as spoken."""

    spans: dict[str, str]

    @classmethod
    def learned(cls, sentences: Iterable[ItnSentence]) -> Lexicon:
        otherwise: dict[str, Counter] = {}
        tokens: Counter = Counter()
        for sentence in sentences:
            for token in sentence.tokens:
                if not 0 < token.end - token.start <= MAX_SPAN:
                    continue
                words = sentence.words[token.start:token.end]
                span = " ".join(words)
                tokens[span] += 1
                if not spoken_as_written(token.written, words):
                    otherwise.setdefault(span, Counter())[token.cls] += 1
        return cls({span: min(classes.items(), key=lambda kv: (-kv[1], kv[0]))[0]
                    for span, classes in sorted(otherwise.items()) if 2 * sum(classes.values()) > tokens[span]})

    def tags(self, words: Sequence[str]) -> list[str]:
        """The lexicon's tags of a sentence's words: left to right, the longest span it knows."""
        tags = [OUTSIDE] * len(words)
        i = 0
        while i < len(words):
            for length in range(min(MAX_SPAN, len(words) - i), 0, -1):
                found = self.spans.get(" ".join(words[i:i + length]))
                if found is not None:
                    tags[i:i + length] = [f"B-{found}"] + [f"I-{found}"] * (length - 1)
                    i += length
                    break
            else:
                i += 1
        return tags


def held_out_tags(sentences: Sequence[ItnSentence], folds: int) -> list[list[str]]:
    """The lexicon's tags of each sentence, the lexicon learned on the other folds (sentence i in fold i mod
    `folds`): as the lexicon tags sentences it has not seen."""
    out: list[list[str]] = [[] for _ in sentences]
    for fold in range(folds):
        lexicon = Lexicon.learned(s for i, s in enumerate(sentences) if i % folds != fold)
        for i in range(fold, len(sentences), folds):
            out[i] = lexicon.tags(sentences[i].words)
    return out
