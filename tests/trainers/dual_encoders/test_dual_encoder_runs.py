"""trainers.dual_encoder_runs: each kind's default model, and a training run that leaves dev.md."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from tests.support import tiny_models as DE  # noqa: E402
from tnforge.trainers.dual_encoders.features import DualEncoderConfig  # noqa: E402
from tnforge.trainers.dual_encoders.runs import default_model, train_with_report  # noqa: E402
from tnforge.trainers.dual_encoders.train import DETrainConfig  # noqa: E402


def test_default_models_differ_by_kind():
    sequence, vocabulary = default_model("sequence"), default_model("vocabulary")
    assert (sequence.kind, sequence.head, sequence.cross_buckets) == ("sequence", "mlp", 1 << 18)
    assert (vocabulary.kind, vocabulary.head, vocabulary.cross_buckets) == ("vocabulary", "dot", 0)
    assert sequence.dim == vocabulary.dim == DualEncoderConfig().dim
    with pytest.raises(ValueError, match="unknown dual encoder kind"):
        default_model("tagger")


def test_a_run_writes_its_dev_report(tmp_path):
    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import dataset_path, write_sharded

    for split, numbers in (("train", list(range(20))), ("dev", list(range(0, 20, 4)))):
        _pairs, vocab = DE.pairs_rows(split, numbers)
        write_sharded(pa.Table.from_pydict(vocab, schema=schemas.VOCAB_PAIRS),
                      dataset_path(tmp_path / "data", "vocab_pairs", split), schemas.VOCAB_PAIRS)
    config = DETrainConfig(data=str(tmp_path / "data"), out=str(tmp_path / "run"), kind="vocabulary", device="cpu",
                           epochs=1, progress=False, threads=1, model=DualEncoderConfig(**DE.SMALL))
    result, markdown = train_with_report(config)
    assert (result.run / "dev.md").read_text(encoding="utf-8") == markdown
    assert "vocabulary dual encoder" in markdown and (result.run / "best.pt").is_file()


def test_the_train_commands_defaults_are_each_kinds_default_model() -> None:
    """`train seq-de` / `train voc-de` options (generated from their dataclasses) default to the kind's model."""
    from tnforge.trainers.dual_encoders.options import SequenceOptions, VocabularyOptions
    from tnforge.trainers.dual_encoders.runs import default_model

    for kind, options in (("sequence", SequenceOptions()), ("vocabulary", VocabularyOptions())):
        model = default_model(kind)
        assert (options.head, options.dim, options.hidden, options.buckets) == (
            model.head, model.dim, model.hidden, model.input_buckets)
        assert getattr(options, "cross_buckets", 0) == model.cross_buckets


def test_pairs_an_unfinished_negatives_run_left_are_refused_in_one_line(bundled_build, tmp_path):
    """`tnforge negatives` drops the manifest's negatives section before it writes and records it last: pairs
    without it are what an interrupted run left, and training on them is refused before anything is written."""
    import json
    import shutil

    from click.testing import CliRunner

    from tnforge.cli import cli

    data = tmp_path / "data"
    shutil.copytree(bundled_build, data)
    manifest = json.loads((data / "manifest.json").read_text())
    del manifest["negatives"]  # as a run that was stopped after it began to write
    (data / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(cli, ["train", "voc-de", "--data", str(data), "--out", str(tmp_path / "voc"),
                                      "--epochs", "1", "--threads", "1", "--device", "cpu", "--no-progress"])
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: {data}: no finished pairs (manifest.json has no negatives section: "
                                     "`tnforge negatives` was interrupted, failed or never run there); run "
                                     "`tnforge negatives` first")
    assert not (tmp_path / "voc").exists()
