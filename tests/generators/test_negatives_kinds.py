"""The negative-kind registry: every user reads the same names (generators, pipeline, CLI, trainers)."""

from __future__ import annotations

from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.generators import trivial_confusions
from tnforge.generators.negative_sampling import DEFAULT_CAP
from tnforge.pipelines import negatives as negatives_pipeline
from tnforge.schemas import negative_kinds as nk


def test_registry_shape():
    assert nk.KINDS == ("synthetic", "random", "topk")
    assert set(nk.DEFAULT_KINDS) <= set(nk.KINDS) and not nk.FROM_HYPOTHESES & set(nk.DEFAULT_KINDS)
    assert nk.FROM_HYPOTHESES <= set(nk.KINDS) and nk.UNBUDGETED <= set(nk.KINDS)
    assert nk.PAIR_TYPES == (nk.POSITIVE, *nk.PAIR_NEGATIVE_TYPES)
    assert nk.VOCAB_TYPES == (nk.POSITIVE, *nk.VOCAB_NEGATIVE_TYPES)
    assert set(nk.NEGATIVE_TYPES) == {"sequence", "vocabulary"}


def test_generators_and_pipeline_use_the_registry():
    assert negatives_pipeline.KINDS is nk.KINDS
    assert list(trivial_confusions.unread("9 July")) == [("<self>", nk.SYNTHETIC, nk.UNREAD)]
    assert list(trivial_confusions.trivial_confusions("TURNS", "<self>")) == [("t u r n s", nk.SYNTHETIC, nk.SPELLED)]
    assert list(trivial_confusions.trivial_confusions(",", "sil")) == [("<self>", nk.SYNTHETIC, nk.VOICED)]


def test_trainers_check_negative_types_against_the_registry():
    import pytest

    from tnforge.trainers.dual_encoders.train import DETrainConfig

    for kind, types in nk.NEGATIVE_TYPES.items():
        assert DETrainConfig(kind=kind, negatives=types).negatives == types
    with pytest.raises(ValueError, match="not a sequence negative type"):
        DETrainConfig(kind="sequence", negatives=(nk.CLASS,))


def test_cli_defaults_come_from_the_registry():
    from tnforge.cli.negatives import negatives

    defaults = {param.name: param.default for param in negatives.params}
    assert defaults["kinds"] == ",".join(nk.DEFAULT_KINDS) and defaults["cap"] == DEFAULT_CAP
    text = " ".join(CliRunner().invoke(cli, ["negatives", "--help"]).output.split())
    assert f"Negative kinds: {', '.join(nk.KINDS)} (comma-" in text
    assert f"[default: {','.join(nk.DEFAULT_KINDS)}]" in text
    assert f"Most negatives per input and split. [default: {DEFAULT_CAP}" in text
