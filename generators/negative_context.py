"""The global tables every negative generator reads, built in one pass over the positive pairs.

Per split (so that dev/test negatives only ever come from dev/test positives): the suffix table for
suffix confusions, capped reading pools (global and per class) for random association, and the word
vocabularies (global and per class) for edits and vocabulary pairs. The tables are bounded in size
(caps below), whatever the corpus size, so the context travels cheaply as one Beam side input.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.generators.pair_keys import string_hashes, text_hash64
from tnforge.hashing import combine64

#: Suffixes of 1..SUFFIX_MAX characters index the suffix table.
SUFFIX_MAX = 4
#: At most this many (before, reading) entries are kept per suffix (chosen by stable hash).
SUFFIX_ENTRIES = 8
#: At most this many distinct readings per random-association pool (global, and per class).
POOL_CAP = 8192
#: At most this many words per vocabulary (global, and per class).
VOCAB_CAP = 50_000

_MASK64 = (1 << 64) - 1


def mix(value: int) -> int:
    """splitmix64 finaliser on a Python int (the scalar twin of `tnforge.hashing.mix64`, inlined for speed)."""
    z = value & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


#: salt → mix(salt + golden ratio): salts are a few hundred small constants, so each is mixed once.
_SALTED: dict[int, int] = {}


def derive(base: int, salt: int) -> int:
    """A well-mixed 64-bit value from a base hash and a small salt: stable, cheap, independent per salt."""
    salted = _SALTED.get(salt)
    if salted is None:
        salted = _SALTED[salt] = mix(salt + 0x9E3779B97F4A7C15)
    return mix(base ^ salted)


@dataclass
class SplitContext:
    """The tables of one split."""

    split: str
    suffix_table: dict[str, tuple[tuple[str, str], ...]]
    global_pool: tuple[str, ...]
    class_pools: dict[str, tuple[str, ...]]
    global_vocab: tuple[str, ...]
    class_vocab: dict[str, tuple[str, ...]]
    #: Vectorised views of the vocabularies: stable_hash64 of each global_vocab word, and per class the
    #: indices of its words in global_vocab.
    vocab_hashes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    class_vocab_ids: dict[str, np.ndarray] = field(default_factory=dict)
    _category_cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_category_cache"] = {}
        return state

    def word_ids(self) -> dict[str, int]:
        """word → its index in global_vocab (built once per context, not shipped with it)."""
        found = self._category_cache.get("word_ids")
        if found is None:
            found = self._category_cache["word_ids"] = {word: i for i, word in enumerate(self.global_vocab)}
        return found

    def category_words(self, semiotic_class: str, group: frozenset[str]) -> tuple[str, ...]:
        """Words of a substitution group seen in this class's vocabulary (sorted), else the whole group."""
        cache_key = (semiotic_class, id(group))
        found = self._category_cache.get(cache_key)
        if found is None:
            vocabulary = self.class_vocab.get(semiotic_class, ())
            found = tuple(w for w in vocabulary if w in group)
            if len(found) < 2:
                found = tuple(sorted(group))
            self._category_cache[cache_key] = found
        return found


def _capped(values: list[str], hashes: np.ndarray, cap: int) -> tuple[str, ...]:
    """Up to `cap` values (the ones with the smallest hashes), in sorted order."""
    if len(values) > cap:
        keep = np.argsort(hashes, kind="stable")[:cap]
        values = [values[i] for i in keep]
    return tuple(sorted(values))


def _string_hashes(values: list[str], seed: int) -> np.ndarray:
    """stable_hash64(value, seed=seed) of each value."""
    if not seed:
        return string_hashes(values)
    return np.fromiter((text_hash64(v, seed=seed) for v in values), dtype=np.uint64, count=len(values))


def _suffix_table(befores: pa.Array, afters: pa.Array, pair_hashes: np.ndarray) -> dict[str, tuple[tuple[str, str], ...]]:
    """suffix (1..SUFFIX_MAX characters) → its SUFFIX_ENTRIES smallest (pair hash, before, after) entries as
    (before, after), for suffixes shared by at least two inputs; in the order each suffix first occurs (row by
    row, shortest first). Computed on arrays: one sort of every (suffix, entry) instead of a list per suffix."""
    lengths = pc.utf8_length(befores).to_numpy(zero_copy_only=False)
    suffixes, rows, firsts = [], [], []
    for length in range(1, SUFFIX_MAX + 1):
        found = np.flatnonzero(lengths >= length)
        suffixes.append(pc.utf8_slice_codeunits(befores.take(pa.array(found)), start=-length))
        rows.append(found)
        firsts.append(found * SUFFIX_MAX + (length - 1))
    encoded = pc.dictionary_encode(pa.concat_arrays(suffixes))
    code = encoded.indices.to_numpy(zero_copy_only=False)
    if not len(code):
        return {}
    row, first = np.concatenate(rows), np.concatenate(firsts)
    before_code, before_rank = _codes_and_ranks(befores)
    _, after_rank = _codes_and_ranks(afters)
    order = np.lexsort((after_rank[row], before_rank[row], pair_hashes[row], code))
    code, row, first = code[order], row[order], first[order]
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    ends = np.r_[starts[1:], len(code)]
    member = before_code[row]
    shared = np.minimum.reduceat(member, starts) != np.maximum.reduceat(member, starts)
    group_first = np.minimum.reduceat(first, starts)[shared]
    starts, ends = starts[shared], ends[shared]
    by_first = np.argsort(group_first, kind="stable")
    starts, ends = starts[by_first], np.minimum(ends[by_first], starts[by_first] + SUFFIX_ENTRIES)
    names = encoded.dictionary.take(pa.array(code[starts])).to_pylist()
    # The kept entries, suffix by suffix: positions start..end-1 of each kept group.
    counts = ends - starts
    kept = row[np.repeat(starts - np.r_[0, np.cumsum(counts)[:-1]], counts) + np.arange(counts.sum())]
    pairs = list(zip(befores.take(pa.array(kept)).to_pylist(), afters.take(pa.array(kept)).to_pylist(), strict=True))
    bounds = np.r_[0, np.cumsum(counts)].tolist()
    return {name: tuple(pairs[bounds[i]:bounds[i + 1]]) for i, name in enumerate(names)}


def _codes_and_ranks(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Each string's code among the distinct values and its rank in their (code point) order."""
    encoded = pc.dictionary_encode(values)
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    return codes, rank[codes]


#: Strings whose whitespace Arrow's ASCII split finds exactly as Python's str.split() does.
_PLAIN_ASCII = r"^[\x20-\x7e\t\n\r\x0b\x0c]*$"


def _words(classes: pa.Array, afters: pa.Array) -> tuple[pa.Array, pa.Array]:
    """(class, word) of every word of every reading (`str.split()`'s words; split by Arrow for plain ASCII
    readings, by Python for the others)."""
    plain = pc.match_substring_regex(afters, _PLAIN_ASCII)
    ascii_rows = pc.filter(afters, plain)
    lists = pc.ascii_split_whitespace(ascii_rows)
    word_class = [pc.take(pc.filter(classes, plain), pc.list_parent_indices(lists))]
    words = [pc.list_flatten(lists)]
    others = pc.invert(plain)
    other_words = [(cls, word) for cls, after in zip(pc.filter(classes, others).to_pylist(),
                                                     pc.filter(afters, others).to_pylist(), strict=True)
                   for word in after.split()]
    word_class.append(pa.array([c for c, _ in other_words], pa.string()))
    words.append(pa.array([w for _, w in other_words], pa.string()))
    word_class, words = pa.concat_arrays(word_class), pa.concat_arrays(words)
    kept = pc.not_equal(words, "")  # Arrow keeps the empty word around leading, trailing or no whitespace
    return pc.filter(word_class, kept), pc.filter(words, kept)


def _distinct_by_class(classes: pa.Array, values: pa.Array) -> dict[str, set[str]]:
    """class → the set of its distinct values."""
    distinct = pa.table({"class": classes, "value": values}).group_by(["class", "value"]).aggregate([])
    found: dict[str, set[str]] = defaultdict(set)
    for cls, value in zip(distinct.column("class").to_pylist(), distinct.column("value").to_pylist(), strict=True):
        found[cls].add(value)
    return found


#: The parts a split's context is built in, each from the split's positives alone (`build_context_part`): they
#: can be built at the same time, on different workers, and put together (`assemble_context`).
CONTEXT_PARTS = ("suffixes", "tables")


def build_context_part(split: str, part: str, table: pa.Table, seed: int) -> dict:
    """One part of a split's tables, as fields of `SplitContext`, from the split's positive pairs (columns key,
    class, before, after) in a fixed row order: "suffixes" (the suffix table) or "tables" (pools and vocabularies)."""
    if part == "suffixes":
        befores = table.column("before").combine_chunks()
        afters = table.column("after").combine_chunks()
        pair_hashes = combine64(seed, table.column("key").to_numpy(zero_copy_only=False).astype(np.uint64))
        return {"suffix_table": _suffix_table(befores, afters, pair_hashes)}
    if part != "tables":
        raise ValueError(f"unknown context part {part!r}; choose from {', '.join(CONTEXT_PARTS)}")
    afters = table.column("after").combine_chunks()
    classes = table.column("class").combine_chunks()
    class_readings = _distinct_by_class(classes, afters)
    class_words = _distinct_by_class(*_words(classes, afters))
    for cls in class_readings:  # a class whose readings have no word (e.g. "") still has a (empty) vocabulary
        class_words.setdefault(cls, set())

    hashed: dict[str, int] = {}  # a reading in the global pool and its class's pool is hashed once

    def pool(readings: set[str], cap: int) -> tuple[str, ...]:
        values = sorted(readings)
        if len(values) <= cap:
            return tuple(values)
        missing = [v for v in values if v not in hashed]
        hashed.update(zip(missing, _string_hashes(missing, seed).tolist(), strict=True))
        return _capped(values, np.fromiter(map(hashed.__getitem__, values), dtype=np.uint64, count=len(values)), cap)

    all_readings = set().union(*class_readings.values()) if class_readings else set()
    all_words = set().union(*class_words.values()) if class_words else set()
    global_vocab = pool(all_words, VOCAB_CAP)
    class_vocab = {cls: pool(w, VOCAB_CAP) for cls, w in sorted(class_words.items())}
    word_id = {word: i for i, word in enumerate(global_vocab)}
    return {
        "global_pool": pool(all_readings, POOL_CAP),
        "class_pools": {cls: pool(r, POOL_CAP) for cls, r in sorted(class_readings.items())},
        "global_vocab": global_vocab,
        "class_vocab": class_vocab,
        "vocab_hashes": _string_hashes(list(global_vocab), 0),
        "class_vocab_ids": {
            cls: np.array([word_id[w] for w in words if w in word_id], dtype=np.int64)
            for cls, words in class_vocab.items()
        },
    }


def build_split_context(split: str, table: pa.Table, seed: int) -> SplitContext:
    """The tables of one split from its positive pairs (columns key, class, before, after)."""
    return SplitContext(split=split, **{k: v for part in CONTEXT_PARTS
                                        for k, v in build_context_part(split, part, table, seed).items()})


def split_rows(tables: list[pa.Table], split: str | None = None) -> pa.Table | None:
    """Positive-pair tables (any slicing) as one table in a fixed row order, sorted by (split, key) — the order
    every context is built from, whatever order the slices came in — keeping one split's rows when `split` is
    given; None when no row is left."""
    columns = ["split", "key", "class", "before", "after"]
    tables = [t.select(columns) for t in tables if t.num_rows]
    if split is not None:
        tables = [t.filter(pc.equal(t.column("split"), split)) for t in tables]
        tables = [t for t in tables if t.num_rows]
    if not tables:
        return None
    return pa.concat_tables(tables).sort_by([("split", "ascending"), ("key", "ascending")])


def build_context(tables: list[pa.Table], seed: int) -> dict[str, SplitContext]:
    """Split name → its tables, from positive-pair tables (any slicing; columns split, key, class, before, after)."""
    table = split_rows(tables)
    if table is None:
        return {}
    contexts = {}
    for split in sorted(set(table.column("split").to_pylist())):
        part = table.filter(pc.equal(table.column("split"), split))
        contexts[split] = build_split_context(split, part, seed)
    return contexts


def assemble_context(parts: list[tuple[str, str, dict]]) -> dict[str, SplitContext]:
    """Split name → its tables, from the (split, part, fields) of every `build_context_part` of every split
    that has positives (in any order)."""
    fields: dict[str, dict] = defaultdict(dict)
    for split, _, found in sorted(parts, key=lambda p: (p[0], p[1])):
        fields[split].update(found)
    return {split: SplitContext(split=split, **found) for split, found in sorted(fields.items())}


def context_for(contexts: Mapping[str, SplitContext], split: str) -> SplitContext:
    """The tables of a split; empty tables for a split without non-trivial positives (trivial inputs only)."""
    found = contexts.get(split)
    if found is None:
        found = SplitContext(split, {}, (), {}, (), {})
    return found
