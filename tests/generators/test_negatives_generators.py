"""Negative generators on crafted inputs: suffix confusions, reading edits, random association, top-k,
vocabulary pairs, sampling and the grammar hook — without Beam."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support.negatives_reference import (
    generic_edits,
    global_draws,
    input_pairs,
    meaning_substitutions,
    suffix_confusions,
    within_class,
)
from tnforge import schemas
from tnforge.datasets import by_split, split_shards
from tnforge.generators import licensing
from tnforge.generators.input_negatives import Positive, Settings
from tnforge.generators.negative_context import build_context
from tnforge.generators.negative_sampling import budget, rotation, take
from tnforge.generators.pair_tables import pairs_table
from tnforge.generators.topk import assign_splits, group_by_before, read_hypotheses
from tnforge.generators.vocab_pairs import VocabGroup, vocab_table
from tnforge.hashing import stable_hash64

CRAFTED = [
    ("train", "PLAIN", "no", "number"),
    ("train", "LETTERS", "pho", "p h o"),
    ("train", "LETTERS", "two", "t w o"),
    ("train", "MEASURE", "3kg", "three kilograms"),
    ("train", "MEASURE", "5km", "five kilometers"),
    ("train", "MEASURE", "7 lb", "seven pounds"),
    ("train", "MONEY", "$4", "four dollars"),
    ("train", "MONEY", "€9", "nine euros"),
    ("train", "DATE", "5/6/2010", "the fifth of june twenty ten"),
    ("train", "DATE", "1 May", "the first of may"),
    ("train", "DECIMAL", "3.14", "three point one four"),
    ("train", "ORDINAL", "4th", "fourth"),
    ("train", "CARDINAL", "3000", "three thousand"),
    ("train", "CARDINAL", "2000000", "two million"),
    ("dev", "MEASURE", "8kg", "eight kilograms"),
    ("dev", "MEASURE", "2 mi", "two miles"),
    ("test", "CARDINAL", "12", "twelve"),
]


def crafted_table(rows=CRAFTED) -> pa.Table:
    return pa.table({
        "key": pa.array([stable_hash64(c, b, a) for _, c, b, a in rows], type=pa.uint64()),
        "split": [s for s, *_ in rows],
        "class": [c for _, c, _, _ in rows],
        "before": [b for _, _, b, _ in rows],
        "after": [a for *_, a in rows],
        "count": pa.array([1] * len(rows), type=pa.int64()),
    }, schema=schemas.POSITIVE_PAIRS)


@pytest.fixture(scope="module")
def contexts():
    return build_context([crafted_table()], seed=0)


def readings(candidates, limit=1000):
    return [c[0] for c in list(candidates)[:limit]]


def test_suffix_confusion_reads_pho_as_number(contexts):
    """The paper's example: `pho` shares the suffix "o" with `no` → "number"."""
    found = readings(suffix_confusions("pho", contexts["train"], base=1))
    assert "number" in found
    assert "p h o" not in found  # never the input's own reading
    assert all(kind == "suffix" for *_, kind in suffix_confusions("pho", contexts["train"], base=1))
    # The longest shared suffix comes first: "two" ends in "o" too, but so does "no"; both are length 1.
    assert set(found) == {"number", "t w o"}


def test_unit_swap_kilograms_to_kilometers(contexts):
    found = list(meaning_substitutions("three kilograms", "MEASURE", contexts["train"], base=7))
    units = [r for r, _, subtype in found if subtype == "substitute:unit"]
    # Replacement units come from the MEASURE vocabulary of the split: kilometers and pounds.
    assert set(units) == {"three kilometers", "three pounds"}
    numbers = {r for r, _, subtype in found if subtype == "substitute:number"}
    assert "five kilograms" in numbers and "seven kilograms" in numbers
    assert "three kilograms" not in {r for r, *_ in found}


def test_meaning_substitutions_cover_each_category(contexts):
    train = contexts["train"]
    subtypes = {s for _, _, s in meaning_substitutions("four dollars", "MONEY", train, base=3)}
    assert "substitute:currency" in subtypes
    money = {r for r, _, s in meaning_substitutions("four dollars", "MONEY", train, base=3) if s == "substitute:currency"}
    assert money == {"four euros"}
    assert ("three million", "synthetic", "substitute:magnitude") in set(
        meaning_substitutions("three thousand", "CARDINAL", train, base=3))
    assert ("four", "synthetic", "substitute:ordinal") in set(meaning_substitutions("fourth", "ORDINAL", train, 3))
    assert ("three one four", "synthetic", "delete:point") in set(
        meaning_substitutions("three point one four", "DECIMAL", train, 3))
    swapped = {r for r, _, s in meaning_substitutions("the fifth of june twenty ten", "DATE", train, 3)
               if s == "swap:date"}
    assert swapped == {"the sixth of may twenty ten"}


def test_generic_edits_delete_insert_substitute(contexts):
    found = list(generic_edits("three point one four", "DECIMAL", contexts["train"], base=5))
    by_type = {}
    for reading, _, subtype in found:
        by_type.setdefault(subtype, set()).add(reading)
    assert by_type["delete"] == {"point one four", "three one four", "three point four", "three point one"}
    assert all(len(r.split()) == 5 for r in by_type["insert"])
    assert all(len(r.split()) == 4 and r != "three point one four" for r in by_type["substitute:word"])
    vocabulary = set(contexts["train"].class_vocab["DECIMAL"])
    assert all(set(r.split()) <= vocabulary for r in by_type["insert"] | by_type["substitute:word"])


def test_within_class_draw_stays_in_class(contexts):
    train = contexts["train"]
    measures = {a for s, c, _, a in CRAFTED if s == "train" and c == "MEASURE"}
    drawn = readings(within_class("MEASURE", train, base=11))
    assert set(drawn) == measures and len(drawn) == len(measures)  # each once
    assert {r for r, _, sub in within_class("MEASURE", train, base=11)} <= measures
    everything = {a for s, _, _, a in CRAFTED if s == "train"}
    assert set(readings(global_draws(train, base=11))) == everything


def test_contexts_are_per_split(contexts):
    """Dev tables hold only dev readings: a dev input can only be paired with dev material."""
    dev = contexts["dev"]
    assert set(dev.global_pool) == {"eight kilograms", "two miles"}
    assert set(dev.global_vocab) == {"eight", "kilograms", "two", "miles"}
    assert "three kilograms" not in dev.global_pool


def test_input_pairs_never_a_positive_in_any_split(contexts):
    positives = [Positive("train", "MEASURE", "three kilograms", 1), Positive("dev", "MEASURE", "three kilometers", 2)]
    settings = Settings(frozenset({"synthetic", "random"}), ratio=None, cap=100, seed=0)
    pairs, vocab = input_pairs("3kg", positives, (), contexts, settings)
    negatives = [p for p in pairs if p.label == 0]
    assert negatives
    assert not {p.reading for p in negatives} & {"three kilograms", "three kilometers"}
    assert len({(p.split, p.reading) for p in negatives}) == len(negatives)  # no repeats
    dev_readings = {p.reading for p in negatives if p.split == "dev"}
    dev_material = {"eight kilograms", "two miles", "eight", "kilograms", "two", "miles"}
    # Dev negatives are edits of the dev positive or dev readings: no train reading is pulled in.
    assert not dev_readings & {"five kilometers", "seven pounds", "number", "four dollars"}
    assert any(r in dev_material for r in dev_readings)


def test_budget_ratio_and_cap():
    assert budget(10, 1, 100, base=1) == 10
    assert budget(3, 2, 100, base=1) == 6
    assert budget(None, 1, 42, base=1) == 42
    assert budget(10, 30, 100, base=1) == 100
    fractional = [budget(2.5, 1, 100, base=b) for b in range(2000)]
    assert set(fractional) == {2, 3}
    assert abs(sum(fractional) / len(fractional) - 2.5) < 0.05


def test_sampling_helpers_are_deterministic_and_complete():
    assert sorted(rotation(10, 5, 1)) == list(range(10))
    assert list(rotation(10, 5, 1)) == list(rotation(10, 5, 1))
    assert list(rotation(10, 5, 1)) != list(rotation(10, 6, 1))
    seen: set[str] = set()
    stream = iter([("a", "t", ""), ("b", "t", ""), ("a", "t", ""), ("c", "t", "")])
    assert [c[0] for c in take(stream, 2, {"b"}, seen)] == ["a", "c"]


def test_topk_ingestion(tmp_path):
    hypotheses = pa.table({
        "key": pa.array([10, 10, 10, 11, 11], type=pa.uint64()),
        "class": ["MEASURE", "MEASURE", "MEASURE", None, None],
        "before": ["3kg", "3kg", "3kg", "12", "12"],
        "input": ["a <norm> 3kg </norm> b"] * 3 + ["<norm> 12 </norm>"] * 2,
        "gold": ["three kilograms", "three kilograms", "three kilograms", "twelve", "twelve"],
        "rank": pa.array([0, 1, 2, 0, 1], type=pa.int32()),
        "hypothesis": ["three kilograms", "three kilometers", "thirty kilograms", "twelve", "twelfth"],
        "score": pa.array([-0.1, -1.5, -2.0, -0.2, -3.0], type=pa.float32()),
    }, schema=schemas.HYPOTHESES)
    path = tmp_path / "hyps.parquet"
    pq.write_table(hypotheses, path)
    table = assign_splits(read_hypotheses(path), tmp_path)  # no examples here: splits unknown
    assert table.column("split").null_count == table.num_rows
    grouped = group_by_before([table])
    assert [h.hypothesis for h in grouped["3kg"]] == ["three kilometers", "thirty kilograms"]
    assert [h.rank for h in grouped["3kg"]] == [1, 2]
    assert [h.hypothesis for h in grouped["12"]] == ["twelfth"]

    bad = tmp_path / "bad.parquet"
    pq.write_table(hypotheses.drop_columns(["gold"]), bad)
    with pytest.raises(ValueError, match="missing column"):
        read_hypotheses(bad)


def test_topk_negatives_come_first_with_their_source(contexts, tmp_path):
    hyps = pa.table({
        "key": pa.array([1, 1], type=pa.uint64()), "class": ["MEASURE", "MEASURE"], "before": ["3kg", "3kg"],
        "input": ["x", "x"], "gold": ["three kilograms"] * 2, "rank": pa.array([1, 2], type=pa.int32()),
        "hypothesis": ["three kilometers", "three kilograms"], "score": pa.array([-1, -2], type=pa.float32()),
    }, schema=schemas.HYPOTHESES)
    grouped = group_by_before([assign_splits(hyps, tmp_path)])
    positive = Positive("train", "MEASURE", "three kilograms", 99)
    settings = Settings(frozenset({"synthetic", "random", "topk"}), ratio=3, cap=100, seed=0)
    pairs, _ = input_pairs("3kg", [positive], grouped["3kg"], contexts, settings)
    topk = [p for p in pairs if p.negative_type == "topk"]
    assert [(p.reading, p.negative_subtype, p.source_key) for p in topk] == [("three kilometers", "rank:1", 99)]
    others = [p for p in pairs if p.label == 0 and p.negative_type != "topk"]
    assert len(others) == 3 and "three kilometers" not in {p.reading for p in others}


def test_vocab_pairs_for_a_known_reading(contexts):
    forbidden = {"three", "kilograms"}
    group = VocabGroup("train", "MEASURE", "3kg", ["three", "kilograms"], forbidden, [("kilometers", "topk")], 6, base=4)
    table = vocab_table([group], contexts, "test")
    rows = table.to_pylist()
    positives = [(r["word"], r["negative_type"]) for r in rows if r["label"] == 1]
    assert positives == [("three", ""), ("kilograms", "")]
    negatives = [r for r in rows if r["label"] == 0]
    assert [r["word"] for r in negatives if r["negative_type"] == "topk"] == ["kilometers"]
    drawn = [r for r in negatives if r["negative_type"] in ("class", "global")]
    assert len(drawn) == 6
    words = [r["word"] for r in negatives]
    assert len(set(words)) == len(words) and not set(words) & forbidden
    vocabulary = contexts["train"]
    assert {r["word"] for r in drawn if r["negative_type"] == "class"} <= set(vocabulary.class_vocab["MEASURE"])
    assert {r["word"] for r in drawn} <= set(vocabulary.global_vocab)
    assert table.schema.equals(schemas.VOCAB_PAIRS, check_metadata=False)
    assert len(set(table.column("key").to_pylist())) == table.num_rows


def test_grammar_hook_marks_licensed_readings_acceptable(contexts, monkeypatch):
    positive = Positive("train", "CARDINAL", "three thousand", 5)
    settings = Settings(frozenset({"synthetic"}), ratio=10, cap=100, seed=0)
    pairs, _ = input_pairs("3000", [positive], (), contexts, settings)
    acceptable = {"three million"}
    table = pairs_table(pairs, "v", judge=lambda items: [reading in acceptable for _, reading, _ in items])
    rows = {r["reading"]: r for r in table.to_pylist()}
    assert rows["three million"]["label"] == 1 and rows["three million"]["licensed"] is True
    assert rows["three million"]["negative_type"] == "synthetic"  # kept for traceability
    judged = [r for r in rows.values() if r["negative_type"] and r["reading"] not in acceptable]
    assert judged and all(r["label"] == 0 and r["licensed"] is False for r in judged)
    assert rows["three thousand"]["licensed"] is None  # positives are not judged
    plain = pairs_table(pairs, "v").to_pylist()
    assert all(r["licensed"] is None for r in plain)

    monkeypatch.setattr(licensing, "grammar_available", lambda: False)
    assert licensing.resolve_grammar(None) is False
    assert licensing.resolve_grammar(False) is False
    with pytest.raises(RuntimeError, match="not available"):
        licensing.resolve_grammar(True)


def test_sharding_partitions_every_row(contexts):
    positive = Positive("train", "CARDINAL", "three thousand", 5)
    pairs, _ = input_pairs("3000", [positive], (), contexts, Settings(frozenset({"random"}), 10, 100, 0))
    table = pairs_table(pairs, "v")
    parts = [((split, shard), chunk) for split, part in by_split(table)
             for shard, chunk in split_shards(part, 3).items()]
    assert sum(p.num_rows for _, p in parts) == table.num_rows
    assert len({key for key, _ in parts}) == len(parts)
