"""Confidence-aware routing of raw-text tokens: which classes a token may be read in, and why it was read as
it was.

The tagger's calibrated probabilities (`trainers.tagger.calibration`) give each token its *likely classes*:
the most probable class alone when its probability reaches `confidence`, else the fewest most probable
classes whose probabilities add up to `confidence` (at most `MAX_LIKELY`). A token with several likely
classes is never read in one class the tagger is unsure of: it is decoded within the union of the readings
the covering grammar licenses for any of them (`schemas.classes.union_class`, which the grammar adapter and
the grammar constraint read), takes the union's one reading when there is only one, and is left as written
(`<self>`: spelt as written by the speech engine) when no likely class has a reading the model can spell.
Each token's route is said in words (`why`) in `tnforge normalize`'s per-token table.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from tnforge.schemas import SELF
from tnforge.schemas.classes import COVERED, NUMERIC, UNION

#: Classes at most in a token's likely set.
MAX_LIKELY = 4


def likely_classes(probabilities: Sequence[float], names: Sequence[str], confidence: float,
                   limit: int = MAX_LIKELY) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The likely classes of one token (most probable first) and their probabilities: the fewest classes
    whose probabilities reach `confidence` (one when the first does), at most `limit`, leaving out any class
    below 1 − `confidence` (it cannot matter at that confidence)."""
    order = sorted(range(len(names)), key=lambda j: (-float(probabilities[j]), j))
    classes: list[str] = []
    shares: list[float] = []
    total = 0.0
    for j in order[:limit]:
        if classes and float(probabilities[j]) < 1.0 - confidence:
            break
        classes.append(names[j])
        shares.append(float(probabilities[j]))
        total += float(probabilities[j])
        if total >= confidence:
            break
    return tuple(classes), tuple(shares)


def meaning_at_stake(classes: Sequence[str]) -> bool:
    """Whether a token's likely classes include one that carries numbers (`schemas.classes.NUMERIC`): reading it
    in the wrong one could say a wrong number, unit or currency, so it is read within their union. A doubt
    between the word classes alone (PLAIN, LETTERS, PUNCT, VERBATIM, …) is left to the tagger's first class:
    neither the seq2seq nor the tagger tells a word from its spelling out more reliably (docs/guides/normalize.md)."""
    return len(classes) > 1 and any(cls in NUMERIC for cls in classes)


def unsure(classes: Sequence[str], shares: Sequence[float]) -> str:
    """"CARDINAL 0.61, DATE 0.37": the likely classes with their probabilities."""
    return ", ".join(f"{cls} {share:.2f}" for cls, share in zip(classes, shares, strict=True))


def spellable(readings: Collection[tuple[str, ...]], vocab: Any) -> bool:
    """Whether the model's output vocabulary has every word of one of `readings` at least (a constraint can
    hold the token); stops at the first such reading."""
    return any(vocab.unk_id not in vocab.encode(" ".join(words)) for words in readings)


#: The seq2seq log-probability given to a class's reading the model cannot spell (the grammar's shortest
#: reading there: a word it never produced, so its own probability of it is nil; `weigh_by_class`).
UNSPELLABLE_SCORE = -30.0


def union_route(token: str, classes: Sequence[str], shares: Sequence[float], reading_words: Any,
                vocab: Any) -> tuple[str | None, list[str], list[tuple[str, str]], str]:
    """How to read a token with several likely classes: (its reading when fixed here, else None; the decoding
    keys to run the seq2seq with, one per class with readings it can spell — `part_key`; (class, reading) of
    each class none of whose readings the model can spell: the grammar's shortest reading there; why).
    Without the grammar the most probable class decodes it, unguarded, as before routing — and says so."""
    doubt = unsure(classes, shares)
    if reading_words is None:
        return None, [classes[0]], [], f"unsure ({doubt}); no grammar: seq2seq as {classes[0]}, unguarded"
    keys, scored, every = [], [], set()
    for cls in classes:
        part = class_readings(reading_words, token, cls)
        every |= part
        if not part:
            continue
        if spellable([tuple(text.split()) for text in part], vocab):
            keys.append(part_key(cls))
        else:
            scored.append((cls, " ".join(min((tuple(text.split()) for text in part), key=lambda w: (len(w), w)))))
    if not every:
        return SELF, [], [], f"unsure ({doubt}); no reading in any: left as written"
    if len(every) == 1:
        return next(iter(every)), [], [], f"unsure ({doubt}); the one reading they license"
    return None, keys, scored, f"unsure ({doubt}); seq2seq in each, weighed by class"


def adds_nothing(ranked: Sequence[tuple[str, float]], token: str, meaning: Any) -> tuple[list[tuple[str, float]], str]:
    """A union-routed token's readings (best first) kept to those that add nothing the text does not make
    certain, and why ("" when nothing changed): when its readings disagree on a unit, currency or magnitude
    (`meaning(reading, token)`: the grammar's `GrammarWords.meaning`) and the best one says one, the best
    readings that say none ("221B" unsure between MEASURE and ADDRESS: "two twenty one b", never
    "two hundred twenty one byte"), else the token as written (`<self>`). Readings that agree are kept."""
    if meaning is None or len(ranked) < 2:
        return list(ranked), ""
    says = [meaning(text, token) for text, _ in ranked]
    if not says[0] or len(set(says)) == 1:
        return list(ranked), ""
    kept = [item for item, said in zip(ranked, says, strict=True) if not said] or [(SELF, 0.0)]
    return kept, (f"; {ranked[0][0]!r} would say {', '.join(sorted(says[0]))}, which the text does not make "
                  "certain: read without it")


def part_key(cls: str) -> str:
    """The decoding key of one class's part of a union (`class_readings`: its committed reading, else its
    licensed readings), as the grammar adapter reads it."""
    return cls + UNION


def sure_why(cls: str | None, probability: float, decoded: bool, grammar: bool, reading: str,
             constrained: bool) -> str:
    """Why a token with one likely class (or a gold class) was read as it was."""
    if cls is None:
        return "no class: seq2seq, unguarded"
    where = f"{cls} {probability:.2f}"
    if grammar:
        return f"{where}: the grammar's reading"
    if not decoded:
        return f"{where}: as written" if reading in (SELF, "sil") else f"{where}: left as written, no reading"
    if constrained:
        return f"{where}: seq2seq within its readings"
    covered = "no grammar" if cls in COVERED else f"{cls} is not covered by the grammar"
    return f"{where}: seq2seq, unguarded ({covered})"


def weigh_by_class(parts: Mapping[str, Sequence[tuple[str, float]]], classes: Sequence[str],
                   shares: Sequence[float], unspellable: Mapping[str, str] | None = None) -> list[tuple[str, float]]:
    """The readings of a union-routed token ranked by their probability over its likely classes,
    P(r) = Σ_c P(c) · P(r | c): the tagger's probability of each class times the seq2seq's probability of the
    reading among that class's readings — the hypotheses its beam found within the class (`parts`: class →
    (reading, log-probability)), renormalised. The tagger weighs the class, the seq2seq only the reading
    within it: its log-probabilities are not comparable across classes, as the mass it gives a class's
    readings is its own guess of the class, and a poor one where the tagger is sure — 58% of its training
    targets are `<self>` (7,954 of the shared sample's 13,613 train examples), none of a token with a digit (0
    of 2,717), yet asked within PLAIN it is near-certain of `<self>` for "October 1st" (log-probability
    −0.008, against −7.6 for "october first" within DATE), so adding the two log-probabilities let a 2% PLAIN
    branch win over DATE 0.98. A class whose readings the model cannot spell (`unspellable`: class → the
    grammar's shortest reading, `union_route`) gives it P(r | c) = exp(`UNSPELLABLE_SCORE`): the model has no
    word for it, so it wins only where no class has a reading the model can say ("221B": MEASURE 0.79 cannot
    make it "two hundred twenty one byte" when PLAIN leaves it as written). (reading, log P(r)) best first."""
    import math

    share = dict(zip(classes, shares, strict=True))
    total: dict[str, float] = {}
    for cls, text in (unspellable or {}).items():
        total[text] = total.get(text, 0.0) + share.get(cls, 0.0) * math.exp(UNSPELLABLE_SCORE)
    for cls, hypotheses in parts.items():
        if not hypotheses:
            continue
        top = max(score for _, score in hypotheses)
        norm = top + math.log(sum(math.exp(score - top) for _, score in hypotheses))
        for text, score in hypotheses:
            total[text] = total.get(text, 0.0) + share.get(cls, 0.0) * math.exp(score - norm)
    return sorted(((text, math.log(max(p, 1e-300))) for text, p in total.items()), key=lambda item: (-item[1], item[0]))


def class_readings(reading_words: Any, token: str, cls: str) -> set[str]:
    """A class's part of a union (as the grammar adapter's `GrammarWords.union` has it): the one reading the
    grammar commits to in that class, else every reading it licenses there (none where it does not cover)."""
    find = getattr(reading_words, "reading", None)
    one = find(token, cls) if callable(find) else None
    if one is not None:
        return {one}
    return {" ".join(words) for words in reading_words(token, cls)} if cls in COVERED else set()
