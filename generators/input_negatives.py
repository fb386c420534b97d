"""All pairs for a chunk of inputs (`before`s): their positives in every split, and the negatives made for
them, with candidate generation vectorised over the whole chunk.

Each input sees its positives from all splits (so no negative is ever a reading the corpus gives as
positive for it, in any split) but gets a split's negatives only from that split's tables (no leakage
across splits). Per positive, every candidate stream (trivial confusions, unread, meaning-changing
substitutions, suffix confusions, generic edits, within-class and global draws) proposes its share (and
the global draws a few spares), as rows of flat arrays (positive, stream, rank, tier, reading), computed
for all positives of a split at once (`edit_arrays`, `candidate_arrays`). Repeats and forbidden readings are dropped per (input, split) with
one sort over (group, reading code); each positive keeps its first `wanted` survivors in (tier, stream,
rank) order, each (input, split) at most `cap`. A positive's rows depend on the input and the context only,
so the output is the same whatever the chunking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.generators.candidate_arrays import budgets, draw_grid
from tnforge.generators.edit_arrays import (
    GENERIC_LABELS,
    MEANING_LABELS,
    Words,
    build,
    generic_edits,
    meaning_edits,
    running,
    suffix_edits,
)
from tnforge.generators.negative_context import SplitContext, context_for
from tnforge.generators.negative_sampling import take
from tnforge.generators.negatives import BUILTIN_STREAMS, Generator, plugin_streams
from tnforge.generators.pair_keys import column_hashes, text_hash64, text_hashes
from tnforge.generators.topk import Hypothesis, topk_candidates
from tnforge.generators.trivial_confusions import trivial_list
from tnforge.generators.vocab_pairs import VocabGroup, positive_words, topk_words
from tnforge.hashing import mix64, stable_hash64
from tnforge.schemas import SELF, TRIVIAL_TARGETS
from tnforge.schemas.negative_kinds import CLASS, GLOBAL, RANDOM, SYNTHETIC, TOPK, UNREAD

GENERATOR_VERSION = "negatives-2"

#: Candidate streams of a positive, in priority order (the built-in generators'; plug-ins' follow, see
#: `generators.negatives.plugin_streams`).
TRIVIAL_STREAM, UNREAD_STREAM, MEANING, SUFFIX, GENERIC, WITHIN_CLASS, GLOBAL_DRAW = range(BUILTIN_STREAMS)
#: Spare candidates proposed beyond the first places (they fill a positive's shortfalls, from repeats and
#: forbidden readings): by each synthetic stream when there are no random draws, else by the global draws only.
SPARES = 2
RANDOM_SPARES = 3


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


#: A chunk's pair rows as columns (`PairRow`'s fields, under the PAIRS schema's names).
ROW_SCHEMA = pa.schema([("split", pa.string()), ("class", pa.string()), ("before", pa.string()),
                        ("reading", pa.string()), ("label", pa.int8()), ("negative_type", pa.string()),
                        ("negative_subtype", pa.string()), ("source_key", pa.uint64())])
#: `ROW_SCHEMA` and each reading's stable hash (`pair_keys.string_hashes`) where already known, else null.
CHUNK_SCHEMA = ROW_SCHEMA.append(pa.field("reading_hash", pa.uint64()))


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


def _pools(context: SplitContext) -> tuple[pa.Array, dict[str, tuple[int, int]]]:
    """The split's reading pools concatenated (global first, then each class's) and class → (offset, length)."""
    found = context._category_cache.get("pools")
    if found is None:
        values, offsets, at = list(context.global_pool), {}, len(context.global_pool)
        for cls, pool in context.class_pools.items():
            offsets[cls] = (at, len(pool))
            values += pool
            at += len(pool)
        found = context._category_cache["pools"] = (pa.array(values, pa.string()), offsets)
    return found


def _pool_hashes(context: SplitContext) -> np.ndarray:
    """H(reading) of each reading of `_pools(context)` (hashed once per context: draws repeat them)."""
    found = context._category_cache.get("pool hashes")
    if found is None:
        found = context._category_cache["pool hashes"] = column_hashes(_pools(context)[0])
    return found


class _Chunk:
    """The flat arrays of one chunk: positives (with their groups) and candidate parts."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []  # positives and top-k rows, as PairRow tuples
        self.vocab: list[tuple] = []  # VocabGroup fields, a group index instead of (wanted, base)
        self.group_base: list[int] = []
        self.group_room: list[int] = []
        self.forbidden_group: list[int] = []
        self.forbidden_value: list[str] = []
        self.positives: list[tuple[int, SplitContext, str, Positive]] = []  # (group, context, before, positive)
        #: Candidates, part by part: (positive, stream, rank, tier, reading (Arrow), label code, reading hash or
        #: None when not known yet) arrays.
        self.parts: list[tuple] = []
        self.labels: dict[tuple[str, str], int] = {}

    def label_code(self, kind: str, subtype: str) -> int:
        return self.labels.setdefault((kind, subtype), len(self.labels))

    def add(self, pos: np.ndarray, stream: int, rank: np.ndarray, threshold: np.ndarray, values: pa.Array,
            labels: np.ndarray, hashes: np.ndarray | None = None) -> None:
        """A stream's candidates: rank < threshold[pos] are first places (tier 0), the others spares; `hashes`,
        the readings' stable hashes when known (draws from the pools)."""
        if len(pos):
            self.parts.append((pos, np.full(len(pos), stream), rank, rank >= threshold[pos], values, labels, hashes))

    def produced(self, pos: np.ndarray) -> np.ndarray:
        """How many candidates each positive got from the part whose positives are `pos`."""
        return np.bincount(pos, minlength=len(self.positives))


def _collect_singles(chunk: _Chunk, singles: list[tuple[str, Positive]], contexts: Mapping[str, SplitContext],
                     settings: Settings) -> None:
    """`_collect` of inputs with one positive and no hypotheses (most of them), a column at a time."""
    first, seed, trivial = len(chunk.group_base), settings.seed, settings.trivial
    chunk.group_base += text_hashes([(p.split, before) for before, p in singles], seed).tolist()
    chunk.rows += [(p.split, p.semiotic_class, before, p.after, 1, "", "", p.key) for before, p in singles]
    chunk.group_room += [settings.cap] * len(singles)
    chunk.forbidden_group += range(first, first + len(singles))
    chunk.forbidden_value += [p.after for _, p in singles]
    split_context = {split: context_for(contexts, split) for split in {p.split for _, p in singles}}
    chunk.positives += [(group, split_context[p.split], before, p)
                        for group, (before, p) in enumerate(singles, start=first)]
    chunk.vocab += [
        (p.split, p.semiotic_class, before, words, set(words),
         [(SELF, UNREAD)] if trivial and SELF not in words and p.after not in TRIVIAL_TARGETS else [], group)
        for group, (before, p), words in zip(range(first, first + len(singles)), singles,
                                             [list(dict.fromkeys(p.after.split())) for _, p in singles], strict=True)]


def _collect(chunk: _Chunk, before: str, positives: Sequence[Positive], hypotheses: Sequence[Hypothesis],
             contexts: Mapping[str, SplitContext], settings: Settings) -> None:
    """An input's positive rows, top-k rows, vocabulary groups (their draws' budgets left for later), groups
    and forbidden readings."""
    forbidden = sorted({p.after for p in positives})
    forbidden_words = {w for p in positives for w in p.after.split()}
    for split in sorted({p.split for p in positives}):
        context = context_for(contexts, split)
        here = sorted((p for p in positives if p.split == split), key=lambda p: (p.semiotic_class, p.after))
        group = len(chunk.group_base)
        chunk.group_base.append(text_hash64(split, before, seed=settings.seed))
        chunk.rows.extend((split, p.semiotic_class, before, p.after, 1, "", "", p.key) for p in here)
        wrong_hypotheses: list[str] = []
        if TOPK in settings.kinds and hypotheses:
            for reading, kind, subtype, hypothesis in take(
                    topk_candidates(list(hypotheses), split), settings.cap, set(forbidden), set()):
                source = _source_for(hypothesis, here)
                chunk.rows.append((split, source.semiotic_class, before, reading, 0, kind, subtype, source.key))
                wrong_hypotheses.append(reading)
        chunk.group_room.append(settings.cap - len(wrong_hypotheses))
        chunk.forbidden_group += [group] * (len(forbidden) + len(wrong_hypotheses))
        chunk.forbidden_value += forbidden + wrong_hypotheses
        chunk.positives += [(group, context, before, p) for p in here]
        by_class: dict[str, list[str]] = {}
        for positive in here:
            by_class.setdefault(positive.semiotic_class, []).append(positive.after)
        for cls, readings in by_class.items():
            words = positive_words(readings)
            listed = [(word, TOPK) for word in topk_words(wrong_hypotheses, forbidden_words, settings.cap)]
            unlisted = SELF not in forbidden_words and all(word != SELF for word, _ in listed)
            if settings.trivial and unlisted and not all(r in TRIVIAL_TARGETS for r in readings):
                listed.insert(0, (SELF, UNREAD))
            chunk.vocab.append((split, cls, before, words, forbidden_words, listed, group))


def _vocab_groups(chunk: _Chunk, settings: Settings) -> list[VocabGroup]:
    """The vocabulary groups, their draws' budgets computed for all at once: ratio × positive words (a
    fractional part rounded by a stable hash of H(split, before) and the class), at most the cap less the
    listed negatives."""
    if not chunk.vocab:
        return []
    split, cls, before, words, forbidden, listed, group = (list(c) for c in zip(*chunk.vocab, strict=True))
    class_hashes = np.array([_class_hash(c) for c in cls], dtype=np.uint64)
    bases = mix64(np.array(chunk.group_base, dtype=np.uint64)[group] ^ class_hashes)
    counts = np.array([len(w) for w in words], dtype=np.int64)
    wanted = np.minimum(budgets(settings.ratio, settings.cap, bases, counts),
                        settings.cap - np.array([len(x) for x in listed], dtype=np.int64))
    return list(map(VocabGroup._make, zip(split, cls, before, words, forbidden, listed, wanted.tolist(),
                                          bases.tolist(), strict=True)))


def _shares(chunk: _Chunk, wanted: np.ndarray, settings: Settings) -> dict[int, np.ndarray]:
    """Each stream's share of each positive's `wanted`: synthetic half (meaning-changing substitutions half
    of it, suffix confusions a quarter, generic edits the rest; with `settings.trivial` an "unread" negative
    first, and for a trivial reading its trivial confusions instead), random half (within-class and global)."""
    kinds = settings.kinds
    trivial = np.array([p.after in TRIVIAL_TARGETS for *_, p in chunk.positives], dtype=bool)
    synthetic = (wanted + 1) // 2 if RANDOM in kinds else wanted.copy()
    synthetic = synthetic if SYNTHETIC in kinds else np.zeros_like(wanted)
    randoms = wanted - synthetic if RANDOM in kinds else np.zeros_like(wanted)
    unread = (~trivial & (synthetic > 0)).astype(np.int64) if settings.trivial else np.zeros_like(wanted)
    rest = np.where(trivial, 0, synthetic - unread)
    meaning = (rest + 1) // 2
    suffix = (rest - meaning + 1) // 2
    within = (randoms + 1) // 2
    return {TRIVIAL_STREAM: np.where(trivial, synthetic, 0), UNREAD_STREAM: unread, MEANING: meaning,
            SUFFIX: suffix, GENERIC: rest - meaning - suffix, WITHIN_CLASS: within, GLOBAL_DRAW: randoms - within}


def _synthetic(chunk: _Chunk, shares: dict[int, np.ndarray], bases: np.ndarray, rows: np.ndarray,
               spares: int) -> np.ndarray:
    """Propose the synthetic candidates of the positives `rows` (one split's), vectorised; returns each
    positive's first places left unfilled (passed on to the random draws)."""
    context = chunk.positives[rows[0]][1]
    carried = np.zeros(len(chunk.positives), dtype=np.int64)
    trivial = shares[TRIVIAL_STREAM]
    found = [(i, value, chunk.label_code(SYNTHETIC, subtype)) for i in rows[trivial[rows] > 0].tolist()
             for value, subtype in trivial_list(chunk.positives[i][2], chunk.positives[i][3].after)]
    if found:
        pos = np.array([f[0] for f in found], dtype=np.int64)
        chunk.add(pos, TRIVIAL_STREAM, np.zeros(len(pos), np.int64), trivial, pa.array([f[1] for f in found]),
                  np.array([f[2] for f in found], dtype=np.int64))
        carried += np.maximum(trivial - chunk.produced(pos), 0)
    else:
        carried += trivial
    unread = rows[shares[UNREAD_STREAM][rows] > 0]
    chunk.add(unread, UNREAD_STREAM, np.zeros(len(unread), np.int64), shares[UNREAD_STREAM],
              pa.repeat(pa.scalar(SELF), len(unread)), np.full(len(unread), chunk.label_code(SYNTHETIC, UNREAD)))
    edited = rows[(trivial[rows] == 0) & (shares[UNREAD_STREAM][rows] + shares[MEANING][rows]
                                          + shares[SUFFIX][rows] + shares[GENERIC][rows] > 0)]
    if not len(edited):
        return carried
    chosen = [chunk.positives[i] for i in edited.tolist()]
    words = Words([p.after for *_, p in chosen])
    classes = [p.semiotic_class for *_, p in chosen]
    base = bases[edited]
    meaning_share = shares[MEANING][edited]
    edits = meaning_edits(words, classes, base, np.where(meaning_share > 0, meaning_share + spares, 0), context)
    codes = np.array([chunk.label_code(SYNTHETIC, label) for label in MEANING_LABELS], dtype=np.int64)
    chunk.add(edited[edits.row], MEANING, edits.rank, shares[MEANING], build(words, edits), codes[edits.label])
    carry = np.maximum(meaning_share - np.bincount(edits.row, minlength=len(edited)), 0)
    threshold = shares[SUFFIX][edited] + carry
    limits = np.where(threshold > 0, threshold + spares, 0)
    row, rank, values = suffix_edits([before for _, _, before, _ in chosen], base, limits, context)
    wanted = np.zeros(len(chunk.positives), dtype=np.int64)
    wanted[edited] = threshold
    chunk.add(edited[row], SUFFIX, rank, wanted, values, np.full(len(row), chunk.label_code(SYNTHETIC, "suffix")))
    carry = np.maximum(threshold - np.bincount(row, minlength=len(edited)), 0)
    threshold = shares[GENERIC][edited] + carry
    vocabulary, spans = _vocabularies(context)
    at = np.array([spans.get(c, spans[""])[0] for c in classes], dtype=np.int64)
    size = np.array([spans.get(c, spans[""])[1] for c in classes], dtype=np.int64)
    edits = generic_edits(words, at, size, vocabulary, base, np.where(threshold > 0, threshold + spares, 0))
    codes = np.array([chunk.label_code(SYNTHETIC, label) for label in GENERIC_LABELS], dtype=np.int64)
    wanted[edited] = threshold
    chunk.add(edited[edits.row], GENERIC, edits.rank, wanted, build(words, edits), codes[edits.label])
    carried[edited] += np.maximum(threshold - np.bincount(edits.row, minlength=len(edited)), 0)
    return carried


def _vocabularies(context: SplitContext) -> tuple[np.ndarray, dict[str, tuple[int, int]]]:
    """The split's vocabularies concatenated (global first) and class → (offset, length); "" → the global
    one, which a class without words of its own uses."""
    found = context._category_cache.get("vocabularies")
    if found is None:
        values, spans = list(context.global_vocab), {"": (0, len(context.global_vocab))}
        for cls, words in context.class_vocab.items():
            if words:
                spans[cls] = (len(values), len(words))
                values += words
        found = context._category_cache["vocabularies"] = (np.asarray(values, dtype=object), spans)
    return found


def _random(chunk: _Chunk, shares: dict[int, np.ndarray], bases: np.ndarray, carried: np.ndarray,
            rows: np.ndarray) -> None:
    """The random draws of the positives `rows` (one split's), vectorised: the within-class draws take the
    synthetic streams' unfilled places, the global draws theirs."""
    context = chunk.positives[rows[0]][1]
    pool, offsets = _pools(context)
    spans = [offsets.get(chunk.positives[i][3].semiotic_class, (0, 0)) for i in rows.tolist()]
    class_at = np.array([s[0] for s in spans], dtype=np.int64)
    class_size = np.array([s[1] for s in spans], dtype=np.int64)
    first = shares[WITHIN_CLASS][rows] + carried[rows]
    second = shares[GLOBAL_DRAW][rows] + first - np.minimum(first, class_size)
    size = np.full(len(rows), len(context.global_pool), dtype=np.int64)
    for stream, at, length, threshold, salt, subtype, spares in (
            (WITHIN_CLASS, class_at, class_size, first, 0xC1A55, CLASS, 0),
            (GLOBAL_DRAW, np.zeros_like(size), size, second, 0x610BA1, GLOBAL, RANDOM_SPARES)):
        wants = threshold + spares
        row, rank, index = draw_grid(at, length, wants, bases[rows], salt)
        wanted = np.zeros(len(chunk.positives), dtype=np.int64)
        wanted[rows] = threshold
        chunk.add(rows[row], stream, rank, wanted, pool.take(pa.array(index, pa.int64())),
                  np.full(len(row), chunk.label_code(RANDOM, subtype)), _pool_hashes(context)[index])


def _plugin(chunk: _Chunk, stream: int, generator: Generator, bases: np.ndarray, wanted: np.ndarray) -> None:
    """A plug-in generator's candidates for every positive, after the built-in streams': its first `wanted`
    are first places (it shares each positive's budget with the kinds chosen with it)."""
    salt = stable_hash64(generator.kind)
    found = [(i, rank, reading, chunk.label_code(generator.kind, subtype))
             for i, (_, _, before, positive) in enumerate(chunk.positives)
             for rank, (reading, subtype) in enumerate(generator.propose(
                 before, positive.after, positive.semiotic_class, int(mix64(bases[i:i + 1] ^ np.uint64(salt))[0])))]
    if found:
        pos, rank, values, labels = zip(*found, strict=True)
        chunk.add(np.array(pos, dtype=np.int64), stream, np.array(rank, dtype=np.int64), wanted,
                  pa.array(values, pa.string()), np.array(labels, dtype=np.int64))


def _select(chunk: _Chunk, wanted: np.ndarray) -> pa.Table:
    """The negatives kept: per (input, split) group, the first occurrence of each reading in (positive,
    tier, stream, rank) order unless it is forbidden (or empty); per positive its first `wanted` of those;
    per group at most its room. Returns a table of `CHUNK_SCHEMA`."""
    if not chunk.parts:
        return CHUNK_SCHEMA.empty_table()
    groups = np.array([g for g, *_ in chunk.positives], dtype=np.int64)
    pos, stream, rank, tier, label = (np.concatenate([p[i] for p in chunk.parts]) for i in (0, 1, 2, 3, 5))
    values = pa.concat_arrays([p[4] for p in chunk.parts])
    hashes = np.concatenate([np.zeros(len(p[0]), np.uint64) if p[6] is None else p[6] for p in chunk.parts])
    known = np.concatenate([np.full(len(p[0]), p[6] is not None) for p in chunk.parts])
    count = len(pos)
    encoded = pc.dictionary_encode(pa.concat_arrays([values, pa.array(chunk.forbidden_value, pa.string())]))
    code = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    distinct = len(encoded.dictionary)
    # One priority per candidate, (positive, tier, stream, rank) in order; forbidden readings come first.
    streams = max(8, int(stream.max()) + 1)  # 8 with the built-ins alone: the same order as ever
    priority = (((pos + 1) * 2 + tier) * streams + stream) * (int(rank.max()) + 1) + rank
    priority = np.concatenate([priority, np.zeros(len(chunk.forbidden_group), dtype=np.int64)])
    reading = np.concatenate([groups[pos], np.array(chunk.forbidden_group, dtype=np.int64)]) * distinct + code
    order = np.lexsort((priority, reading))
    head = np.ones(len(order), dtype=bool)
    ordered = reading[order]
    head[1:] = ordered[1:] != ordered[:-1]
    winners = order[head]
    winners = winners[winners < count]  # a forbidden reading's group keeps none of its candidates
    empty = np.flatnonzero(pc.equal(encoded.dictionary, "").to_numpy(zero_copy_only=False))
    if len(empty):
        winners = winners[code[winners] != empty[0]]
    winners = winners[np.argsort(priority[winners], kind="stable")]
    winners = winners[running(pos[winners]) < wanted[pos[winners]]]
    owner = groups[pos[winners]]
    winners = winners[running(owner) < np.array(chunk.group_room, dtype=np.int64)[owner]]
    kept = pa.array(pos[winners])
    kinds, subtypes = (pa.array(column, pa.string()) for column in zip(*chunk.labels, strict=True))
    code = pa.array(label[winners])
    positives = [(p.split, p.semiotic_class, before, p.key) for _, _, before, p in chunk.positives]
    splits, classes, befores, keys = (pa.array(column, type).take(kept) for column, type in zip(
        zip(*positives, strict=True), (pa.string(), pa.string(), pa.string(), pa.uint64()), strict=True))
    return pa.table([splits, classes, befores, values.take(pa.array(winners)),
                     pa.array(np.zeros(len(kept), dtype=np.int8)), kinds.take(code), subtypes.take(code), keys,
                     pa.array(hashes[winners], pa.uint64(), mask=~known[winners])], schema=CHUNK_SCHEMA)


def rows_table(rows: Sequence[tuple]) -> pa.Table:
    """Pair rows (`PairRow` fields) as a table of `ROW_SCHEMA`."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(ROW_SCHEMA)
    return pa.table([pa.array(list(values), field.type) for values, field in zip(columns, ROW_SCHEMA, strict=True)],
                    schema=ROW_SCHEMA)


def chunk_columns(
    inputs: Sequence[str],
    positives: Mapping[str, Sequence[Positive]],
    hypotheses: Mapping[str, Sequence[Hypothesis]],
    contexts: Mapping[str, SplitContext],
    settings: Settings,
) -> tuple[pa.Table, list[VocabGroup]]:
    """Pair rows (a table of `CHUNK_SCHEMA`: each input's positive and top-k rows, then the negatives kept) and
    vocabulary groups (see `vocab_pairs`) of some inputs, in every split where they have positives."""
    chunk = _Chunk()
    topk = TOPK in settings.kinds
    singles = [(before, found[0]) for before in inputs
               if len(found := positives[before]) == 1 and not (topk and hypotheses.get(before))]
    _collect_singles(chunk, singles, contexts, settings)
    if len(singles) < len(inputs):
        single = {before for before, _ in singles}
        for before in inputs:
            if before not in single:
                _collect(chunk, before, positives[before], hypotheses.get(before, ()), contexts, settings)
    vocab = _vocab_groups(chunk, settings)
    if not chunk.positives:
        return _with_hashes(rows_table(chunk.rows)), vocab
    group_bases = np.array(chunk.group_base, dtype=np.uint64)
    keys = np.array([p.key for *_, p in chunk.positives], dtype=np.uint64)
    bases = mix64(group_bases[[g for g, *_ in chunk.positives]] ^ keys)
    rooms = np.array(chunk.group_room, dtype=np.int64)[[g for g, *_ in chunk.positives]]
    wanted = np.maximum(np.minimum(budgets(settings.ratio, settings.cap, bases), rooms), 0)
    shares = _shares(chunk, wanted, settings)
    by_context: dict[int, list[int]] = {}
    for pos, (_, context, _, _) in enumerate(chunk.positives):
        by_context.setdefault(id(context), []).append(pos)
    for members in by_context.values():
        rows = np.array(members, dtype=np.int64)
        spares = 0 if RANDOM in settings.kinds else SPARES
        carried = _synthetic(chunk, shares, bases, rows, spares) if SYNTHETIC in settings.kinds else np.zeros_like(wanted)
        if RANDOM in settings.kinds:
            _random(chunk, shares, bases, carried, rows)
    for stream, generator in plugin_streams(settings.kinds):
        _plugin(chunk, stream, generator, bases, wanted)
    return pa.concat_tables([_with_hashes(rows_table(chunk.rows)), _select(chunk, wanted)]), vocab


def _with_hashes(table: pa.Table) -> pa.Table:
    """A `ROW_SCHEMA` table with a `reading_hash` column of nulls (not known)."""
    return table.append_column(CHUNK_SCHEMA.field("reading_hash"), pa.nulls(table.num_rows, pa.uint64()))
