"""tnforge/splits.py: the standard corpus split, the stable hash split, and choosing the mode."""

from __future__ import annotations

import pytest

from tnforge.hashing import stable_hash64
from tnforge.splits import EXCLUDED, STANDARD_TEST_LINES, SplitRule, resolve_mode


def test_standard_split_by_shard_and_line():
    rule = SplitRule("standard")
    assert rule.file_split("data/output-00000-of-00100.gz") == "train"
    assert rule.file_split("output-00089-of-00100") == "train"
    assert rule.file_split("output-00090-of-00100.tsv") == "dev"
    assert rule.file_split("output-00096-of-00100") == EXCLUDED
    assert rule.file_split("output-00099-of-00100") is None
    assert rule.sentence_split(None, 1, STANDARD_TEST_LINES) == "test"
    assert rule.sentence_split(None, 1, STANDARD_TEST_LINES + 1) == EXCLUDED
    assert rule.sentence_split("dev", 1, 5) == "dev"
    with pytest.raises(ValueError, match="not named like a standard shard"):
        rule.file_split("corpus.tsv")


def test_hash_split_is_stable_and_near_its_ratios():
    rule = SplitRule("hash", (0.8, 0.1, 0.1))
    hashes = [stable_hash64(f"sentence {i}") for i in range(20_000)]
    splits = [rule.sentence_split(None, h, 0) for h in hashes]
    assert splits == [rule.sentence_split(None, h, 99) for h in hashes]  # the line plays no part
    assert abs(splits.count("train") / len(splits) - 0.8) < 0.01
    assert abs(splits.count("dev") / len(splits) - 0.1) < 0.01
    reseeded = [SplitRule("hash", (0.8, 0.1, 0.1), seed=3).sentence_split(None, h, 0) for h in hashes]
    assert reseeded != splits
    assert SplitRule("none").sentence_split(None, hashes[0], 0) == "train"


def test_bad_rules_and_modes():
    with pytest.raises(ValueError, match="split mode"):
        SplitRule("auto")
    with pytest.raises(ValueError, match="summing to 1"):
        SplitRule("hash", (0.5, 0.2, 0.2))
    with pytest.raises(ValueError, match="unknown split mode"):
        resolve_mode("random", [])
    with pytest.raises(ValueError, match="not: corpus.tsv"):
        resolve_mode("standard", ["output-00001-of-00100", "corpus.tsv"])


def test_auto_mode():
    assert resolve_mode("auto", ["a/output-00001-of-00100.gz", "output-00099-of-00100"]) == "standard"
    assert resolve_mode("auto", ["output-00001-of-00100", "sample.tsv"]) == "hash"
    assert resolve_mode("auto", []) == "hash"
    assert resolve_mode("none", ["x"]) == "none"
