"""The negative-kind registry: every user reads the same names (generators, pipeline, CLI, trainers)."""

from __future__ import annotations

from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.generators import negatives as registry
from tnforge.generators import trivial_confusions
from tnforge.generators.negative_sampling import DEFAULT_CAP
from tnforge.pipelines import negatives as negatives_pipeline
from tnforge.schemas import negative_kinds as nk


def test_registry_shape():
    assert nk.KINDS == ("synthetic", "random", "topk")
    assert registry.kinds()[:3] == nk.KINDS  # the built-ins first, in the contract's order
    assert registry.default_kinds() == (nk.SYNTHETIC, nk.RANDOM)
    assert registry.needing(registry.HYPOTHESES, registry.kinds()) == [nk.TOPK]
    assert registry.budgeted_kinds(nk.KINDS) == (nk.SYNTHETIC, nk.RANDOM)
    assert registry.regenerated_kinds()[:3] == nk.KINDS
    streams = [s for g in registry.registered().values() for s in g.streams]
    assert sorted(streams) == list(range(registry.BUILTIN_STREAMS))  # each built-in stream held once
    assert nk.PAIR_TYPES == (nk.POSITIVE, *nk.PAIR_NEGATIVE_TYPES)
    assert nk.VOCAB_TYPES == (nk.POSITIVE, *nk.VOCAB_NEGATIVE_TYPES)
    assert set(nk.NEGATIVE_TYPES) == {"sequence", "vocabulary"}


def test_generators_and_pipeline_use_the_registry():
    assert negatives_pipeline.check_kinds is registry.check_kinds
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
    assert defaults["kinds"] == ",".join(registry.default_kinds()) and defaults["cap"] == DEFAULT_CAP
    text = " ".join(CliRunner().invoke(cli, ["negatives", "--help"]).output.split())
    assert f"Negative kinds: {', '.join(registry.kinds())} (comma-" in text
    assert f"[default: {','.join(registry.default_kinds())}]" in text
    assert f"Most negatives per input and split. [default: {DEFAULT_CAP}" in text


def test_one_check_of_kinds_and_their_inputs():
    import pytest

    with pytest.raises(registry.GeneratorError, match="unknown negative kind.*nope; choose from synthetic"):
        registry.check_kinds(["synthetic", "nope"], None)
    with pytest.raises(registry.GeneratorError, match="'topk' kind needs a hypotheses file"):
        registry.check_kinds(["topk"], None)
    with pytest.raises(registry.GeneratorError, match="no kind that reads one \\(topk\\)"):
        registry.check_kinds(["synthetic"], "h.parquet")
    registry.check_kinds(["synthetic", "topk"], "h.parquet")


def test_a_kind_is_registered_once():
    import pytest

    with pytest.raises(registry.GeneratorError, match="registered twice"):
        registry.register_generator(nk.SYNTHETIC, subtypes=())


def test_the_loop_regenerates_the_registry_s_kinds(monkeypatch, tmp_path):
    """The trainers pass no kinds (they do not read generators/); the pipeline's step asks the registry."""
    calls = []
    monkeypatch.setattr(negatives_pipeline, "run_negatives", lambda root, kinds, *rest, **named: calls.append(kinds))
    negatives_pipeline.regenerate_negatives(tmp_path, tmp_path / "pairs", (), 3.0, tmp_path / "h.parquet", 0)
    negatives_pipeline.regenerate_negatives(tmp_path, tmp_path / "pairs", ("topk",), 3.0, tmp_path / "h.parquet", 0)
    assert calls == [list(registry.regenerated_kinds()), ["topk"]]
    assert registry.regenerated_kinds() == nk.KINDS
