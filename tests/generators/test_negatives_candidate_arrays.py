"""The vectorised candidate generation (`generators/candidate_arrays.py`, `generators/edit_arrays.py`) against
the per-reading reference functions, on the real pairs of the shared sample: the same candidates in the same
order. And the chunk-level rules: the same rows whatever the chunking, shares and caps kept."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from tests.support.negatives_reference import (
    chunk_pairs,
    draws,
    generic_list,
    meaning_list,
    shape_of,
    suffix_list,
)
from tnforge import schemas
from tnforge.generators.candidate_arrays import budgets, draw_grid, rotate
from tnforge.generators.edit_arrays import (
    GENERIC_LABELS,
    MEANING_LABELS,
    Words,
    build,
    generic_edits,
    meaning_edits,
    suffix_edits,
)
from tnforge.generators.input_negatives import Positive, Settings, chunk_columns
from tnforge.generators.negative_context import build_context
from tnforge.generators.negative_sampling import budget, rotation
from tnforge.generators.pair_tables import columns_table, pairs_table
from tnforge.gold_pairs import read_corpus_pairs
from tnforge.hashing import stable_hash64
from tnforge.schemas import TRIVIAL_TARGETS


@pytest.fixture(scope="module")
def sample(shared_tsv):
    """(context of the sample's non-trivial pairs as one train split, the pairs, a hash per pair)."""
    pairs = [(cls, before, after) for cls, before, after, _ in read_corpus_pairs(shared_tsv)
             if after not in TRIVIAL_TARGETS]
    table = pa.table({
        "key": pa.array([stable_hash64(*p) for p in pairs], type=pa.uint64()),
        "split": ["train"] * len(pairs),
        "class": [c for c, _, _ in pairs],
        "before": [b for _, b, _ in pairs],
        "after": [a for *_, a in pairs],
        "count": pa.array([1] * len(pairs), type=pa.int64()),
    }, schema=schemas.POSITIVE_PAIRS)
    context = build_context([table], seed=0)["train"]
    bases = np.array([stable_hash64("base", *p) for p in pairs], dtype=np.uint64)
    return context, pairs, bases


def test_rotations_and_budgets_match_the_scalar_helpers():
    bases = np.array([stable_hash64(i) for i in range(500)], dtype=np.uint64)
    lengths = np.arange(1, 501, dtype=np.int64)
    for draw in (0, 1, 7):
        expected = [list(rotation(int(n), int(b), 0x77))[draw % n] for n, b in zip(lengths, bases, strict=True)]
        assert rotate(lengths, bases, 0x77, np.full(500, draw) % lengths).tolist() == expected
    for ratio, counts in ((10, 1), (2.5, 1), (0.3, 3), (None, 1), (3.7, 7)):
        expected = [budget(ratio, counts, 100, int(b)) for b in bases]
        assert budgets(ratio, 100, bases, np.full(500, counts)).tolist() == expected


def test_random_draws_match_the_reference_order():
    pool = tuple(f"reading {i}" for i in range(97))
    bases = np.array([stable_hash64("draw", i) for i in range(50)], dtype=np.uint64)
    counts = np.arange(50) % 13
    row, rank, index = draw_grid(np.zeros(50, np.int64), np.full(50, len(pool)), counts, bases, 0xC1A55)
    for i in range(50):
        expected = [r for r, _, _ in draws(pool, int(bases[i]), 0xC1A55, "class")][:counts[i]]
        assert [pool[j] for j in index[row == i]] == expected
        assert rank[row == i].tolist() == list(range(counts[i]))


@pytest.mark.parametrize("limit", [1, 3, 8])
def test_meaning_edits_match_the_reference(sample, limit):
    context, pairs, bases = sample
    words = Words([a for _, _, a in pairs])
    edits = meaning_edits(words, [c for c, _, _ in pairs], bases, np.full(len(pairs), limit), context)
    built = build(words, edits).to_pylist()
    found: dict[int, list] = {}
    for row, reading, label in zip(edits.row.tolist(), built, edits.label.tolist(), strict=True):
        found.setdefault(row, []).append((reading, MEANING_LABELS[label]))
    checked = 0
    for i, (cls, _, after) in enumerate(pairs):
        expected = meaning_list(shape_of(after, cls, context), int(bases[i]), limit)
        assert found.get(i, []) == expected, after
        checked += bool(expected)
    assert checked > 1000  # the sample's dates, numbers, measures, money…
    if limit == 8:
        assert {label for _, label in sum(found.values(), [])} == set(MEANING_LABELS)


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_generic_edits_match_the_reference(sample, limit):
    context, pairs, bases = sample
    words = Words([a for _, _, a in pairs])
    pool = np.asarray(list(context.global_vocab) + [w for c in sorted(context.class_vocab)
                                                    for w in context.class_vocab[c]], dtype=object)
    spans, at = {}, len(context.global_vocab)
    for cls in sorted(context.class_vocab):
        spans[cls] = (at, len(context.class_vocab[cls]))
        at += len(context.class_vocab[cls])
    start = np.array([spans.get(c, (0, 0))[0] for c, _, _ in pairs], dtype=np.int64)
    size = np.array([spans.get(c, (0, 0))[1] for c, _, _ in pairs], dtype=np.int64)
    edits = generic_edits(words, start, size, pool, bases, np.full(len(pairs), limit))
    built = build(words, edits).to_pylist()
    found: dict[int, list] = {}
    for row, reading, label in zip(edits.row.tolist(), built, edits.label.tolist(), strict=True):
        found.setdefault(row, []).append((reading, GENERIC_LABELS[label]))
    for i, (cls, _, after) in enumerate(pairs):
        assert found.get(i, []) == generic_list(after.split(), context.class_vocab[cls], int(bases[i]), limit)
    if limit == 5:
        assert {label for _, label in sum(found.values(), [])} == set(GENERIC_LABELS)


def test_suffix_edits_match_the_reference(sample):
    context, pairs, bases = sample
    befores = [b for _, b, _ in pairs]
    limits = np.arange(len(pairs)) % 5
    row, rank, readings = suffix_edits(befores, bases, limits, context)
    found: dict[int, list] = {}
    for i, reading in zip(row.tolist(), readings.to_pylist(), strict=True):
        found.setdefault(i, []).append(reading)
    assert sum(map(len, found.values())) > 1000
    for i, before in enumerate(befores):
        assert found.get(i, []) == suffix_list(before, context, int(bases[i]), int(limits[i]))


def _train_positives(pairs) -> dict[str, list[Positive]]:
    """before → its train positives, from (class, before, after) triples."""
    positives: dict[str, list[Positive]] = {}
    for cls, before, after in pairs:
        positives.setdefault(before, []).append(Positive("train", cls, after, stable_hash64(cls, before, after)))
    return positives


def test_chunk_rows_do_not_depend_on_the_chunking(sample):
    context, pairs, _ = sample
    positives = _train_positives(pairs[:3000])
    settings = Settings(frozenset({"synthetic", "random"}), 10, 100, 0, trivial=True)
    inputs = sorted(positives)
    whole, _ = chunk_pairs(inputs, positives, {}, {"train": context}, settings)
    pieces = [row for start in range(0, len(inputs), 257)
              for row in chunk_pairs(inputs[start:start + 257], positives, {}, {"train": context}, settings)[0]]
    assert sorted(whole) == sorted(pieces)
    negatives = [row for row in whole if row[4] == 0]
    per_input: dict[str, int] = {}
    for row in negatives:
        per_input[row[2]] = per_input.get(row[2], 0) + 1
    # Ratio 10 per positive, at most the cap per input; never a positive of the input; no repeats.
    for before, found in positives.items():
        assert per_input.get(before, 0) <= min(100, 10 * len(found))
    assert sum(per_input.values()) >= 0.99 * 10 * sum(map(len, positives.values()))
    readings = {(p.after, before) for before, found in positives.items() for p in found}
    assert not any((row[3], row[2]) in readings for row in negatives)
    assert len({(row[2], row[3]) for row in negatives}) == len(negatives)


def test_the_column_path_gives_the_row_path_table(sample):
    """`columns_table` of `chunk_columns` (pool draws carry their readings' hashes) is `pairs_table` of
    `chunk_pairs` (tuples, every reading hashed), with a judge that licenses some negatives."""
    context, pairs, _ = sample
    positives = _train_positives(pairs[:2000])
    settings = Settings(frozenset({"synthetic", "random"}), 10, 100, 0, trivial=True)
    inputs = sorted(positives)
    columns, _ = chunk_columns(inputs, positives, {}, {"train": context}, settings)
    rows, _ = chunk_pairs(inputs, positives, {}, {"train": context}, settings)
    known = columns.column("reading_hash").is_valid().to_numpy(zero_copy_only=False)
    assert 0.2 < known.mean() < 0.9  # the draws' hashes are carried, the edits' are not

    def judge(items):
        return [len(reading) % 7 == 0 for _, reading, _ in items]

    table = columns_table(columns, "v", judge)
    assert table.equals(pairs_table(rows, "v", judge))
    assert 0 < pc.sum(table.column("licensed")).as_py() < table.num_rows
    hashes = columns.column("reading_hash").filter(pa.array(known)).to_numpy()
    readings = columns.column("reading").filter(pa.array(known)).to_pylist()
    assert hashes.tolist() == [stable_hash64(r) for r in readings]


def test_budget_is_shared_between_streams(sample):
    """Ratio 10 without trivial pairs: per positive 3 meaning-changing edits, 1 suffix confusion, 1 generic
    edit, 3 within-class and 2 global draws, when the streams have enough candidates (dates do)."""
    context, pairs, _ = sample
    dates = [(b, a) for c, b, a in pairs if c == "DATE" and len(a.split()) >= 4][:400]
    positives = {b: [Positive("train", "DATE", a, stable_hash64("DATE", b, a))] for b, a in dates}
    settings = Settings(frozenset({"synthetic", "random"}), 10, 100, 0)
    rows, _ = chunk_pairs(sorted(positives), positives, {}, {"train": context}, settings)
    streams = {"meaning": 0, "suffix": 0, "generic": 0, "random:class": 0, "random:global": 0}
    for row in rows:
        if row[4] == 0:
            kind, subtype = row[5], row[6]
            name = (f"random:{subtype}" if kind == "random" else "suffix" if subtype == "suffix"
                    else "generic" if subtype in GENERIC_LABELS else "meaning")
            streams[name] += 1
    total = sum(streams.values())
    assert total == 10 * len(positives)
    expected = {"meaning": 0.3, "suffix": 0.1, "generic": 0.1, "random:class": 0.3, "random:global": 0.2}
    for name, share in expected.items():
        assert abs(streams[name] / total - share) < 0.03, streams
