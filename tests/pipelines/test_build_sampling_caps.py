"""Sampling scales with the corpus: copies stay ≤ `max_copies_per_token` per token (and ≤ `max_copy_share`
of the train split when that cap is set); with both caps off the paper's absolute targets are reached
exactly. Trivial examples are `trivial_fraction` of train, but at least `trivial_min_count` of them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest

from tests.support.corpus_files import write_corpus
from tnforge.datasets import read_dataset
from tnforge.generators.sampling import HIST_BITS, GroupStats, SamplingOptions, TrainStats, make_plan
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


DEFAULTS = SamplingOptions()


@pytest.mark.parametrize("corpus", ["bundled_tsv", "shared_tsv"])
def test_default_caps_hold_on_the_samples(corpus, request, tmp_path):
    path = request.getfixturevalue(corpus)
    manifest = build([path], tmp_path / "ds")
    check_caps(tmp_path / "ds", manifest, DEFAULTS.max_copy_share, DEFAULTS.max_copies_per_token)
    budget = manifest["sampling"]["copy_budget"]
    assert budget["wanted_copies"] == budget["copies"] > 0  # no share cap by default: only the per-token one
    big = manifest["sampling"]["big_cardinals"]
    per_token = DEFAULTS.max_copies_per_token
    assert big["limited_by"] == "max_copies_per_token" and big["target"] == DEFAULTS.cardinal_target
    assert big["examples"] == big["tokens"] * (1 + per_token) < big["target"]  # a few tokens, not 10,000 rows
    table = summary_table(manifest)
    assert f"{big['tokens']:,} tokens → {big['examples']:,} examples (target 10,000 capped at {per_token} copies " \
        "per token)" in table
    assert f"up-sampling copies {budget['copies']:,} = " in table and f"(caps: ≤ {per_token} per token;" in table


@pytest.mark.parametrize("corpus", ["bundled_tsv", "shared_tsv"])
def test_small_corpora_keep_at_least_the_min_count_of_trivial_examples(corpus, request, tmp_path):
    path = request.getfixturevalue(corpus)
    manifest = build([path], tmp_path / "ds")
    sampling, least = manifest["sampling"], DEFAULTS.trivial_min_count
    train = read_dataset(tmp_path / "ds", "examples", "train", columns=["trivial"]).column("trivial").to_numpy()
    assert train.sum() == sampling["trivial_kept"] == min(least, sampling["trivial_tokens"])
    assert train.mean() == pytest.approx(sampling["trivial_fraction"]) and train.mean() > DEFAULTS.trivial_fraction
    table = summary_table(manifest)
    if sampling["trivial_tokens"] <= least:  # the bundled sample: every trivial token is kept
        assert sampling["trivial_keep_rate"] == 1.0
        assert f"(target 10.00%; all kept: fewer than --trivial-min-count {least:,})" in table
    else:  # the shared sample: the min count, to the token, and the share it makes is the target
        assert sampling["trivial_keep_rate"] < 1.0
        assert sampling["trivial_target"] == pytest.approx(train.mean())
        assert f"raised to {train.mean():.2%} to keep --trivial-min-count {least:,})" in table
    # Without the min count the fraction alone decides, as before (and keeps far fewer).
    alone = build([path], tmp_path / "alone", trivial_min_count=0)
    assert alone["sampling"]["trivial_fraction"] == pytest.approx(DEFAULTS.trivial_fraction, abs=0.005)
    assert alone["sampling"]["trivial_target"] == DEFAULTS.trivial_fraction
    assert alone["sampling"]["trivial_kept"] < sampling["trivial_kept"]


def corpus_scale_stats(trivial: int, nontrivial: int, groups: dict[str, int]) -> TrainStats:
    """Train statistics of a large corpus without reading one: trivial hashes spread evenly over the histogram."""
    stats = TrainStats(nontrivial=nontrivial)
    stats.trivial_hist[:] = trivial // (1 << HIST_BITS)
    stats.trivial_hist[: trivial % (1 << HIST_BITS)] += 1
    for offset, (name, count) in enumerate(groups.items()):
        stats.groups[name] = GroupStats(count, [(offset << 40) + i for i in range(count)])
    return stats


def test_defaults_give_the_papers_targets_at_corpus_scale():
    # ~10M tokens (≈ 93% trivial): 700,000 non-trivial train tokens, a measure unit seen 10 times, ~1,000 big
    # CARDINALs: the paper's targets apply; the min count and the per-token cap do not bind.
    stats = corpus_scale_stats(9_300_000, 700_000, {"measure:mph": 10, "cardinal:big": 1_000})
    plan = make_plan(stats, DEFAULTS)
    assert plan.upsampled["measure:mph"] == {"tokens": 10, "examples": DEFAULTS.measure_min_count,
                                             "target": DEFAULTS.measure_min_count, "limited_by": None}
    assert plan.upsampled["cardinal:big"]["examples"] == DEFAULTS.cardinal_target
    assert plan.trivial_target == DEFAULTS.trivial_fraction > DEFAULTS.trivial_min_count / plan.nontrivial_examples
    assert plan.trivial_kept > DEFAULTS.trivial_min_count
    assert plan.trivial_fraction == pytest.approx(DEFAULTS.trivial_fraction, abs=1e-4)
    assert plan.copy_budget["copies"] == plan.copy_budget["wanted_copies"] == 90 + 9_000


def test_min_count_is_exact_to_a_bucket_and_deterministic():
    stats = corpus_scale_stats(300_000, 2_000, {})
    options = SamplingOptions(trivial_min_count=25_000)
    plan = make_plan(stats, options)
    assert abs(plan.trivial_kept - 25_000) <= int(stats.trivial_hist.max())  # within one histogram bucket
    assert plan.trivial_target == pytest.approx(25_000 / 27_000)
    u = np.sort(np.random.default_rng(5).integers(0, 2**63, 10_000, dtype=np.uint64) * np.uint64(2))
    assert np.array_equal(plan.keep_trivial(u), make_plan(stats, options).keep_trivial(u))
    assert make_plan(stats, SamplingOptions(trivial_min_count=400_000)).keep_rate == 1.0  # more than there are


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
    with pytest.raises(ValueError, match="trivial min count"):
        BuildConfig(inputs=(), out="x", trivial_min_count=-1).sampling  # noqa: B018
