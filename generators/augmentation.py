"""Sentence augmentation (`tnforge build --augment-sentences N`): N extra copies of each train sentence with a
non-trivial token, each non-trivial token replaced by another train token of its class, with its reading.

The substitutes come from a pool per class: the `POOL_SIZE` distinct train (before, after) pairs of that class
with the smallest stable hash — a bottom-k sample, the same whatever the files' order or number, mergeable
across files. Which substitute a token gets is a stable hash of (file, copy, sentence, token) and the seed:
the same inputs and seed give the same copies on every runner. A copy that reads exactly like a dev or test
sentence is dropped (the hash split keeps sentence texts out of two splits) and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.hashing import combine64, key64, mix64, stable_hash64
from tnforge.sources import augmented_source

#: Distinct (before, after) pairs per class the substitutes are drawn from.
POOL_SIZE = 10_000


@dataclass
class SubstitutionPool:
    """A bottom-k sample of the distinct non-trivial train (before, after) pairs of each class (mergeable)."""

    seed: int = 0
    size: int = POOL_SIZE
    entries: dict[str, dict[int, tuple[str, str]]] = field(default_factory=dict)

    def add(self, classes: pa.Array, befores: pa.Array, afters: pa.Array) -> None:
        """Add the (class, before, after) tokens of these columns (non-trivial train tokens)."""
        if not len(classes):
            return
        distinct = pa.table({"c": classes, "b": befores, "a": afters}).group_by(
            ["c", "b", "a"], use_threads=False).aggregate([])
        for cls, before, after in zip(distinct.column("c").to_pylist(), distinct.column("b").to_pylist(),
                                      distinct.column("a").to_pylist(), strict=True):
            self._offer(cls, stable_hash64("substitute", cls, before, after, seed=self.seed), (before, after))

    def _offer(self, cls: str, key: int, pair: tuple[str, str]) -> None:
        entries = self.entries.setdefault(cls, {})
        entries[key] = pair
        if len(entries) > 2 * self.size:
            self._trim(cls)

    def _trim(self, cls: str) -> None:
        entries = self.entries[cls]
        self.entries[cls] = {k: entries[k] for k in sorted(entries)[: self.size]}

    def merge(self, other: SubstitutionPool) -> SubstitutionPool:
        for cls, entries in other.entries.items():
            for key, pair in entries.items():
                self._offer(cls, key, pair)
        return self

    def choices(self) -> dict[str, list[tuple[str, str]]]:
        """Each class's substitutes, in hash order (at most `size`)."""
        for cls in list(self.entries):
            self._trim(cls)
        return {cls: [entries[k] for k in sorted(entries)] for cls, entries in sorted(self.entries.items())}


@dataclass
class Augmentation:
    """What pass 2 needs to augment: the copies wanted, the substitutes, the dev/test sentence text hashes."""

    copies: int
    seed: int
    substitutes: dict[str, list[tuple[str, str]]]
    held_out: frozenset[int]


@dataclass
class AugmentedCopy:
    """One augmented copy of a batch's train sentences: its number, its tokens (a cache batch's columns with
    substitutes, only sentences that changed), and how many tokens were substituted."""

    copy: int
    source: str
    base: int
    tokens: pa.RecordBatch
    substituted: int
    dropped: int


def augment(tokens: pa.RecordBatch, key_name: str, source: str, plan: Augmentation,
            trivial: np.ndarray) -> Iterator[AugmentedCopy]:
    """The augmented copies of whole train sentences (`tokens`: pass 1's cache columns; `trivial`: the
    `<self>`/`sil` mask). Only sentences with a substituted token are kept; their text hash is recomputed."""
    classes, befores, afters = (tokens.column(c) for c in ("class", "before", "after"))
    sentence_ids = tokens.column("sentence_id").to_numpy()
    token_index = tokens.column("token_index").to_numpy()
    cls_list = classes.to_pylist()
    original = list(zip(befores.to_pylist(), afters.to_pylist(), strict=True))
    candidates = [i for i in np.nonzero(~trivial)[0].tolist() if plan.substitutes.get(cls_list[i])]
    for copy in range(1, plan.copies + 1):
        base = stable_hash64(key_name, "augment", copy)
        picks = mix64(combine64(plan.seed, key64(base, sentence_ids, token_index)))
        new_b, new_a = [b for b, _ in original], [a for _, a in original]
        changed = np.zeros(len(original), dtype=bool)
        for i in candidates:
            pool = plan.substitutes[cls_list[i]]
            j = int(picks[i] % np.uint64(len(pool)))
            if pool[j] == original[i] and len(pool) > 1:
                j = (j + 1) % len(pool)
            if pool[j] != original[i]:
                new_b[i], new_a[i] = pool[j]
                changed[i] = True
        made = substituted_copy(tokens, new_b, new_a, changed, plan.held_out, copy, augmented_source(source, copy),
                                base)
        if made is not None:
            yield made


def substituted_copy(tokens: pa.RecordBatch, befores: list[str], afters: list[str], changed: np.ndarray,
                     held_out: frozenset[int], copy: int, source: str, base: int) -> AugmentedCopy | None:
    """The sentences of `tokens` (pass 1's cache columns) with a token `changed` to (`befores`, `afters`), their
    text hash recomputed, those that read like a held-out (dev/test) sentence left out and counted; None when
    no sentence changed. What `--augment-sentences` and `--synthesize` share."""
    sentence_ids = tokens.column("sentence_id").to_numpy()
    starts = np.concatenate([[True], sentence_ids[1:] != sentence_ids[:-1]])
    sentence_of = np.cumsum(starts) - 1
    touched = np.bincount(sentence_of[changed], minlength=int(starts.sum())) > 0
    if not touched.any():
        return None
    written = _joined(befores, starts)
    hashes = np.array([stable_hash64(text) for text in written], dtype=np.uint64)
    leaked = np.array([h in held_out for h in hashes.tolist()], dtype=bool)
    keep = (touched & ~leaked)[sentence_of]
    replaced = {"before": pa.array(befores, pa.string()), "after": pa.array(afters, pa.string()),
                "text_hash": pa.array(hashes[sentence_of], pa.uint64())}
    batch = pa.RecordBatch.from_arrays([replaced.get(name, tokens.column(name)) for name in tokens.schema.names],
                                       schema=tokens.schema).filter(pa.array(keep))
    return AugmentedCopy(copy, source, base, batch, int((changed & keep).sum()), int((touched & leaked).sum()))


def _joined(words: list[str], starts: np.ndarray) -> list[str]:
    """The words of each sentence joined by spaces (sentences begin where `starts` is true)."""
    offsets = np.concatenate([np.nonzero(starts)[0], [len(words)]]).astype(np.int32)
    return pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), pa.array(words, pa.string())), " ").to_pylist()
