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
