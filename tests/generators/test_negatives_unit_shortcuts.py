"""Shortcuts inside the negatives' work units give what the plain forms give: a unit's positives read by one
Arrow sort (`negative_units._positives`), readings hashed from Arrow's bytes (`pair_keys`), the currency symbols
a money token can start or end with found by lookups (`grammars/en/money.py`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from tnforge.generators.input_negatives import Positive
from tnforge.generators.pair_keys import array_hashes, column_hashes, group_hash, string_hashes, text_hashes
from tnforge.gold_pairs import read_corpus_pairs
from tnforge.hashing import stable_hash64
from tnforge.pipelines.negative_units import POSITIVE_COLUMNS, _positives


def _plain_positives(tables: list[pa.Table]) -> dict[str, list[Positive]]:
    """The reference: a dict per input, the last of repeated (split, class, after) wins, sorted in Python."""
    by_input: dict[str, dict[tuple[str, str, str], Positive]] = {}
    for table in tables:
        for key, split, cls, before, after in zip(*(table.column(c).to_pylist() for c in POSITIVE_COLUMNS), strict=True):
            by_input.setdefault(before, {})[(split, cls, after)] = Positive(split, cls, after, key)
    return {before: [found[k] for k in sorted(found)] for before, found in by_input.items()}


@pytest.fixture(scope="module")
def corpus(shared_tsv) -> list:
    return read_corpus_pairs(shared_tsv)


def _table(pairs, split: str, first_key: int, nullable_key: bool = False) -> pa.Table:
    key_type = pa.field("key", pa.uint64(), nullable=nullable_key)
    schema = pa.schema([key_type] + [pa.field(c, pa.string(), nullable=False) for c in POSITIVE_COLUMNS[1:]])
    return pa.table({"key": pa.array(range(first_key, first_key + len(pairs)), pa.uint64()),
                     "split": [split] * len(pairs), "class": [p[0] for p in pairs],
                     "before": [p[1] for p in pairs], "after": [p[2] for p in pairs]}, schema=schema)


def test_positives_by_one_sort_equal_the_plain_dicts(corpus):
    train, dev = corpus[: len(corpus) // 2], corpus[len(corpus) // 3:]
    # Overlapping splits, a repeated piece with other keys and another schema (a trivial examples file).
    tables = [_table(train, "train", 0), _table(dev, "dev", 10**6), _table(train[:500], "train", 10**7, True),
              _table([], "dev", 0)]
    found = _positives(tables)
    assert found == _plain_positives(tables)
    assert found[train[0][1]][0].key >= 10**7  # the last repeat's key
    assert all(type(p) is Positive for positives in found.values() for p in positives)
    assert len(found) > 5000 and _positives([]) == {}


def test_hashes_from_arrow_bytes_are_the_stable_hashes(corpus):
    values = sorted({p[2] for p in corpus}) + ["", "é", "日本語", "😀 x", "\u2028", "x" * 5000]
    expected = np.array([stable_hash64(v) for v in values], dtype=np.uint64)
    assert (string_hashes(values) == expected).all()
    assert (array_hashes(pa.array(values)) == expected).all()
    both = pa.chunked_array([pa.array(values), pa.array(values[::-1])])
    assert (column_hashes(both) == np.concatenate([expected, expected[::-1]])).all()
    assert string_hashes([]).dtype == np.uint64 and len(array_hashes(pa.array([], pa.string()))) == 0
    cls, before, _, _ = corpus[0]
    assert group_hash("train", cls, before) == stable_hash64("train", cls, before)
    rows = [("train", p[1]) for p in corpus[:2000]] + [("dev", "\ud800 lone"), ("", "")]
    for seed in (0, 7, 2**63 + 5):
        assert text_hashes(rows, seed).tolist() == [stable_hash64(*row, seed=seed) for row in rows]


def test_currency_symbols_at_the_ends_are_the_scans_choices(corpus):
    pytest.importorskip("pynini")
    from tnforge.grammars import get_grammar
    from tnforge.grammars.en.money import _symbols, _symbols_at_ends

    g = get_grammar()
    symbols = [s for s, _ in _symbols(g)]
    texts = {p[1] for p in corpus if p[0] in ("MONEY", "MEASURE", "CARDINAL")}
    for at, symbol in enumerate(symbols):
        other = symbols[(at * 7 + 3) % len(symbols)]
        texts.update([symbol, f"{symbol}5", f"5{symbol}", f"5 {symbol}", f"{symbol}{other}", f"{other} 12{symbol}"])
    for text in texts:
        scan = [entry for entry in _symbols(g) if text.startswith(entry[0]) or text.endswith(entry[0])]
        assert _symbols_at_ends(g, text) == scan, text


def test_group_hashes_from_the_bounded_cache_are_the_stable_hashes(corpus, monkeypatch):
    from tnforge.generators import pair_keys

    monkeypatch.setattr(pair_keys, "GROUP_CACHE", 1000)
    rows = [("train" if i % 3 else "dev", cls, before) for i, (cls, before, _, _) in enumerate(corpus[:3000])]
    expected = [stable_hash64(*row) for row in rows]
    for start in (0, 500, 200, 2500, 0):  # overlapping batches, some larger than the cache: it is emptied
        batch = rows[start:start + 700] * 2
        assert pair_keys.group_hashes(*zip(*batch, strict=True)).tolist() == expected[start:start + 700] * 2
        assert len(pair_keys._GROUPS) <= 1000
    assert pair_keys.group_hashes(*zip(*rows[:1500], strict=True)).tolist() == expected[:1500]  # > the cache
    assert pair_keys.group_hashes([], [], []).dtype == np.uint64
