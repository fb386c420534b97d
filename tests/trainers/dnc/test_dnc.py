"""The DNC family: the network (padding, beam rows), presets, training on the engine (a tiny DNC learns the
tiny dataset; resume is exact), its checkpoint in the family registry, and every decoding command using it
unchanged through the decoding protocol."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from tests.support.tiny_models import TINY_SENTENCES, examples_table, write_tiny_dataset  # noqa: E402
from tnforge.cli import cli  # noqa: E402
from tnforge.trainers.dnc.model import PRESETS, DNCConfig, DNCSeq2Seq  # noqa: E402

TINY = DNCConfig(input_embedding=12, output_embedding=12, controller_hidden=40, memory_slots=8, memory_width=8,
                 read_heads=2, attention=16, dropout=0.0)


def tiny_dnc_config(data, out, **overrides):
    from tnforge.trainers.dnc.train import DNCTrainConfig

    values = dict(data=str(data), out=str(out), device="cpu", epochs=40, batch_size=8, learning_rate=1e-2,
                  patience=100, seed=7, progress=False, threads=1, model=TINY)
    values.update(overrides)
    return DNCTrainConfig(**values)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from tnforge.trainers.dnc.train import train

    data = write_tiny_dataset(tmp_path_factory.mktemp("dnc") / "data")
    return train(tiny_dnc_config(data, data.parent / "run")), data


def test_padding_changes_nothing_and_beam_rows_select_whole_states():
    torch.manual_seed(3)
    model = DNCSeq2Seq(TINY, 20, 9).eval()
    source = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]])
    target = torch.tensor([[2, 4, 5], [2, 6, 4]])
    together = model(source, torch.tensor([5, 3]), target)
    alone = model(source[1:, :3], torch.tensor([3]), target[1:])
    torch.testing.assert_close(together[1:], alone)  # rows past their length keep their state
    encoded, state = model.encode(source, torch.tensor([5, 3]))
    index = torch.tensor([1, 1, 0])
    logits, moved = model.step(torch.tensor([2, 2, 2]), state.select(index), encoded.select(index))
    first, _ = model.step(torch.tensor([2, 2]), state, encoded)
    torch.testing.assert_close(logits, first[index])
    assert moved.dnc.memory.link.shape == (3, TINY.memory_slots, TINY.memory_slots)


def test_presets_fill_the_sizes_left_at_their_defaults():
    from tnforge.trainers.dnc.train import apply_preset

    paper = apply_preset(DNCConfig(), "paper")
    assert (paper.memory_slots, paper.memory_width, paper.read_heads, paper.controller_hidden,
            paper.input_embedding) == (256, 64, 5, 1024, 32)
    assert apply_preset(DNCConfig(read_heads=3), "paper").read_heads == 3  # given explicitly: kept
    assert apply_preset(DNCConfig(read_heads=3), "laptop") == DNCConfig(read_heads=3)
    assert set(PRESETS) == {"laptop", "paper"}


def test_tiny_dnc_learns_the_tiny_dataset_and_decodes_through_the_protocol(tiny_run):
    from tnforge.trainers import families
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.decoding.protocol import DecodableModel
    from tnforge.trainers.dnc.loading import FORMAT
    from tnforge.trainers.families import load

    result, _data = tiny_run
    records = [json.loads(line) for line in (result.run / "metrics.jsonl").read_text().splitlines()]
    losses = [r["loss"] for r in records if r["event"] == "train"]
    assert losses[-1] < losses[0] / 5
    assert result.best["dev_accuracy"] >= 0.9
    family, loaded = families.load(result.run, "cpu", kind="decoder")
    assert family.name == "dnc" and family.format == FORMAT and isinstance(loaded, DecodableModel)
    assert isinstance(loaded.model, DNCSeq2Seq) and loaded.model.config == TINY
    table = examples_table(TINY_SENTENCES, "train")
    decoded = decode_windows(loaded, table["input"].to_pylist(), beam=3)
    assert sum(d == g for d, g in zip(decoded, table["after"].to_pylist(), strict=True)) >= 0.9 * len(decoded)
    assert decoded == decode_windows(load(result.run)[1], table["input"].to_pylist(), beam=3)


def test_decoding_commands_use_a_dnc_run_unchanged(tiny_run, tmp_path):
    result, data = tiny_run
    runner = CliRunner()
    evaluated = runner.invoke(cli, ["evaluate", "--model", str(result.run), "--data", str(data), "--split", "dev",
                                    "--no-grammar", "--report", str(tmp_path / "report"), "--device", "cpu"])
    assert evaluated.exit_code == 0, evaluated.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["tokens"]["count"] == sum(len(s) for s in TINY_SENTENCES)
    normalized = runner.invoke(cli, ["normalize", "--model", str(result.run), "--unguarded", "--device", "cpu",
                                      "It costs $3 ."])
    assert normalized.exit_code == 0, normalized.output
    assert normalized.output.strip() != ""


def test_resume_continues_exactly_where_training_stopped(tmp_path):
    from tnforge.trainers.dnc.loading import FORMAT
    from tnforge.trainers.dnc.train import train
    from tnforge.trainers.training.checkpoints import load_checkpoint

    data = write_tiny_dataset(tmp_path / "data")
    straight = train(tiny_dnc_config(data, tmp_path / "a", epochs=3))
    train(tiny_dnc_config(data, tmp_path / "b", epochs=2))
    resumed = train(tiny_dnc_config(data, tmp_path / "b", epochs=3), resume=True)
    assert (resumed.epochs, resumed.steps) == (straight.epochs, straight.steps) == (3, 3 * 4)
    one = load_checkpoint(straight.run / "checkpoint.pt", FORMAT)["model"]
    two = load_checkpoint(resumed.run / "checkpoint.pt", FORMAT)["model"]
    assert all(torch.equal(one[name], two[name]) for name in one)
    assert (resumed.run / "metrics.jsonl").read_bytes() == (straight.run / "metrics.jsonl").read_bytes()


def test_cli_train_dnc_with_a_preset_and_bad_options_in_one_line(tmp_path):
    data = write_tiny_dataset(tmp_path / "data")
    runner = CliRunner()
    args = ["train", "dnc", "--data", str(data), "--out", str(tmp_path / "run"), "--epochs", "1",
            "--controller-hidden", "16", "--memory-slots", "4", "--memory-width", "4", "--read-heads", "1",
            "--attention", "8", "--no-progress", "--device", "cpu", "--threads", "1"]
    trained = runner.invoke(cli, args)
    assert trained.exit_code == 0, trained.output
    assert "best dev" in trained.output and (tmp_path / "run" / "best.pt").is_file()
    saved = torch.load(tmp_path / "run" / "best.pt", weights_only=True)
    assert saved["format"] == "tnforge-dnc" and saved["config"]["size"] == "laptop"
    assert saved["model_config"]["memory_slots"] == 4
    bad = runner.invoke(cli, args[:6] + ["--preset", "huge"])
    assert bad.exit_code == 2 and "'huge' is not one of 'laptop', 'paper'" in bad.output
    shown = runner.invoke(cli, ["train", "dnc", "--help"])
    assert "--preset" in shown.output and "--memory-slots" in shown.output


def test_grammar_mask_and_both_dual_encoders_constrain_a_dnc_unchanged(tiny_run, tmp_path):
    from tnforge.trainers.decoding.constraint_sets import build_constraint
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.model import DualEncoder
    from tnforge.trainers.dual_encoders.scorer import save_dual_encoder
    from tnforge.trainers.evaluation.decoded import decode_predictions
    from tnforge.trainers.families import load
    from tnforge.trainers.kernel.examples import example_files
    from tnforge.trainers.training.checkpoints import BEST

    result, data = tiny_run
    for kind in ("sequence", "vocabulary"):
        torch.manual_seed(2)
        model = DualEncoder(DualEncoderConfig(kind=kind, input_buckets=512, output_buckets=512, embedding=8,
                                              hidden=8, dim=8, head_hidden=8, dropout=0.0))
        save_dual_encoder(tmp_path / kind / BEST, model, {"kind": kind})
    # a "grammar" that licenses one wrong reading for each CARDINAL: the mask must force it
    licensed = {"540": {("five", "dollars")}, "12": {("three",)}, "3": {("twelve",)}}
    _, loaded = load(result.run, "cpu", kind="decoder")
    constraint, note = build_constraint(loaded, str(tmp_path / "sequence"), str(tmp_path / "vocabulary"),
                                        reading_words=lambda before, cls: licensed.get(before, set()),
                                        covered={"CARDINAL"})
    assert note == "seqDE λ=5, vocDE λ=5, grammar mask"
    predictions, _, counts = decode_predictions(loaded, example_files(data, "dev"), None, constraint, beam=4)
    cardinals = {p["before"]: p["prediction"] for p in predictions if p["class"] == "CARDINAL"}
    assert cardinals == {before: " ".join(next(iter(words))) for before, words in licensed.items()}
    assert counts and len(predictions) == sum(len(s) for s in TINY_SENTENCES)
