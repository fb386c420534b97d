"""Up-sampling scales with the corpus: copies stay ≤ `max_copy_share` of the train split and ≤
`max_copies_per_token` per token; with both caps off the paper's absolute targets are reached exactly."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest
from corpus_files import write_corpus

from tnforge.datasets import read_dataset
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import run_build
from tnforge.pipelines.manifest import summary_table


def build(inputs, out: Path, **options) -> dict:
    return run_build(BuildConfig(inputs=tuple(str(p) for p in inputs), out=str(out), **options))


def check_caps(out: Path, manifest: dict, share: float, per_token: int) -> None:
    train = read_dataset(out, "examples", "train")
    copies = pc.sum(pc.greater(train.column("copy"), 0)).as_py() or 0
    assert copies == manifest["splits"]["train"]["copies"] == manifest["sampling"]["copy_budget"]["copies"]
    assert copies <= share * train.num_rows
    assert (pc.max(train.column("copy")).as_py() or 0) <= per_token
    assert manifest["accounting"]["reconciles"]


@pytest.mark.parametrize("corpus", ["bundled_tsv", "shared_tsv"])
def test_default_caps_hold_on_the_samples(corpus, request, tmp_path):
    path = request.getfixturevalue(corpus)
    manifest = build([path], tmp_path / "ds")
    check_caps(tmp_path / "ds", manifest, 0.25, 100)
    budget = manifest["sampling"]["copy_budget"]
    assert budget["wanted_copies"] > budget["copies"] > 0  # the cap binds on these small corpora
    big = manifest["sampling"]["big_cardinals"]
    assert big["limited_by"] == "max_copy_share" and big["tokens"] < big["examples"] < big["target"] == 10_000
    table = summary_table(manifest)
    assert f"{big['tokens']:,} tokens → {big['examples']:,} examples (target 10,000 scaled to keep copies ≤ 25% of train)" \
        in table
    assert f"up-sampling copies {budget['copies']:,} = " in table and f"wanted {budget['wanted_copies']:,})" in table


def test_absolute_targets_without_caps(bundled_tsv, tmp_path):
    manifest = build([bundled_tsv], tmp_path / "ds", max_copy_share=1.0, max_copies_per_token=0)
    big = manifest["sampling"]["big_cardinals"]
    assert big["examples"] == big["target"] == 10_000 and big["limited_by"] is None
    train = read_dataset(tmp_path / "ds", "examples", "train")
    assert manifest["splits"]["train"]["copies"] > 0.5 * train.num_rows  # what the caps prevent by default
    assert "caps: none (absolute targets)" in summary_table(manifest)


def test_a_smaller_share_and_per_token_cap(shared_tsv, tmp_path):
    manifest = build([shared_tsv], tmp_path / "ds", max_copy_share=0.1, max_copies_per_token=20)
    check_caps(tmp_path / "ds", manifest, 0.1, 20)


def test_per_token_cap_alone(tmp_path):
    sentences = [[("PLAIN", "About", "<self>"), ("MEASURE", f"{i + 1} kg", "x kilograms")] for i in range(3)]
    sentences += [[("PLAIN", "Some", "<self>"), ("DATE", "1999", "nineteen ninety nine")] for _ in range(50)]
    corpus = write_corpus(tmp_path / "crafted.tsv", sentences)
    manifest = build([corpus], tmp_path / "ds", split="none", max_copy_share=1.0, max_copies_per_token=5)
    assert manifest["sampling"]["measure_units"] == {
        "kg": {"tokens": 3, "examples": 18, "target": 100, "limited_by": "max_copies_per_token"}}
    check_caps(tmp_path / "ds", manifest, 1.0, 5)
    assert "3 tokens → 18 examples (target 100 capped at 5 copies per token)" in summary_table(manifest)


def test_caps_are_checked():
    with pytest.raises(ValueError, match="max copy share"):
        BuildConfig(inputs=(), out="x", max_copy_share=1.5).sampling  # noqa: B018
    with pytest.raises(ValueError, match="max copies per token"):
        BuildConfig(inputs=(), out="x", max_copies_per_token=-1).sampling  # noqa: B018
