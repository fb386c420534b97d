"""The checkpoint contract: atomic save, load on a device, run directories, clear errors, and checkpoints
written by earlier tnforge versions (their exact payload layouts, built by hand) still loading."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tnforge import __version__  # noqa: E402
from tnforge.trainers.dual_encoders.config import DualEncoderConfig  # noqa: E402
from tnforge.trainers.dual_encoders.model import DualEncoder  # noqa: E402
from tnforge.trainers.dual_encoders.scorer import load_dual_encoder  # noqa: E402
from tnforge.trainers.families import load  # noqa: E402
from tnforge.trainers.kernel.vocab import CharVocabulary, WordVocabulary  # noqa: E402
from tnforge.trainers.seq2seq.loading import load_model  # noqa: E402
from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig  # noqa: E402
from tnforge.trainers.training.checkpoints import (  # noqa: E402
    BEST,
    LAST,
    checkpoint_file,
    load_checkpoint,
    save_checkpoint,
)

SMALL_DE = dict(input_buckets=512, output_buckets=512, embedding=8, hidden=8, dim=8, head_hidden=8, dropout=0.0)


def _seq2seq() -> tuple[Seq2Seq, CharVocabulary, WordVocabulary]:
    torch.manual_seed(1)
    input_vocab, output_vocab = CharVocabulary(list("0123456789")), WordVocabulary(["one", "two", "three"])
    config = Seq2SeqConfig(input_embedding=4, output_embedding=4, encoder_hidden=4, decoder_hidden=8, attention=4)
    return Seq2Seq(config, len(input_vocab), len(output_vocab)), input_vocab, output_vocab


def _same_weights(one: torch.nn.Module, two: torch.nn.Module) -> None:
    left, right = one.state_dict(), two.state_dict()
    assert left.keys() == right.keys()
    for name, tensor in left.items():
        assert torch.equal(tensor, right[name]), name


def test_save_and_load_a_payload(tmp_path) -> None:
    model, _, _ = _seq2seq()
    path = tmp_path / "run" / LAST
    path.parent.mkdir()
    save_checkpoint(path, "tnforge-test", model, {"size": 4}, {"epochs": 2}, training={"step": 7},
                    metrics={"dev": {"auc": 0.5}}, extras={"vocab": ["a"]})
    payload = load_checkpoint(path.parent, "tnforge-test")
    assert payload["format"] == "tnforge-test" and payload["format_version"] == 1
    assert payload["tnforge_version"] == __version__ and payload["torch_version"] == str(torch.__version__)
    assert (payload["model_config"], payload["config"], payload["training"]) == ({"size": 4}, {"epochs": 2},
                                                                                 {"step": 7})
    assert payload["metrics"] == {"dev": {"auc": 0.5}} and payload["vocab"] == ["a"]
    assert payload["model"].keys() == model.state_dict().keys()
    assert [p.name for p in path.parent.iterdir()] == [LAST]  # written via a temporary name, none left behind
    with pytest.raises(ValueError, match="may not replace model"):
        save_checkpoint(path, "tnforge-test", model, {}, {}, extras={"model": {}})


def test_run_directory_prefers_best_and_errors_name_the_problem(tmp_path) -> None:
    model, _, _ = _seq2seq()
    with pytest.raises(FileNotFoundError, match="no best.pt or checkpoint.pt in this run directory"):
        checkpoint_file(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such dual encoder checkpoint"):
        checkpoint_file(tmp_path / "missing.pt", "tnforge-dual-encoder")
    save_checkpoint(tmp_path / LAST, "tnforge-seq2seq", model, {}, {})
    assert checkpoint_file(tmp_path) == tmp_path / LAST
    save_checkpoint(tmp_path / BEST, "tnforge-seq2seq", model, {}, {})
    assert checkpoint_file(tmp_path) == tmp_path / BEST
    with pytest.raises(ValueError, match="not a tnforge dual encoder checkpoint"):
        load_checkpoint(tmp_path, "tnforge-dual-encoder")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="not a readable tnforge checkpoint"):
        load_checkpoint(tmp_path / "notes.txt", "tnforge-seq2seq")
    payload = load_checkpoint(tmp_path, "tnforge-seq2seq")
    torch.save({**payload, "format_version": 2}, tmp_path / "future.pt")
    with pytest.raises(ValueError, match="checkpoint format 2 is newer than this tnforge"):
        load_checkpoint(tmp_path / "future.pt", "tnforge-seq2seq")


def test_a_seq2seq_checkpoint_in_the_original_layout_loads(tmp_path) -> None:
    model, input_vocab, output_vocab = _seq2seq()
    payload = {  # exactly what trainers/training/checkpoints.py wrote before the shared contract (no "metrics")
        "format": "tnforge-seq2seq",
        "format_version": 1,
        "tnforge_version": "0.1.0",
        "torch_version": torch.__version__,  # the earliest ones held a TorchVersion, not a str
        "model_config": model.config.to_dict(),
        "config": {"max_output_length": 12, "model": model.config.to_dict()},
        "input_vocab": input_vocab.to_dict(),
        "output_vocab": output_vocab.to_dict(),
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "training": {},
    }
    torch.save(payload, tmp_path / BEST)
    loaded = load_model(tmp_path, "cpu")
    assert loaded.path == tmp_path / BEST and loaded.config["max_output_length"] == 12
    assert loaded.input_vocab.symbols == input_vocab.symbols
    assert loaded.output_vocab.symbols == output_vocab.symbols
    _same_weights(model, loaded.model)
    family, through_registry = load(tmp_path, "cpu", kind="decoder")  # as every --model loads it
    assert family.name == "seq2seq" and through_registry.max_output_length == 12
    _same_weights(model, through_registry.model)


def test_a_dual_encoder_checkpoint_in_the_original_layout_loads(tmp_path) -> None:
    torch.manual_seed(2)
    model = DualEncoder(DualEncoderConfig(features=1, **SMALL_DE))
    model_config = model.config.to_dict()
    del model_config["features"], model_config["trivial"]  # written before feature versions existed
    payload = {  # exactly what dual_encoder_model.save_dual_encoder wrote before the shared contract
        "format": "tnforge-dual-encoder", "format_version": 1, "tnforge_version": "0.1.0",
        "torch_version": str(torch.__version__), "model_config": model_config, "config": {"kind": "sequence"},
        "metrics": {"dev": {"auc": 0.9, "epoch": 3}},
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()}, "training": {},
    }
    torch.save(payload, tmp_path / "old.pt")
    scorer = load_dual_encoder(tmp_path / "old.pt", "cpu")
    assert scorer.config.features == 1 and not scorer.judges_trivial
    assert scorer.metrics == {"dev": {"auc": 0.9, "epoch": 3}} and scorer.path == tmp_path / "old.pt"
    _same_weights(model, scorer.model)
    assert scorer.score(["12"], ["twelve"]).shape == (1,)
    family, through_registry = load(tmp_path / "old.pt", "cpu", kind="scorer")
    assert family.name == "dual encoder" and through_registry.config.features == 1
