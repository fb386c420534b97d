"""Pairs for the vocabulary-filter dual encoder: (input, word) with label 1 for the words of the gold
reading and 0 for words that must not appear in any reading of the input.

Negative words (type in parentheses) are listed ones first: `<self>` for an input that has a reading
(`unread`, when trivial pairs are made) and the words of wrong top-k hypotheses (`topk`, all of them); then draws from the same class's vocabulary (`class`) alternating with the whole split's vocabulary
(`global`): ratio × (number of positive words) of them, capped per input. A word of any positive reading
of the input (in any split) is never a negative. The draws are vectorised over all inputs of a batch:
stable hashes of (input, draw number) index the vocabularies; forbidden words and repeats are dropped and
each input keeps its first `wanted` draws.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.generators.negative_context import SplitContext, context_for
from tnforge.generators.pair_keys import column_hashes, compose, group_hashes, type_hash
from tnforge.hashing import mix64
from tnforge.schemas.negative_kinds import CLASS, GLOBAL

_DRAW_SALT = np.uint64(0x70CA5EED)


class VocabGroup(NamedTuple):
    """One input and class in one split: its positive words and what its negatives must avoid."""

    split: str
    semiotic_class: str
    before: str
    words: list[str]  # positive words, in order
    forbidden: Collection[str]  # words of every positive reading of the input, in any split
    listed: list[tuple[str, str]]  # (word, negative type) listed negatives: unread, top-k words (filtered)
    wanted: int  # how many class/global negatives to draw
    base: int  # stable hash seeding the draws


def positive_words(readings: Iterable[str]) -> list[str]:
    """The distinct words of the readings, in order of first appearance."""
    return list(dict.fromkeys(word for reading in readings for word in reading.split()))


def topk_words(readings: Iterable[str], forbidden: Collection[str], cap: int) -> list[str]:
    """Distinct words of wrong hypotheses that are not forbidden, in order, at most `cap`."""
    found: dict[str, None] = {}
    for reading in readings:
        for word in reading.split():
            if word not in forbidden:
                found[word] = None
                if len(found) >= cap:
                    return list(found)
    return list(found)


def _vocabulary(context: SplitContext) -> pa.Array:
    """The split's global vocabulary as an Arrow array (made once per context)."""
    found = context._category_cache.get("vocabulary array")
    if found is None:
        found = context._category_cache["vocabulary array"] = pa.array(context.global_vocab, pa.string())
    return found


_SALTED: list[np.ndarray] = []


def _salted_numbers(count: int) -> np.ndarray:
    """mix64(n ^ salt) for draw numbers n = 0 .. count-1 at least (the numbers' half of every draw's hash)."""
    if not _SALTED or len(_SALTED[0]) < count:
        _SALTED[:] = [mix64(np.arange(max(count, 256), dtype=np.uint64) ^ _DRAW_SALT)]
    return _SALTED[0]


def _draw(groups: Sequence[VocabGroup], context: SplitContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group index, word id, is-class-draw) of the negative draws kept, in group order."""
    wanted = np.array([g.wanted for g in groups], dtype=np.int64)
    vocabulary = len(context.global_vocab)
    if vocabulary == 0 or not wanted.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0, dtype=bool)
    draws = np.where(wanted > 0, wanted + wanted // 2 + 4, 0)  # spare draws for forbidden words and repeats
    group = np.repeat(np.arange(len(groups)), draws)
    starts = np.cumsum(draws) - draws
    number = np.arange(len(group)) - np.repeat(starts, draws)
    bases = np.array([g.base for g in groups], dtype=np.uint64)
    hashes = mix64(bases[group] ^ _salted_numbers(int(draws.max()))[number])

    # Each class's word ids once, end to end; a group reads its class's stretch.
    classes = sorted({g.semiotic_class for g in groups})
    class_ids = [context.class_vocab_ids.get(c, np.zeros(0, dtype=np.int64)) for c in classes]
    class_lengths = np.array([len(ids) for ids in class_ids], dtype=np.int64)
    class_offsets = np.cumsum(class_lengths) - class_lengths
    flat = np.concatenate(class_ids) if class_lengths.sum() else np.zeros(1, dtype=np.int64)
    class_index = {c: i for i, c in enumerate(classes)}
    group_class = np.array([class_index[g.semiotic_class] for g in groups], dtype=np.int64)
    lengths, offsets = class_lengths[group_class], class_offsets[group_class]
    from_class = (number % 2 == 0) & (lengths[group] > 0)
    word = (hashes % np.uint64(vocabulary)).astype(np.int64)  # global draws; class draws replaced below
    mine = group[from_class]
    word[from_class] = flat[np.minimum(offsets[mine] + (hashes[from_class] % lengths[mine].astype(np.uint64))
                                       .astype(np.int64), len(flat) - 1)]

    # Forbidden (group, word) codes: positive words of the input in any split, and its top-k words (each
    # distinct word looked up once).
    drawing = np.flatnonzero(wanted > 0)
    chosen = [groups[i] for i in drawing.tolist()]
    forbidden_words = list(chain.from_iterable(g.forbidden for g in chosen))
    forbidden_words += [w for g in chosen for w, _ in g.listed]
    words = pc.dictionary_encode(pa.array(forbidden_words, pa.string()))
    get = context.word_ids().get
    ids = np.array([get(w, -1) for w in words.dictionary.to_pylist()], dtype=np.int64)[
        words.indices.to_numpy(zero_copy_only=False)]
    owner = np.concatenate([np.repeat(drawing, [len(g.forbidden) for g in chosen]),
                            np.repeat(drawing, [len(g.listed) for g in chosen])])
    forbidden = owner[ids >= 0] * vocabulary + ids[ids >= 0]
    # One stable sort of the forbidden codes followed by the draws' codes: the head of each run of one (group,
    # word) is a forbidden code (the run is dropped) or the first draw of that word in the group (kept).
    code = np.concatenate([forbidden, group * vocabulary + word])
    order = np.argsort(code, kind="stable")
    head = np.ones(len(order), dtype=bool)
    ordered = code[order]
    head[1:] = ordered[1:] != ordered[:-1]
    first = order[head]
    kept = np.zeros(len(code) - len(forbidden), dtype=bool)
    kept[first[first >= len(forbidden)] - len(forbidden)] = True
    position = np.flatnonzero(kept)
    # Rank of each kept draw within its group (groups are in order): distance from the group's first row.
    kept_group = group[position]
    starts = np.ones(len(position), dtype=bool)
    starts[1:] = kept_group[1:] != kept_group[:-1]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(position)), 0)) if len(position) else position
    rank = np.arange(len(position)) - group_start
    position = position[rank < wanted[kept_group]]
    return group[position], word[position], from_class[position]


def _listed(groups: Sequence[VocabGroup]) -> tuple[list[str], list[str]]:
    """Each group's positive words (type "") then its listed negative words, and their types, end to end."""
    words: list[str] = []
    types: list[str] = []
    for group in groups:
        words += group.words
        types += [""] * len(group.words)
        for word, kind in group.listed:
            words.append(word)
            types.append(kind)
    return words, types


def vocab_table(groups: Sequence[VocabGroup], contexts: Mapping[str, SplitContext], generator_version: str) -> pa.Table:
    """A VOCAB_PAIRS table: every group's positive words, top-k words and drawn negative words."""
    parts = [table for _, table in vocab_tables(groups, contexts, generator_version)]
    return pa.concat_tables(parts) if parts else schemas.VOCAB_PAIRS.empty_table()


def vocab_tables(groups: Sequence[VocabGroup], contexts: Mapping[str, SplitContext],
                 generator_version: str) -> Iterator[tuple[str, pa.Table]]:
    """`vocab_table` split by split: (split, its VOCAB_PAIRS rows), in split-name order, no empty table."""
    for split in sorted({g.split for g in groups}):
        here = [g for g in groups if g.split == split]
        context = context_for(contexts, split)
        classes, befores = [g.semiotic_class for g in here], [g.before for g in here]
        hashes = group_hashes([split] * len(here), classes, befores)
        # Positive words (label 1) then listed negative words of each group: few per input, listed directly.
        listed_word, listed_type = _listed(here)
        sizes = np.array([(len(g.words), len(g.listed)) for g in here], dtype=np.int64).reshape(-1, 2)
        listed_group = np.repeat(np.arange(len(here)), sizes.sum(axis=1))
        listed_label = np.repeat(np.tile(np.array([1, 0], dtype=np.int8), len(here)), sizes.reshape(-1))
        drawn_group, drawn_word, drawn_class = _draw(here, context)
        vocabulary = _vocabulary(context)
        group_index = np.concatenate([listed_group, drawn_group])
        listed_words = pa.array(listed_word, type=pa.string())
        words = pa.concat_arrays([listed_words, vocabulary.take(pa.array(drawn_word))])
        drawn_types = pa.array([CLASS, GLOBAL], type=pa.string()).take(pa.array(np.where(drawn_class, 0, 1)))
        listed_types = pc.dictionary_encode(pa.array(listed_type, type=pa.string()))
        types = pa.concat_arrays([listed_types.cast(pa.string()), drawn_types])
        word_hashes = np.concatenate([column_hashes(listed_words), context.vocab_hashes[drawn_word]])
        type_hashes = np.concatenate([
            np.array([type_hash(t) for t in listed_types.dictionary.to_pylist()], dtype=np.uint64)[
                listed_types.indices.to_numpy(zero_copy_only=False)],
            np.where(drawn_class, np.uint64(type_hash(CLASS)), np.uint64(type_hash(GLOBAL))).astype(np.uint64),
        ])
        labels = np.concatenate([listed_label, np.zeros(len(drawn_word), dtype=np.int8)])
        take = pa.array(group_index)
        if not len(group_index):
            continue
        yield split, pa.table({
            "key": pa.array(compose(hashes[group_index], word_hashes, type_hashes), type=pa.uint64()),
            "split": pa.repeat(pa.scalar(split, pa.string()), len(group_index)),
            "class": pa.array(classes, type=pa.string()).take(take),
            "before": pa.array(befores, type=pa.string()).take(take),
            "word": words,
            "label": pa.array(labels, type=pa.int8()),
            "negative_type": types,
            "generator_version": pa.repeat(pa.scalar(generator_version, pa.string()), len(group_index)),
        }, schema=schemas.VOCAB_PAIRS)
