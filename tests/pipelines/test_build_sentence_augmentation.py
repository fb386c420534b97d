"""`tnforge build --augment-sentences N`: substituted copies of train sentences, and nothing else changed."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tnforge.datasets import dataset_files, read_dataset
from tnforge.generators.augmentation import Augmentation, SubstitutionPool, augment
from tnforge.hashing import stable_hash64
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import run_build
from tnforge.sources import is_augmented

COPIES = 2


def build(source: Path, out: Path, **options) -> dict:
    return run_build(BuildConfig(inputs=(str(source),), out=str(out), **options))


@pytest.fixture(scope="module")
def builds(bundled_tsv, tmp_path_factory) -> tuple[Path, dict, Path]:
    root = tmp_path_factory.mktemp("augment")
    manifest = build(bundled_tsv, root / "augmented", augment_sentences=COPIES)
    build(bundled_tsv, root / "plain")
    return root / "augmented", manifest, root / "plain"


def digests(root: Path, name: str, split: str | None = None) -> dict[str, str]:
    return {str(Path(f).relative_to(root)): hashlib.sha256(Path(f).read_bytes()).hexdigest()
            for f in dataset_files(str(root), name, split)}


def test_only_train_sentences_gain_rows(builds):
    augmented, manifest, plain = builds
    for name in ("examples", "positive_pairs", "rejects"):
        assert digests(augmented, name) == digests(plain, name)
    for split in ("dev", "test"):
        assert digests(augmented, "sentences", split) == digests(plain, "sentences", split)
    train = read_dataset(str(augmented), "sentences", "train").to_pylist()
    originals = [r for r in train if not is_augmented(r["source"])]
    copies = [r for r in train if is_augmented(r["source"])]
    assert sorted(r["key"] for r in originals) == sorted(read_dataset(str(plain), "sentences", "train").column("key").to_pylist())
    assert len(copies) == manifest["augmentation"]["sentences"] == manifest["datasets"]["sentences"]["train"] - len(originals)
    assert len(copies) > len(originals)  # most bundled sentences have a non-trivial token: COPIES each
    assert {r["source"] for r in copies} == {f"sample.tsv#augment-{n}" for n in range(1, COPIES + 1)}
    assert manifest["accounting"]["reconciles"]


def test_substitutes_keep_the_class_and_the_alignment(builds):
    augmented, manifest, _ = builds
    examples = read_dataset(str(augmented), "examples", "train", columns=["sentence_id", "token_index", "after", "copy"])
    readings = {(s, t): a for s, t, a, c in zip(*(examples.column(n).to_pylist() for n in
                                                  ("sentence_id", "token_index", "after", "copy")), strict=True) if c == 0}
    pairs = read_dataset(str(augmented), "positive_pairs", "train", columns=["class", "before", "after"])
    train_readings: dict[tuple[str, str], set[str]] = defaultdict(set)
    for cls, before, after in zip(*(pairs.column(n).to_pylist() for n in ("class", "before", "after")), strict=True):
        train_readings[(cls, before)].add(after)
    rows = read_dataset(str(augmented), "sentences", "train").to_pylist()
    originals = {r["sentence_id"]: r for r in rows if not is_augmented(r["source"])}
    checked = substituted = 0
    for row in (r for r in rows if is_augmented(r["source"])):
        original = originals[row["sentence_id"]]
        assert row["classes"] == original["classes"] and row["n_tokens"] == original["n_tokens"]
        assert row["written"] == " ".join(row["tokens"]) and row["text_hash"] == stable_hash64(row["written"])
        spoken, unique = [], True
        for i, (old, new, cls) in enumerate(zip(original["tokens"], row["tokens"], row["classes"], strict=True)):
            after = readings[(row["sentence_id"], i)]
            if new == old:
                spoken.append(old if after == "<self>" else "" if after == "sil" else after)
                continue
            substituted += 1
            assert after not in ("<self>", "sil") and train_readings[(cls, new)], (cls, new)
            unique &= len(train_readings[(cls, new)]) == 1
            spoken.append(next(iter(train_readings[(cls, new)])))
        assert spoken != [] and row["tokens"] != original["tokens"]
        # The per-token readings (what sentence models align on) follow the substitutes and make up `spoken`.
        assert len(row["readings"]) == row["n_tokens"] and row["spoken"] == " ".join(r for r in row["readings"] if r)
        if unique:
            assert row["readings"] == spoken
            checked += 1
            assert row["spoken"] == " ".join(w for w in spoken if w)
    assert substituted == manifest["augmentation"]["substituted"]
    assert checked > 0.9 * manifest["augmentation"]["sentences"]


def test_augmented_builds_are_deterministic(builds, bundled_tsv, tmp_path):
    augmented, _, _ = builds
    again = tmp_path / "again"
    build(bundled_tsv, again, augment_sentences=COPIES)
    assert digests(again, "sentences") == digests(augmented, "sentences")


def test_a_copy_that_reads_like_a_held_out_sentence_is_left_out():
    pool = SubstitutionPool(seed=0)
    pool.add(pa.array(["DATE", "DATE"]), pa.array(["2007", "1999"]), pa.array(["two thousand seven", "nineteen ninety nine"]))
    tokens = pa.RecordBatch.from_pydict({
        "sentence_id": pa.array([0, 0, 1, 1], pa.int64()), "token_index": pa.array([0, 1, 0, 1], pa.int32()),
        "line": pa.array([1, 2, 4, 5], pa.int64()), "split": pa.array([0, 0, 0, 0], pa.int8()),
        "text_hash": pa.array([0, 0, 0, 0], pa.uint64()), "class": ["PLAIN", "DATE", "PLAIN", "DATE"],
        "before": ["In", "2007", "By", "2007"], "after": ["<self>", "two thousand seven", "<self>", "two thousand seven"],
    })
    trivial = np.array([True, False, True, False])
    plan = Augmentation(1, 0, pool.choices(), frozenset({stable_hash64("In 1999")}))
    (copy,) = augment(tokens, "x", "x.tsv", plan, trivial)
    assert copy.dropped == 1 and copy.source == "x.tsv#augment-1"
    assert copy.tokens.column("before").to_pylist() == ["By", "1999"]
    assert copy.tokens.column("after").to_pylist() == ["<self>", "nineteen ninety nine"]
    assert copy.tokens.column("text_hash").to_pylist() == [stable_hash64("By 1999")] * 2
