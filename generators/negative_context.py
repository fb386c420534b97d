"""The global tables every negative generator reads, built in one pass over the positive pairs.

Per split (so that dev/test negatives only ever come from dev/test positives): the suffix table for
suffix confusions, capped reading pools (global and per class) for random association, and the word
vocabularies (global and per class) for edits and vocabulary pairs. The tables are bounded in size
(caps below), whatever the corpus size, so the context travels cheaply as one Beam side input.
"""

from __future__ import annotations

import heapq
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


def build_split_context(split: str, table: pa.Table, seed: int) -> SplitContext:
    """The tables of one split from its positive pairs (columns key, class, before, after)."""
    classes = table.column("class").to_pylist()
    befores = table.column("before").to_pylist()
    afters = table.column("after").to_pylist()
    pair_hashes = combine64(seed, table.column("key").to_numpy(zero_copy_only=False).astype(np.uint64))

    suffix_entries: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    class_readings: dict[str, set[str]] = defaultdict(set)
    class_words: dict[str, set[str]] = defaultdict(set)
    for cls, before, after, pair_hash in zip(classes, befores, afters, pair_hashes.tolist(), strict=True):
        class_readings[cls].add(after)
        class_words[cls].update(after.split())
        for length in range(1, min(len(before), SUFFIX_MAX) + 1):
            suffix_entries[before[-length:]].append((pair_hash, before, after))

    suffix_table: dict[str, tuple[tuple[str, str], ...]] = {}
    for suffix, entries in suffix_entries.items():
        first = entries[0][1]
        if all(before == first for _, before, _ in entries):
            continue  # only inputs that share the suffix with another input can be confused
        # The SUFFIX_ENTRIES smallest entries, in order (the head of the sorted list, without sorting it all).
        suffix_table[suffix] = tuple((before, after) for _, before, after in heapq.nsmallest(SUFFIX_ENTRIES, entries))

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
    return SplitContext(
        split=split,
        suffix_table=suffix_table,
        global_pool=pool(all_readings, POOL_CAP),
        class_pools={cls: pool(r, POOL_CAP) for cls, r in sorted(class_readings.items())},
        global_vocab=global_vocab,
        class_vocab=class_vocab,
        vocab_hashes=_string_hashes(list(global_vocab), 0),
        class_vocab_ids={
            cls: np.array([word_id[w] for w in words if w in word_id], dtype=np.int64)
            for cls, words in class_vocab.items()
        },
    )


def build_context(tables: list[pa.Table], seed: int) -> dict[str, SplitContext]:
    """Split name → its tables, from positive-pair tables (any slicing; columns split, key, class, before, after)."""
    columns = ["split", "key", "class", "before", "after"]
    tables = [t.select(columns) for t in tables if t.num_rows]
    if not tables:
        return {}
    table = pa.concat_tables(tables)
    # A fixed row order, whatever order the slices came in, so the context never depends on the runner.
    table = table.sort_by([("split", "ascending"), ("key", "ascending")])
    contexts = {}
    for split in sorted(set(table.column("split").to_pylist())):
        part = table.filter(pc.equal(table.column("split"), split))
        contexts[split] = build_split_context(split, part, seed)
    return contexts


def context_for(contexts: Mapping[str, SplitContext], split: str) -> SplitContext:
    """The tables of a split; empty tables for a split without non-trivial positives (trivial inputs only)."""
    found = contexts.get(split)
    if found is None:
        found = SplitContext(split, {}, (), {}, (), {})
    return found
