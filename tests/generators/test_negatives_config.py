"""The negatives config: kind parsing, checks and defaults resolved from the build, and the summary table."""

from __future__ import annotations

import json

import pytest

from tnforge.manifest import IncompleteBuild, mark_complete
from tnforge.pipelines.negatives_config import (
    NegativesConfig,
    NegativesOptionError,
    output_shards,
    parse_kinds,
    positive_shards,
    resolve,
)
from tnforge.pipelines.negatives_job import summary_table


def test_parse_kinds():
    assert parse_kinds(" synthetic, random ") == ("synthetic", "random")
    for bad in ("bogus", "synthetic,bogus", " , "):
        with pytest.raises(NegativesOptionError, match="choose one or more of synthetic, random, topk") as caught:
            parse_kinds(bad)
        assert caught.value.option == "--kinds"


def _dataset(tmp_path, manifest: dict | None = {}, shards=(2, 3)):  # noqa: B006 - never mutated
    for split, count in zip(("train", "dev"), shards, strict=False):
        folder = tmp_path / "positives" / split
        folder.mkdir(parents=True)
        for index in range(count):
            (folder / f"part-{index:05d}-of-{count:05d}.parquet").write_bytes(b"")
    if manifest is not None:
        (tmp_path / "manifest.json").write_text(json.dumps(mark_complete(manifest)))
    return tmp_path


def test_seed_and_shards_come_from_the_build(tmp_path):
    root = _dataset(tmp_path, {"config": {"seed": 7, "shards": 4}})
    resolved = resolve(root, NegativesConfig())
    assert (resolved.seed, resolved.shards, resolved.kinds) == (7, 4, ("synthetic", "random"))
    given = resolve(root, NegativesConfig(seed=1, shards=2))
    assert (given.seed, given.shards) == (1, 2)


def test_shards_from_the_positive_files_when_the_build_records_none(tmp_path):
    root = _dataset(tmp_path)
    assert positive_shards(root) == 3
    assert positive_shards(tmp_path / "nothing") == 1
    assert resolve(root, NegativesConfig()).shards == 3 and resolve(root, NegativesConfig()).seed == 0


def test_output_shards_grow_with_the_positive_pairs_so_the_writer_sorts_bounded_shards(tmp_path):
    from tnforge.pipelines.negatives_config import ROWS_PER_SHARD, VOCAB_ROWS_PER_PAIR

    small = _dataset(tmp_path / "small", {"config": {"shards": 4}, "datasets": {"positive_pairs": {"train": 2000}}})
    assert resolve(small, NegativesConfig()).shards == 4  # a small build keeps the build's shard count
    for train in (150_000, 1_500_000):
        root = _dataset(tmp_path / str(train), {"config": {"shards": 1},
                                                 "datasets": {"positive_pairs": {"train": train, "dev": 10}}})
        shards = resolve(root, NegativesConfig(ratio=10)).shards
        assert shards == output_shards(root, 10.0) > 1
        vocab_rows = train * 11 * VOCAB_ROWS_PER_PAIR
        assert vocab_rows / shards <= ROWS_PER_SHARD < vocab_rows / (shards - 1)
    assert output_shards(root, 2.0) < output_shards(root, 10.0)  # fewer negatives, fewer shards


def test_an_unfinished_build_is_refused(tmp_path):
    root = _dataset(tmp_path, manifest=None)
    with pytest.raises(IncompleteBuild, match=f"^{tmp_path} is an incomplete build — rebuild it with --overwrite$"):
        resolve(root, NegativesConfig())


def test_topk_needs_an_existing_hypotheses_file(tmp_path):
    root = _dataset(tmp_path)
    with pytest.raises(NegativesOptionError, match="--topk-from") as caught:
        resolve(root, NegativesConfig(kinds=("topk",)))
    assert caught.value.option == "--kinds"
    with pytest.raises(NegativesOptionError, match="no such file") as caught:
        resolve(root, NegativesConfig(topk_from=str(tmp_path / "missing.parquet")))
    assert caught.value.option == "--topk-from"
    hypotheses = tmp_path / "hyps.parquet"
    hypotheses.write_bytes(b"")
    assert resolve(root, NegativesConfig(topk_from=str(hypotheses))).kinds == ("synthetic", "random", "topk")
    with pytest.raises(NegativesOptionError, match="no such dataset directory") as caught:
        resolve(tmp_path / "absent", NegativesConfig())
    assert caught.value.option == "DIR"


def test_summary_table_lists_every_type():
    section = {
        "kinds": ["synthetic", "random"], "ratio": 3.0, "cap": 100, "grammar": True, "trivial": True,
        "generator_version": "negatives-1", "licensed": 1234,
        "counts": {"train": {"positive": 10, "synthetic": 15, "random": 15}},
        "vocab_counts": {"train": {"positive": 20, "class": 5, "unread": 1}},
    }
    lines = summary_table(section).splitlines()
    assert lines[0] == ("negatives: kinds synthetic,random, ratio 3.0, cap 100, grammar on, trivial pairs on, "
                        "generator negatives-1")
    assert lines[2].split() == ["pairs", "positive", "synthetic", "random", "topk", "total"]
    assert lines[3].split() == ["train", "10", "15", "15", "0", "40"]
    assert lines[5].split() == ["vocab", "positive", "class", "global", "topk", "unread", "total"]
    assert lines[6].split() == ["train", "20", "5", "0", "0", "1", "26"]
    assert lines[-1] == "licensed by the covering grammar (kept as label 1): 1,234"
