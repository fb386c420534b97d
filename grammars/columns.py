"""`licenses` for whole Arrow columns of (before, reading, class): the negatives' grammar check, vectorised.

A reading the grammar licenses is a path of its token's lattice, so each of its words is a word of one of the
lattice's slots. Each distinct (class, before) token's lattice is built once and its slot words listed once;
every reading is split into words and a reading with a word its token's lattice lacks is rejected by array
operations (Arrow hash lookups over (token, word) codes): about nine readings in ten for the negatives. Only
the rest are run along the lattice's paths (`path_accepts`, as `Grammar.licenses` does on a first check), so
no token's readings are listed. The verdicts are `Grammar.licenses`'s (tested against it).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.collector import gc_paused
from tnforge.grammars.grammar import _ALWAYS, Grammar, normalize_reading
from tnforge.grammars.lattice import Lattice, path_accepts

#: Readings that `normalize_reading` may change: the letter encoding, a space at either end, two spaces, or any
#: other character Python's `str.split()` treats as whitespace (RE2 syntax; tested against `str.isspace`).
NEEDS_NORMALIZING = (r"_letter|^ | $|  |[\t\n\x{0b}\x{0c}\r\x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
                     r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]")

#: The most (token, word) codes of a chunk looked up in a dense table (one byte each) rather than a hash set.
DENSE_PAIRS = 1 << 25


def normalized(readings: pa.Array) -> pa.Array:
    """`normalize_reading` of every reading: in Python only for the few it can change."""
    readings = _array(readings)
    flagged = pc.match_substring_regex(readings, NEEDS_NORMALIZING).to_numpy(zero_copy_only=False)
    if not flagged.any():
        return readings
    fixed = [normalize_reading(r) for r in readings.filter(pa.array(flagged)).to_pylist()]
    return pc.replace_with_mask(readings, pa.array(flagged), pa.array(fixed, pa.string()))


def lattice_codes(lattice: Lattice, known: dict[int, list[int]], vocabulary: dict[str, int]) -> list[int]:
    """The word codes (`vocabulary`: word → code, grown as words are met) of the words of a lattice's slots, each
    slot of a lattice of several paths once (repeats do no harm: the codes are looked up as a set). `known`
    holds the codes of slots seen before, by `id` (the caller keeps those slots alive): the class modules share
    memoized sub-lattices, and a lattice's paths share slots."""
    found: list[int] = []
    slots = lattice[0] if len(lattice) == 1 else {id(slot): slot for path in lattice for slot in path}.values()
    for slot in slots:
        codes = known.get(id(slot))
        if codes is None:
            add = vocabulary.setdefault
            codes = known[id(slot)] = [add(word, len(vocabulary)) for choice in slot for word in choice.split()]
        found += codes
    return found


def _array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A string column as one Arrow array."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return column.cast(pa.string())


def _codes(column: pa.Array) -> tuple[np.ndarray, list]:
    encoded = pc.dictionary_encode(column)
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary.to_pylist()


def licenses_columns(grammar: Grammar, befores: pa.Array, readings: pa.Array, classes: pa.Array) -> np.ndarray:
    """For each row, whether the grammar licenses the reading for the input in the class (`licenses`; a null
    class means any class)."""
    befores, readings, classes = (_array(c) for c in (befores, readings, classes))
    rows = len(readings)
    verdict = np.zeros(rows, dtype=bool)
    if rows == 0:
        return verdict
    with gc_paused():
        readings = normalized(readings)
        nulls = np.asarray(classes.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if nulls.any():  # any class: one by one (the pipeline always gives a class)
            for i, before, reading in zip(np.flatnonzero(nulls).tolist(), befores.filter(nulls).to_pylist(),
                                          readings.filter(nulls).to_pylist(), strict=True):
                verdict[i] = grammar.licenses(before, reading, None)
        for cls, always in _ALWAYS.items():
            verdict |= (pc.fill_null(pc.equal(classes, cls), False).to_numpy(zero_copy_only=False)
                        & pc.is_in(readings, pa.array(sorted(always), pa.string())).to_numpy(zero_copy_only=False))
        asked = np.flatnonzero(~verdict & ~nulls & (pc.binary_length(readings).to_numpy(zero_copy_only=False) > 0))
        if not len(asked):
            return verdict
        class_code, class_names = _codes(classes.take(pa.array(asked)))
        before_code, before_names = _codes(befores.take(pa.array(asked)))
        encoded = pc.dictionary_encode(pa.array(class_code * len(before_names) + before_code))  # tokens by hash
        tokens, token_of = encoded.dictionary.to_numpy(), encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        found = [grammar.token_readings(before_names[t % len(before_names)], class_names[t // len(before_names)])
                 for t in tokens.tolist()]
        known: dict[int, list[int]] = {}
        vocabulary: dict[str, int] = {}
        flat: list[int] = []  # every token's lattice word codes, token after token
        sizes = np.zeros(len(found), dtype=np.int64)
        for at, token in enumerate(found):
            codes = lattice_codes(token.lattice, known, vocabulary)
            sizes[at] = len(codes)
            flat += codes
        # Each asked reading's words as (token, word) codes, looked up among its lattice's (token, word) codes; a
        # word no lattice of the chunk has (code -1) is never present.
        split = pc.split_pattern(readings.take(pa.array(asked)), " ")
        parent = pc.list_parent_indices(split).to_numpy(zero_copy_only=False)
        word_code = pc.fill_null(pc.index_in(pc.list_flatten(split), value_set=pa.array(list(vocabulary), pa.string())),
                                 -1).to_numpy(zero_copy_only=False).astype(np.int64)
        width = max(len(vocabulary), 1)
        lattice_pairs = np.repeat(np.arange(len(found), dtype=np.int64) * width, sizes) + np.array(flat, dtype=np.int64)
        known_word = word_code >= 0
        asked_pairs = token_of[parent[known_word]] * width + word_code[known_word]
        present = np.zeros(len(parent), dtype=bool)
        if len(found) * width <= DENSE_PAIRS:  # a table of every (token, word) code: one lookup per word
            table = np.zeros(len(found) * width, dtype=bool)
            table[lattice_pairs] = True
            present[known_word] = table[asked_pairs]
        else:
            present[known_word] = pc.is_in(pa.array(asked_pairs),
                                           value_set=pa.array(lattice_pairs)).to_numpy(zero_copy_only=False)
        plausible = np.flatnonzero(np.bincount(parent[~present], minlength=len(asked)) == 0)
        for i, token, reading in zip(asked[plausible].tolist(), token_of[plausible].tolist(),
                                     readings.take(pa.array(asked[plausible])).to_pylist(), strict=True):
            lattice = found[token].lattice
            verdict[i] = (path_accepts(lattice[0], reading) if len(lattice) == 1
                          else any(path_accepts(path, reading) for path in lattice))
    return verdict
