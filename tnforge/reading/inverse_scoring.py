"""How inverse text normalization is scored against the written side of ITN sentences.

Written texts are compared as `tnforge.itn_sentences.score_words` splits them: lower case, every punctuation
character a space (symbols such as $ % ° kept), whitespace-separated words. A sentence is right when its words
equal the gold sentence's; WER is the word edit distance over all gold words. Per class, a gold token (one
that is spoken) is right when a written token covers exactly its span with the same words. A written form
for exactly a gold token's span that differs from the gold is a meaning-changing error when the gold class's
covering grammar does not read it as the span (`licenses_span`) and it is not the spoken words themselves
("two" for the gold "2" keeps the meaning); "where the class is right" counts those
among tokens written in the gold class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tnforge.itn_sentences import ItnSentence, asr_words, score_words


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word edit distance (substitutions, insertions, deletions)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def score_texts(gold: Sequence[str], predicted: Sequence[str]) -> dict:
    """Sentence accuracy and WER of predicted written texts against gold ones (the scoring above)."""
    right = errors = words = 0
    for g, p in zip(gold, predicted, strict=True):
        gw, pw = score_words(g), score_words(p)
        right += gw == pw
        errors += edit_distance(gw, pw)
        words += len(gw)
    return {"sentences": len(gold), "sentence_accuracy": right / max(len(gold), 1), "wer": errors / max(words, 1),
            "words": words}


def score_tokens(sentences: Sequence[ItnSentence], predicted: Sequence[Sequence],
                 licenses_span: Callable[[str, Sequence[str], str], bool]) -> dict:
    """Per gold class: tokens, right, written in the gold class, meaning-changing errors (all, and where the
    class is right), with a few examples; `predicted[i]` are sentence i's written tokens (start, end, cls,
    written attributes)."""
    classes: dict[str, dict] = {}
    for sentence, tokens in zip(sentences, predicted, strict=True):
        by_span = {(t.start, t.end): t for t in tokens}
        for token in sentence.tokens:
            if token.start == token.end:
                continue
            row = classes.setdefault(token.cls, {"tokens": 0, "right": 0, "class_right": 0, "meaning_errors": 0,
                                                 "meaning_errors_class_right": 0, "examples": []})
            row["tokens"] += 1
            found = by_span.get((token.start, token.end))
            if found is None:
                continue
            row["class_right"] += found.cls == token.cls
            if score_words(found.written) == score_words(token.written):
                row["right"] += 1
                continue
            span = sentence.words[token.start:token.end]
            if asr_words(found.written) != list(span) and not licenses_span(found.written, span, token.cls):
                row["meaning_errors"] += 1
                row["meaning_errors_class_right"] += found.cls == token.cls
                if len(row["examples"]) < 3:
                    row["examples"].append(f"{' '.join(span)} → {found.written} (gold {token.written})")
    return dict(sorted(classes.items()))
