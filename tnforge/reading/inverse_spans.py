"""The span tagger's route of inverse text normalization: a tagger over spoken words (`tnforge train span-tagger`)
says which spans are written otherwise than spoken and of which class; the grammar route says how.

Tags, one a spoken word (`tnforge.itn_tags`): `O` (written as spoken), `B-CLASS` / `I-CLASS` (the first / a
further word of a token of CLASS written otherwise than its words: "three kilograms" → B-MEASURE I-MEASURE, "and"
written "&" → B-VERBATIM).

`read_tagged`: words tagged O are written as spoken; a tagged span of class C is written as the grammar route
writes it where the route has a token of class C over exactly that span, else in the first form (most frequent
in train first) that a convention or pattern of the train split offers for exactly that span in class C, that
C's covering grammar licenses (`Router.licensed`) and that is not the words as spoken; where there is none, the
grammar route reads the span's words (`Router.read`). A written form C's grammar does not license is never
written.

`TaggerRoute` decodes the tagger's tags with the grammar route's own tags of the words (`route_tags`) as a prior:
each adds `weight` to its tag's log-probability (chosen on dev by `tune_weight`: 0, the tagger's tags alone; ∞,
the grammar route itself, the tagger not run). With an inverse model too (`reading.inverse_model.ModelChooser`),
a tagged span with two such written forms or more is written in the one the model scores best in context. Pure Python here; the tagger itself is in `trainers/span_tagger`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from tnforge.itn_sentences import ItnSentence
from tnforge.itn_tags import OUTSIDE, spoken_as_written, tagged_spans
from tnforge.reading.inverse_route import InverseToken, Router

#: The source of a written token whose span and class the tagger chose (`InverseToken.source`).
TAGGER = "tagger"


def route_tags(tokens: Sequence[InverseToken], length: int) -> list[str]:
    """The tags of `length` words that the grammar route read as `tokens` (the module's scheme)."""
    tags = [OUTSIDE] * length
    for token in tokens:
        if not spoken_as_written(token.written, token.words):
            tags[token.start:token.end] = [f"B-{token.cls}"] + [f"I-{token.cls}"] * (token.end - token.start - 1)
    return tags


def _shifted(token: InverseToken, offset: int) -> InverseToken:
    return dataclasses.replace(token, start=token.start + offset, end=token.end + offset)


def read_tagged(router: Router, words: Sequence[str], tags: Sequence[str], route: Sequence[InverseToken] = (),
                choices: list[tuple[int, list[InverseToken]]] | None = None) -> list[InverseToken]:
    """The written tokens of ASR-style `words` tagged `tags` (the module's rules); `route`: the grammar route's
    tokens of the words, where known. `choices`: where given, each tagged span with two written forms or more
    (in its class, licensed, not as spoken) is added to it, with the index of its token in the result."""
    words = tuple(words)
    ready = {(t.start, t.end, t.cls): t for t in route if not spoken_as_written(t.written, t.words)}
    out: list[InverseToken] = []
    at = 0
    for start, end, cls in tagged_spans(tags):
        out += [InverseToken(w, "PLAIN", i, i + 1, (w,), TAGGER) for i, w in enumerate(words[at:start], at)]
        options: dict[str, InverseToken] = {}
        first = ready.get((start, end, cls))
        for option in ([first] if first else []) + [c for c in router.licensed(words, start, end) if c.cls == cls]:
            if not spoken_as_written(option.written, option.words):
                options.setdefault(option.written.lower(), dataclasses.replace(option, source=TAGGER))
        if options:
            if choices is not None and len(options) > 1:
                choices.append((len(out), list(options.values())))
            out.append(next(iter(options.values())))
        else:
            out += [_shifted(token, start) for token in router.read(words[start:end])]
        at = end
    out += [InverseToken(w, "PLAIN", i, i + 1, (w,), TAGGER) for i, w in enumerate(words[at:], at)]
    return out


#: Weights of the grammar route's tags tried on dev (inf: the grammar route itself).
WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, math.inf)


class TaggerRoute:
    """Reads sentences with a loaded span tagger (`trainers.span_tagger.loading.LoadedSpanTagger`: `tag(sentences,
    routes, weight)`), the grammar route's tags added at `weight`; with `chooser` (a `ModelChooser`), its model
    chooses among a tagged span's written forms."""

    def __init__(self, tagger: Any, weight: float = 0.0, chooser: Any = None) -> None:
        self.tagger = tagger
        self.weight = weight
        self.chooser = chooser

    def read_batch(self, router: Router, sentences: Sequence[Sequence[str]],
                   weight: float | None = None) -> list[list[InverseToken]]:
        """The written tokens of each sentence of ASR-style words (at `weight`, default the route's own)."""
        weight = self.weight if weight is None else weight
        route = [router.read(words) for words in sentences]
        if math.isinf(weight):
            return route
        tags = self.tagger.tag(sentences, [route_tags(tokens, len(words))
                                           for tokens, words in zip(route, sentences, strict=True)], weight)
        if self.chooser is None:
            return [read_tagged(router, words, found, tokens)
                    for words, found, tokens in zip(sentences, tags, route, strict=True)]
        out, pending = [], []
        for n, (words, found, tokens) in enumerate(zip(sentences, tags, route, strict=True)):
            choices: list[tuple[int, list[InverseToken]]] = []
            out.append(read_tagged(router, words, found, tokens, choices))
            pending += [(n, at, options) for at, options in choices]
        if pending:
            from tnforge.itn_windows import target, window
            from tnforge.trainers.inverse.loading import log_probabilities

            width = self.chooser.width
            scores = log_probabilities(self.chooser.loaded, [
                window(sentences[n], options[0].start, options[0].end, width) for n, _, options in pending],
                [[target(option.written) for option in options] for _, _, options in pending])
            for (n, at, options), found in zip(pending, scores, strict=True):
                out[n][at] = options[max(range(len(found)), key=lambda i: (found[i], -i))]
        return out


def tune_weight(chosen: TaggerRoute, router: Router, sentences: Sequence[ItnSentence]) -> tuple[float, dict[str, float]]:
    """The weight (`WEIGHTS`) with the best sentence accuracy on ITN sentences (the smallest of equals: the
    tagger's say where the grammar route does no better), and the accuracy at each."""
    from tnforge.reading.inverse_scoring import score_texts

    gold = [s.written for s in sentences]
    accuracy = {}
    for weight in WEIGHTS:
        read = chosen.read_batch(router, [s.words for s in sentences], weight)
        accuracy[str(weight)] = score_texts(gold, [" ".join(t.written for t in tokens) for tokens in read])[
            "sentence_accuracy"]
    return min(WEIGHTS, key=lambda w: (-accuracy[str(w)], w)), accuracy
