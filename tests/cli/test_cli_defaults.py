"""Command options take their defaults from the config dataclasses: `--help` shows what the library uses."""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.config import field_default
from tnforge.generators.sampling import SamplingOptions
from tnforge.pipelines.build_config import BuildConfig, bundled_sample, parse_split_ratios
from tnforge.pipelines.negatives_config import NegativesConfig


def _defaults(command) -> dict:
    return {param.name: param.default for param in command.params}


def test_build_options_default_to_build_config():
    from tnforge.cli.build import build

    defaults = _defaults(build)
    for item in dataclasses.fields(BuildConfig):
        if item.name in ("inputs", "out", "pipeline_args"):
            continue
        expected = field_default(BuildConfig, item.name)
        if item.name == "split_ratios":
            assert parse_split_ratios(defaults[item.name]) == expected
        else:
            assert defaults[item.name] == expected, item.name
    assert defaults["ratio"] == "10" and float(defaults["ratio"]) == field_default(NegativesConfig, "ratio")


def test_sampling_defaults_are_written_once():
    sampling = SamplingOptions()
    config = BuildConfig(inputs=(), out="x", split="hash")
    assert config.sampling == sampling
    assert config.split_rule.ratios == (0.9, 0.05, 0.05)


def test_build_help_shows_the_config_defaults():
    text = " ".join(CliRunner().invoke(cli, ["build", "--help"]).output.split())
    assert f"after down-sampling. [default: {BuildConfig(inputs=(), out='').trivial_fraction}; 0<x<=1]" in text
    assert "[default: 0.9,0.05,0.05]" in text


def test_negatives_options_default_to_negatives_config():
    from tnforge.cli.negatives import negatives

    defaults = _defaults(negatives)
    for name in ("cap", "topk_from", "grammar", "trivial", "seed", "shards"):
        assert defaults[name] == field_default(NegativesConfig, name), name
    assert float(defaults["ratio"]) == field_default(NegativesConfig, "ratio")


def test_field_default_errors():
    with pytest.raises(ValueError, match="no default"):
        field_default(BuildConfig, "out")
    with pytest.raises(ValueError, match="no field"):
        field_default(BuildConfig, "nothing")
    assert field_default(BuildConfig, "pipeline_args") == ()


def test_split_ratios_parser():
    assert parse_split_ratios("0.8,0.1,0.1") == (0.8, 0.1, 0.1)
    assert parse_split_ratios([0.5, 0.25, 0.25]) == (0.5, 0.25, 0.25)
    for bad, message in (("a,b,c", "give three numbers"), ("0.5,0.5", "summing to 1"), ("1.2,-0.1,-0.1", "summing")):
        with pytest.raises(ValueError, match=message):
            parse_split_ratios(bad)
    bad_cli = CliRunner().invoke(cli, ["build", "--out", "x", "--split-ratios", "0.5,0.5"])
    assert bad_cli.exit_code == 2 and "three non-negative numbers summing to 1" in bad_cli.output


def test_bundled_sample_is_shipped():
    with open(bundled_sample(), encoding="utf-8") as handle:
        assert handle.readline()


def test_build_rejects_unknown_negative_kinds_before_building(tmp_path):
    result = CliRunner().invoke(cli, ["build", "--out", str(tmp_path / "o"), "--negatives", "bogus"])
    assert result.exit_code == 2 and "--negatives" in result.output and "synthetic, random, topk" in result.output
    assert not (tmp_path / "o").exists()
