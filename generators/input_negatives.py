"""All pairs for one input (`before`): its positives in every split, and the negatives made for them.

This is the per-input unit of work. It sees the input's positives from all splits (so no negative is ever a
reading the corpus gives as positive for it, in any split) but makes a split's negatives only from that
split's tables (no leakage across splits).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from tnforge.generators.negative_context import SplitContext, context_for, mix
from tnforge.generators.negative_sampling import budget, fill, take
from tnforge.generators.pair_keys import text_hash64
from tnforge.generators.random_association import global_draws, within_class
from tnforge.generators.reading_edits import generic_edits, meaning_substitutions
from tnforge.generators.suffix_confusions import suffix_confusions
from tnforge.generators.topk import Hypothesis, topk_candidates
from tnforge.generators.trivial_confusions import is_trivial, trivial_confusions, unread
from tnforge.generators.vocab_pairs import VocabGroup, positive_words, topk_words
from tnforge.hashing import stable_hash64
from tnforge.schemas import SELF
from tnforge.schemas.negative_kinds import RANDOM, SYNTHETIC, TOPK, UNREAD

GENERATOR_VERSION = "negatives-1"


class Positive(NamedTuple):
    """A positive pair of the corpus."""

    split: str
    semiotic_class: str
    after: str
    key: int


class PairRow(NamedTuple):
    split: str
    semiotic_class: str
    before: str
    reading: str
    label: int
    negative_type: str
    negative_subtype: str
    source_key: int


@dataclass(frozen=True)
class Settings:
    """What to generate: kinds (subset of negative_kinds.KINDS), ratio (None = all), cap per input, seed; with `trivial`,
    inputs whose reading is trivial get pairs too and other inputs an "unread" (`<self>`) negative."""

    kinds: frozenset[str]
    ratio: float | None
    cap: int
    seed: int
    trivial: bool = False


@lru_cache(maxsize=256)
def _class_hash(semiotic_class: str) -> int:
    """H(class), cached (there are a few dozen classes)."""
    return stable_hash64(semiotic_class)


def _source_for(hypothesis: Hypothesis, positives: Sequence[Positive]) -> Positive:
    for positive in positives:
        if positive.after == hypothesis.gold and hypothesis.semiotic_class in (None, positive.semiotic_class):
            return positive
    for positive in positives:
        if hypothesis.semiotic_class == positive.semiotic_class:
            return positive
    return positives[0]


def _plan(
    before: str, positive: Positive, context: SplitContext, settings: Settings, wanted: int, base: int
) -> list[tuple[Iterator[tuple[str, str, str]], int]]:
    """Streams and their shares of `wanted`: synthetic half (meaning-changing substitutions half of it, suffix
    confusions a quarter, generic edits the rest; with `settings.trivial` an "unread" negative first, and for
    a trivial reading its trivial confusions instead), random half (within-class and global draws)."""
    kinds = settings.kinds
    cls, reading = positive.semiotic_class, positive.after
    synthetic = (wanted + 1) // 2 if RANDOM in kinds else wanted
    synthetic = synthetic if SYNTHETIC in kinds else 0
    randoms = wanted - synthetic if RANDOM in kinds else 0
    plan: list[tuple[Iterator[tuple[str, str, str]], int]] = []
    if SYNTHETIC in kinds and is_trivial(reading):
        plan.append((trivial_confusions(before, reading), synthetic))
    elif SYNTHETIC in kinds:
        if settings.trivial and synthetic > 0:
            plan.append((unread(before), 1))
            synthetic -= 1
        meaning = (synthetic + 1) // 2
        suffix = (synthetic - meaning + 1) // 2
        plan += [
            (meaning_substitutions(reading, cls, context, base), meaning),
            (suffix_confusions(before, context, base), suffix),
            (generic_edits(reading, cls, context, base), synthetic - meaning - suffix),
        ]
    if RANDOM in kinds:
        within = (randoms + 1) // 2
        plan += [(within_class(cls, context, base), within), (global_draws(context, base), randoms - within)]
    return plan


def input_pairs(
    before: str,
    positives: Sequence[Positive],
    hypotheses: Sequence[Hypothesis],
    contexts: Mapping[str, SplitContext],
    settings: Settings,
) -> tuple[list[PairRow], list[VocabGroup]]:
    """Pair rows, and vocabulary groups (see `vocab_pairs`), for one input in every split where it has positives."""
    forbidden = {p.after for p in positives}
    forbidden_words = {w for p in positives for w in p.after.split()}
    kinds = settings.kinds
    pairs: list[PairRow] = []
    vocab: list[VocabGroup] = []
    for split in sorted({p.split for p in positives}):
        context = context_for(contexts, split)
        here = sorted((p for p in positives if p.split == split), key=lambda p: (p.semiotic_class, p.after))
        base = text_hash64(split, before, seed=settings.seed)
        pairs.extend(PairRow(split, p.semiotic_class, before, p.after, 1, "", "", p.key) for p in here)
        seen: set[str] = set()
        wrong_hypotheses = []
        if TOPK in kinds and hypotheses:
            for reading, kind, subtype, hypothesis in take(
                topk_candidates(list(hypotheses), split), settings.cap, forbidden, seen
            ):
                source = _source_for(hypothesis, here)
                pairs.append(PairRow(split, source.semiotic_class, before, reading, 0, kind, subtype, source.key))
                wrong_hypotheses.append(reading)
        room = settings.cap - len(seen)
        for positive in here:
            if room <= 0:
                break
            positive_base = mix(base ^ positive.key)
            wanted = min(budget(settings.ratio, 1, settings.cap, positive_base), room)
            plan = _plan(before, positive, context, settings, wanted, positive_base)
            for reading, kind, subtype in fill(plan, forbidden, seen):
                pairs.append(PairRow(split, positive.semiotic_class, before, reading, 0, kind, subtype, positive.key))
                room -= 1
        by_class: dict[str, list[str]] = {}
        for positive in here:
            by_class.setdefault(positive.semiotic_class, []).append(positive.after)
        for cls, readings in by_class.items():
            words = positive_words(readings)
            listed = [(word, TOPK) for word in topk_words(wrong_hypotheses, forbidden_words, settings.cap)]
            unlisted = SELF not in forbidden_words and all(word != SELF for word, _ in listed)
            if settings.trivial and unlisted and not all(map(is_trivial, readings)):
                listed.insert(0, (SELF, UNREAD))
            class_base = mix(base ^ _class_hash(cls))
            wanted = min(budget(settings.ratio, len(words), settings.cap, class_base), settings.cap - len(listed))
            vocab.append(VocabGroup(split, cls, before, words, forbidden_words, listed, wanted, class_base))
    return pairs, vocab
