"""Edits of many readings at once: meaning-changing substitutions, generic edits and suffix confusions for a
whole chunk of positives, as numpy arrays over (positive, turn), and the edited readings built by Arrow
(`take` of words, `binary_join`) — the same candidates, in the same order, as the per-reading reference
functions `meaning_list`, `generic_list` and `suffix_list` of `tests/support/negatives_reference.py` (the test oracle).

An edit is (row, kind, k1, w1, k2, w2): substitute word k1 by w1 (and k2 by w2 when k2 ≥ 0), delete word k1,
or insert w1 before word k1.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.generators import word_categories as wc
from tnforge.generators.candidate_arrays import rotate
from tnforge.generators.negative_context import SUFFIX_MAX, SplitContext

SUB, DEL, INS = 0, 1, 2
#: Meaning-changing subtypes in round order: the categories, then the unhashed edits.
MEANING_LABELS: tuple[str, ...] = (*(f"substitute:{s}" for s in wc.SUBSTITUTION_GROUPS), "substitute:ordinal",
                                   "swap:date", "delete:point")
GENERIC_LABELS: tuple[str, ...] = ("substitute:word", "delete", "insert")  # indexed by kind
_ORDINAL, _DATE, _POINT = len(wc.SUBSTITUTION_GROUPS), len(wc.SUBSTITUTION_GROUPS) + 1, len(wc.SUBSTITUTION_GROUPS) + 2
#: Substitution groups (category index, words), numbered.
_GROUPS: list[tuple[int, frozenset[str]]] = [
    (index, group) for index, groups in enumerate(wc.SUBSTITUTION_GROUPS.values()) for group in groups]
_GROUP_ID = {id(group): number for number, (_, group) in enumerate(_GROUPS)}
_GROUP_CATEGORY = np.array([category for category, _ in _GROUPS] + [-1], dtype=np.int64)
_DAY_WORD = {m: wc.ordinal_word(wc.CARDINAL_WORDS[m] if m < 10 else wc.TEENS_WORDS[m - 10]) for m in range(1, 13)}


class Edits(NamedTuple):
    """Candidate edits of a batch: reading row, rank among the row's candidates, label code, and the edit."""

    row: np.ndarray
    rank: np.ndarray
    label: np.ndarray
    kind: np.ndarray
    k1: np.ndarray
    w1: np.ndarray
    k2: np.ndarray
    w2: np.ndarray


class Words:
    """The words of a batch of readings, flat: offsets per reading, and per word its reading, position and
    code among the batch's distinct words."""

    def __init__(self, readings: list[str]) -> None:
        lists = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(pa.array(readings, pa.string())))
        self.offsets = lists.offsets.to_numpy().astype(np.int64)
        self.count = np.diff(self.offsets)
        self.flat = lists.flatten()
        self.parent = np.repeat(np.arange(len(readings), dtype=np.int64), self.count)
        self.position = np.arange(len(self.flat), dtype=np.int64) - self.offsets[:-1][self.parent]
        encoded = pc.dictionary_encode(self.flat)
        self.code = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        self.distinct: list[str] = encoded.dictionary.to_pylist()
        self.words = np.asarray(self.distinct, dtype=object)[self.code] if len(self.code) else np.zeros(0, object)


def running(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2, … within each run of equal consecutive keys."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return np.arange(len(keys)) - np.repeat(starts, np.diff(np.r_[starts, len(keys)]))


def _turns(limits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, turn) for turns 0..limits[row]-1 of every row."""
    limits = np.maximum(np.asarray(limits, dtype=np.int64), 0)
    row = np.repeat(np.arange(len(limits), dtype=np.int64), limits)
    return row, running(row)


@lru_cache(maxsize=1 << 16)
def _facts(word: str) -> tuple[int, int, str | None, int, int, bool]:
    """(group elsewhere, group in MONEY, ordinal ↔ cardinal swap, month number, day number, is a tens word)."""
    ids = []
    for cls in ("", "MONEY"):
        category = wc.category_of(word, cls)
        ids.append(_GROUP_ID[id(category[1])] if category else len(_GROUPS))
    swap = wc.ORDINAL_OF.get(word) or wc.CARDINAL_OF.get(word)
    return (ids[0], ids[1], swap, wc.MONTH_NUMBER.get(word, 0), wc.DAY_NUMBER.get(word, 0),
            word in wc.TENS_WORDS)


def _finish(parts: list[tuple], limits: np.ndarray) -> Edits:
    """Sort candidates by (row, round, order), rank them per row and keep the first `limits[row]`."""
    columns = [np.concatenate([p[i] for p in parts]) if parts else np.zeros(0, np.int64) for i in range(8)]
    row, turn, order, kind, k1, w1, k2, w2 = columns
    sort = np.lexsort((order, turn, row))
    row, order = row[sort], order[sort]
    rank = running(row)
    keep = rank < limits[row]
    sort = sort[keep]
    return Edits(row[keep], rank[keep], order[keep], kind[sort], k1[sort],
                 np.asarray(w1, dtype=object)[sort], k2[sort], np.asarray(w2, dtype=object)[sort])


def meaning_edits(words: Words, classes: list[str], bases: np.ndarray, limits: np.ndarray,
                  context: SplitContext) -> Edits:
    """`meaning_list` (tests/support/negatives_reference.py) of every reading (class `classes[i]`, hash `bases[i]`, `limits[i]` of
    them); label codes index MEANING_LABELS."""
    facts = [_facts(word) for word in words.distinct]
    if not facts or not len(words.code):
        return _finish([], limits)
    plain, money, swaps, months, days, tens = (np.asarray(column, dtype=object) for column in zip(*facts, strict=True))
    code, parent, position = words.code, words.parent, words.position
    is_money = np.array([cls == "MONEY" for cls in classes], dtype=bool)
    group = np.where(is_money[parent], money[code], plain[code]).astype(np.int64)
    parts = []
    slot = np.flatnonzero(group < len(_GROUPS))
    if len(slot):
        parts.append(_category_grid(words, slot, group[slot], classes, bases, limits, context))
    swap = np.flatnonzero(swaps[code] != None)  # noqa: E711 (an object array)
    if len(swap):
        owner = parent[swap]
        parts.append((owner, running(owner), np.full(len(swap), _ORDINAL), np.full(len(swap), SUB), position[swap],
                      swaps[code[swap]], np.full(len(swap), -1), np.full(len(swap), "", dtype=object)))
    parts += _date_swaps(words, months[code].astype(np.int64), days[code].astype(np.int64), tens[code].astype(bool))
    point = np.flatnonzero((words.words == "point") & (words.count[parent] > 1)) if len(code) else []
    if len(point):
        owner = parent[point]
        parts.append((owner, running(owner), np.full(len(point), _POINT), np.full(len(point), DEL), position[point],
                      np.full(len(point), "", dtype=object), np.full(len(point), -1),
                      np.full(len(point), "", dtype=object)))
    parts = [p for p in parts if len(p[0])]
    # Round r of the reference only runs while r < limit: drop later rounds before ranking.
    parts = [tuple(column[p[1] < limits[p[0]]] for column in p) for p in parts]
    return _finish(parts, limits)


def _category_grid(words: Words, slot: np.ndarray, group: np.ndarray, classes: list[str], bases: np.ndarray,
                   limits: np.ndarray, context: SplitContext) -> tuple:
    """Round r of each (reading, category): the category's slot r mod slots, draw r // slots of that slot's
    rotation over its choices without the word itself."""
    owner, position, code = words.parent[slot], words.position[slot], words.code[slot]
    category = _GROUP_CATEGORY[group]
    class_names = sorted(set(classes))
    class_id = np.array([class_names.index(c) for c in classes], dtype=np.int64)[owner]
    pair, pair_index = np.unique(class_id * len(_GROUPS) + group, return_inverse=True)
    choices = [context.category_words(class_names[p // len(_GROUPS)], _GROUPS[p % len(_GROUPS)][1]) for p in pair]
    starts = np.cumsum([0] + [len(c) for c in choices])
    pool = np.asarray([w for c in choices for w in c], dtype=object)
    triple, triple_index = np.unique(pair_index * (len(words.distinct) + 1) + code, return_inverse=True)
    skip_of = np.array([
        choices[t // (len(words.distinct) + 1)].index(w) if (w := words.distinct[t % (len(words.distinct) + 1)])
        in choices[t // (len(words.distinct) + 1)] else -1 for t in triple], dtype=np.int64)
    skip = skip_of[triple_index]
    length = starts[1:][pair_index] - starts[:-1][pair_index] - (skip >= 0)
    # Slots ordered by (reading, category, position); one group of slots per (reading, category).
    order = np.lexsort((position, category, owner))
    owner, position, category, skip, length = owner[order], position[order], category[order], skip[order], length[order]
    offset = starts[:-1][pair_index][order]
    key = owner * 8 + category
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    slots = np.diff(np.r_[first, len(key)])
    head_owner = owner[first]
    which, turn = _turns(limits[head_owner])
    at = first[which] + turn % slots[which]
    draw = turn // slots[which]
    valid = draw < length[at]
    which, turn, at, draw = which[valid], turn[valid], at[valid], draw[valid]
    index = rotate(length[at], bases[owner[at]], 0xC0DE + 97 * position[at], draw)
    index = index + ((skip[at] >= 0) & (skip[at] <= index))
    count = len(at)
    return (owner[at], turn, category[at], np.full(count, SUB), position[at], pool[offset[at] + index],
            np.full(count, -1), np.full(count, "", dtype=object))


def _date_swaps(words: Words, month: np.ndarray, day: np.ndarray, tens: np.ndarray) -> list[tuple]:
    """Day and month exchanged in readings with exactly one month word and one day word (first … twelfth),
    not after a tens word, and month ≠ day."""
    readings = len(words.count)
    month_at, day_at = np.flatnonzero(month > 0), np.flatnonzero(day > 0)
    months = np.bincount(words.parent[month_at], minlength=readings)
    days = np.bincount(words.parent[day_at], minlength=readings)
    month_at = month_at[months[words.parent[month_at]] == 1]
    day_at = day_at[days[words.parent[day_at]] == 1]
    month_of = np.full(readings, -1, dtype=np.int64)
    day_of = np.full(readings, -1, dtype=np.int64)
    month_of[words.parent[month_at]] = month_at
    day_of[words.parent[day_at]] = day_at
    both = np.flatnonzero((month_of >= 0) & (day_of >= 0))
    m_at, d_at = month_of[both], day_of[both]
    after_tens = (words.position[d_at] > 0) & tens[np.maximum(d_at - 1, 0)]
    m, d = month[m_at], day[d_at]
    ok = ~after_tens & (m != d)
    both, m_at, d_at, m, d = both[ok], m_at[ok], d_at[ok], m[ok], d[ok]
    if not len(both):
        return []
    count = len(both)
    return [(both, np.zeros(count, np.int64), np.full(count, _DATE), np.full(count, SUB), words.position[m_at],
             np.asarray([wc.MONTHS[x - 1] for x in d.tolist()], dtype=object), words.position[d_at],
             np.asarray([_DAY_WORD[x] for x in m.tolist()], dtype=object))]


def generic_edits(words: Words, vocab_at: np.ndarray, vocab_size: np.ndarray, vocabulary: np.ndarray,
                  bases: np.ndarray, limits: np.ndarray) -> Edits:
    """`generic_list` (tests/support/negatives_reference.py) of every reading, its vocabulary the slice (vocab_at, vocab_size) of
    `vocabulary`; label codes index GENERIC_LABELS (by kind)."""
    row, turn = _turns(limits)
    n, size = words.count[row], vocab_size[row]
    deletes = n > 1
    kinds = np.where(size > 0, 2 + deletes, deletes.astype(np.int64))
    live = kinds > 0
    row, turn, n, size, deletes, kinds = row[live], turn[live], n[live], size[live], deletes[live], kinds[live]
    step, m = turn % kinds, turn // kinds
    kind = np.where(deletes, np.array([DEL, INS, SUB])[np.minimum(step, 2)],
                    np.array([INS, SUB])[np.minimum(step, 1)])
    kind = np.where(size > 0, kind, DEL)
    base = bases[row]
    gaps = np.where(kind == INS, n + 1, np.maximum(n, 1))
    at = np.where(kind == DEL, rotate(np.maximum(n, 1), base, 0xDE1, m),
                  rotate(gaps, base, np.where(kind == INS, 0x1A4, 0x5A), m % gaps))
    draw = m // gaps
    valid = np.where(kind == DEL, m < n, (draw < size) & (n >= (kind == SUB)))
    choice = rotate(np.maximum(size, 1), base, np.where(kind == INS, 0x1A5, 0x5B) + 31 * at, draw)
    word = vocabulary[vocab_at[row] + np.minimum(choice, np.maximum(size - 1, 0))] if len(vocabulary) else \
        np.full(len(row), "", dtype=object)
    own = words.offsets[:-1][row] + np.minimum(at, np.maximum(n - 1, 0))
    same = (kind == SUB) & (n > 0) & (word == words.words[np.minimum(own, len(words.words) - 1)]) \
        if len(words.words) else np.zeros(len(row), dtype=bool)
    valid &= ~same
    part = (row[valid], turn[valid], kind[valid], kind[valid], at[valid], word[valid],
            np.full(int(valid.sum()), -1), np.full(int(valid.sum()), "", dtype=object))
    return _finish([part], limits)


def build(words: Words, edits: Edits) -> pa.Array:
    """The edited readings (an Arrow string array, one per edit)."""
    count = len(edits.row)
    if not count:
        return pa.array([], pa.string())
    kind, k1, k2 = edits.kind, edits.k1, edits.k2
    out = words.count[edits.row] + (kind == INS) - (kind == DEL)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(out, out=offsets[1:])
    edit = np.repeat(np.arange(count), out)
    j = np.arange(int(offsets[-1])) - offsets[:-1][edit]
    source = words.offsets[:-1][edits.row][edit] + j
    own_kind, own_k1 = kind[edit], k1[edit]
    source = np.where((own_kind == DEL) & (j >= own_k1), source + 1, source)
    source = np.where((own_kind == INS) & (j > own_k1), source - 1, source)
    flat = len(words.flat)
    source = np.where((own_kind != DEL) & (j == own_k1), flat + edit, source)
    source = np.where((own_kind == SUB) & (j == k2[edit]), flat + count + edit, source)
    pool = pa.concat_arrays([words.flat, pa.array(edits.w1, pa.string()), pa.array(edits.w2, pa.string())])
    lists = pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pool.take(pa.array(source)))
    return pc.binary_join(lists, " ")


def suffix_edits(befores: list[str], bases: np.ndarray, limits: np.ndarray,
                 context: SplitContext) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """`suffix_list` (tests/support/negatives_reference.py) of every input: (row, rank, reading). Longest suffix first; an input
    with `limit` readings already is not looked up for shorter suffixes."""
    index, other, reading, starts = _suffix_index(context)
    rows, turns, entries = [], [], []
    need = np.asarray(limits, dtype=np.int64).copy()
    inputs = np.asarray(befores, dtype=object)
    for length in range(SUFFIX_MAX, 0, -1) if index else ():
        get = index.get
        found = [(i, table) for i in np.flatnonzero(need > 0).tolist() if len(before := befores[i]) >= length
                 and (table := get(before[-length:])) is not None]
        if not found:
            continue
        hit = np.array([i for i, _ in found], dtype=np.int64)
        table = np.array([t for _, t in found], dtype=np.int64)
        size = starts[table + 1] - starts[table]
        which, draw = _turns(size)
        row = hit[which]
        entry = starts[table[which]] + rotate(size[which], bases[row], 0x5FF1 + length, draw)
        valid = other[entry] != inputs[row]
        row, draw, entry = row[valid], draw[valid], entry[valid]
        need -= np.bincount(row, minlength=len(need))
        rows.append(row)
        turns.append((SUFFIX_MAX - length) * 64 + draw)
        entries.append(entry)
    if not rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.string())
    row, turn, entry = np.concatenate(rows), np.concatenate(turns), np.concatenate(entries)
    sort = np.lexsort((turn, row))
    row, entry = row[sort], entry[sort]
    rank = running(row)
    keep = rank < limits[row]
    return row[keep], rank[keep], reading.take(pa.array(entry[keep]))


def _suffix_index(context: SplitContext) -> tuple[dict[str, int], np.ndarray, pa.Array, np.ndarray]:
    """The suffix table as arrays (cached in the context): suffix → its number, the entries' inputs and
    readings, and where each suffix's entries start."""
    found = context._category_cache.get("suffix_index")
    if found is None:
        keys = list(context.suffix_table)
        entries = [entry for key in keys for entry in context.suffix_table[key]]
        starts = np.cumsum([0] + [len(context.suffix_table[key]) for key in keys]).astype(np.int64)
        found = context._category_cache["suffix_index"] = (
            {key: i for i, key in enumerate(keys)}, np.asarray([e[0] for e in entries], dtype=object),
            pa.array([e[1] for e in entries], pa.string()), starts)
    return found
