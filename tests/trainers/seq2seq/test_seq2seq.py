"""The seq2seq normalizer: vocabularies, streaming batches, training (a tiny model overfits a tiny
dataset), checkpoints and resume, devices, and the `tnforge train seq2seq` command.

The tiny dataset and training helpers live in tests/support/tiny_models.py.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

torch = pytest.importorskip("torch")

from tests.support.tiny_models import (  # noqa: E402
    TINY_SENTENCES,
    examples_table,
    tiny_config,
    train_tiny,
    write_tiny_dataset,
)
from tnforge.windows import window_input  # noqa: E402


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    result, data = train_tiny(tmp_path_factory.mktemp("s2s"))
    return result, data


# --- vocabularies and batches ---------------------------------------------------------------------------

def test_char_units_keep_markers_whole_and_words_split_on_spaces():
    from tnforge.trainers.kernel.vocab import CharVocabulary, WordVocabulary, char_units

    assert char_units("a <norm> 4:5 </norm> b") == ["a", " ", "<norm>", " ", "4", ":", "5", " ", "</norm>", " ", "b"]
    chars = CharVocabulary.build(["ab <norm> c </norm>", "ba"])
    assert chars.decode(chars.encode("ab")) == "ab"
    assert chars.encode("z") == [1]  # unknown → UNK
    words = WordVocabulary.build(["<self>", "four forty five", "sil", "h_letter  _letter"])
    assert words.decode(words.encode("four forty five")) == "four forty five"
    assert words.decode(words.encode("h_letter  _letter")) == "h_letter  _letter"  # double space survives
    restored = type(words)(words.to_dict()["symbols"])
    assert restored.symbols == words.symbols


def test_sentencepiece_vocabulary_splits_digits_and_round_trips():
    from tnforge.trainers.kernel.vocab import SentencePieceVocabulary, vocabulary_from_dict

    texts = [window_input([b for _, b, _ in s], i) for s in TINY_SENTENCES for i in range(len(s))] * 5
    vocab = SentencePieceVocabulary.train(texts, size=60, user_symbols=("<norm>", "</norm>"))
    pieces = vocab.units("Train <norm> 540 </norm> leaves")
    assert "<norm>" in pieces and "</norm>" in pieces
    assert {"5", "4", "0"} <= {p.lstrip("▁") for p in pieces}  # digits are single pieces
    again = vocabulary_from_dict(vocab.to_dict())
    assert again.decode(again.encode("Train <norm> 540 </norm>")) == "Train <norm> 540 </norm>"


def test_bucketed_batches_stream_every_row_once_and_shuffle_reproducibly(tmp_path):
    from tnforge.trainers.kernel.examples import bucketed_batches, example_files
    from tnforge.trainers.kernel.vocab import CharVocabulary, WordVocabulary

    data = write_tiny_dataset(tmp_path, copies=2)
    files = example_files(data, "train")
    table = examples_table(TINY_SENTENCES, "train", copies=2)
    chars, words = CharVocabulary.build(table["input"].to_pylist()), WordVocabulary.build(table["after"].to_pylist())

    def keys(**kwargs):
        batches = list(bucketed_batches(files, chars, words, 5, columns=("key", "input", "after"), **kwargs))
        return [k for b in batches for k in b.rows["key"]], batches

    plain, batches = keys(pool_size=1000)
    assert sorted(plain) == sorted(table["key"].to_pylist())
    lengths = [len(t) for b in batches for t in b.rows["input"]]
    assert lengths == sorted(lengths)  # one pool: sorted by input length
    first, _ = keys(shuffle=True, seed=3, pool_size=16)
    second, _ = keys(shuffle=True, seed=3, pool_size=16)
    other, _ = keys(shuffle=True, seed=4, pool_size=16)
    assert first == second and first != other and sorted(first) == sorted(plain)
    capped, _ = keys(max_copies=1)
    assert len(capped) == sum(len(s) for s in TINY_SENTENCES)
    # count_rows (progress totals, epoch sizes) counts what the batches stream
    from tnforge.trainers.kernel.examples import count_rows

    assert count_rows(files) == len(plain) and count_rows(files, max_copies=1) == len(capped)
    single = tmp_path / "one.parquet"
    pq.write_table(pa.concat_tables([table, examples_table(TINY_SENTENCES, "dev", copies=2)]), single)
    assert count_rows([single], "dev", max_copies=1) == len(capped)
    assert count_rows([single]) == 2 * len(plain)
    batch = batches[0]
    assert batch.target_in[:, 0].eq(2).all()  # BOS
    assert (batch.target_out == 3).sum() == len(batch)  # one EOS per row


def test_long_readings_are_batched_apart(tmp_path):
    from tnforge.trainers.kernel.examples import LONG_READING, bucketed_batches
    from tnforge.trainers.kernel.vocab import CharVocabulary, WordVocabulary

    long_reading = " ".join(["x_letter"] * LONG_READING)
    sentences = TINY_SENTENCES + [[("PLAIN", "a", "<self>"), ("ELECTRONIC", "x" * LONG_READING, long_reading)]]
    table = examples_table(sentences, "train")
    path = tmp_path / "one.parquet"
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    chars, words = CharVocabulary.build(table["input"].to_pylist()), WordVocabulary.build(table["after"].to_pylist())
    batches = list(bucketed_batches([path], chars, words, 4))
    assert batches[-1].rows["after"][-1] == long_reading
    assert all(b.target_in.shape[1] <= 4 for b in batches[:-1])  # short readings: short decoder loops


# --- training ---------------------------------------------------------------------------------------------

def test_tiny_model_overfits_tiny_dataset(tiny_run):
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.seq2seq.loading import load_model

    result, _data = tiny_run
    records = [json.loads(line) for line in (result.run / "metrics.jsonl").read_text().splitlines()]
    losses = [r["loss"] for r in records if r["event"] == "train"]
    assert losses[-1] < losses[0] / 10
    assert result.best["dev_accuracy"] == 1.0
    loaded = load_model(result.run)
    table = examples_table(TINY_SENTENCES, "train")
    assert decode_windows(loaded, table["input"].to_pylist(), beam=3) == table["after"].to_pylist()
    assert (result.run / "training.png").stat().st_size > 1000


def test_checkpoint_round_trip_keeps_weights_vocabularies_and_config(tiny_run):
    from tnforge import __version__
    from tnforge.trainers.seq2seq.loading import FORMAT, load_model, save_seq2seq
    from tnforge.trainers.training.checkpoints import load_checkpoint

    result, _ = tiny_run
    loaded = load_model(result.run / "best.pt", "cpu")
    payload = load_checkpoint(result.run, FORMAT)
    assert payload["tnforge_version"] == __version__
    assert payload["config"]["model"]["encoder_hidden"] == 32
    copy = result.run / "copy.pt"
    save_seq2seq(copy, loaded.model, loaded.input_vocab, loaded.output_vocab, loaded.config)
    again = load_model(copy, torch.device("cpu"))
    assert again.output_vocab.symbols == loaded.output_vocab.symbols
    assert again.input_vocab.symbols == loaded.input_vocab.symbols
    for name, tensor in loaded.model.state_dict().items():
        assert torch.equal(tensor, again.model.state_dict()[name]), name
    with pytest.raises(ValueError, match="not a"):
        load_checkpoint(result.run / "training.png", FORMAT)


def test_resume_continues_exactly_where_training_stopped(tmp_path):
    from tnforge.trainers.seq2seq.loading import FORMAT
    from tnforge.trainers.seq2seq.train import train
    from tnforge.trainers.training.checkpoints import load_checkpoint

    straight, data = train_tiny(tmp_path / "a", epochs=3)
    train(tiny_config(data, tmp_path / "b", epochs=2))
    resumed = train(tiny_config(data, tmp_path / "b", epochs=3), resume=True)
    assert (resumed.epochs, resumed.steps) == (straight.epochs, straight.steps) == (3, 3 * 4)
    one = load_checkpoint(straight.run / "checkpoint.pt", FORMAT)["model"]
    two = load_checkpoint(resumed.run / "checkpoint.pt", FORMAT)["model"]
    for name in one:
        assert torch.equal(one[name], two[name]), name
    assert (resumed.run / "metrics.jsonl").read_bytes() == (straight.run / "metrics.jsonl").read_bytes()
    dev_events = [json.loads(x) for x in (resumed.run / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in dev_events if r["event"] == "dev"] == [0, 1, 2]


def test_sentencepiece_units_train_and_decode(tmp_path):
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.seq2seq.loading import load_model

    result, _ = train_tiny(tmp_path, epochs=2, input_units="sentencepiece", output_units="sentencepiece",
                           sp_size=80)
    loaded = load_model(result.run)
    assert loaded.input_vocab.kind == loaded.output_vocab.kind == "sentencepiece"
    readings = decode_windows(loaded, ["It costs <norm> $3 </norm> , not $5"], beam=2)
    assert len(readings) == 1 and isinstance(readings[0], str)


def test_device_cuda_without_cuda_is_a_clear_error():
    from tnforge.trainers.training.devices import DeviceError, resolve_device

    assert resolve_device("cpu").type == "cpu"
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(DeviceError, match="unknown device"):
        resolve_device("tpu")
    if torch.cuda.is_available():
        pytest.skip("CUDA present: the missing-CUDA error cannot be seen here")
    with pytest.raises(DeviceError, match="CUDA is not available"):
        resolve_device("cuda")


# --- command line -------------------------------------------------------------------------------------------

def test_cli_train_seq2seq_trains_and_reports(tmp_path):
    from click.testing import CliRunner

    from tnforge.cli import cli

    data = write_tiny_dataset(tmp_path / "data")
    runner = CliRunner()
    args = ["train", "seq2seq", "--data", str(data), "--out", str(tmp_path / "run"), "--epochs", "2",
            "--encoder-hidden", "16", "--decoder-hidden", "16", "--attention", "8", "--no-progress",
            "--device", "cpu", "--threads", "1"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "best dev" in result.output and (tmp_path / "run" / "best.pt").is_file()
    resumed = runner.invoke(cli, args[:-4] + ["--resume", "--epochs", "3"])
    assert resumed.exit_code == 0, resumed.output
    assert "3 epochs" in resumed.output
    missing = runner.invoke(cli, ["train", "seq2seq", "--data", str(data), "--out", str(tmp_path / "new"),
                                  "--resume"])
    assert missing.exit_code != 0 and "nothing to resume" in missing.output
    if not torch.cuda.is_available():
        cuda = runner.invoke(cli, ["train", "seq2seq", "--data", str(data), "--out", str(tmp_path / "gpu"),
                                   "--device", "cuda"])
        assert cuda.exit_code != 0 and "CUDA is not available" in cuda.output


def test_trainers_import_neither_beam_nor_pynini():
    import subprocess
    import sys

    code = ("import sys; import tnforge.trainers.seq2seq.train, tnforge.trainers.decoding.decode, "
            "tnforge.trainers.evaluation.accuracy, tnforge.trainers.decoding.text_tokenizer, "
            "tnforge.trainers.decoding.outputs, tnforge.trainers.decoding.constraint_sets, "
            "tnforge.trainers.evaluation.constraint_runs, tnforge.trainers.adversarial_loop, "
            "tnforge.trainers.dual_encoders.runs, tnforge.cli.train.commands, "
            "tnforge.cli.decode, tnforge.cli.normalize, tnforge.cli.evaluate, tnforge.cli.compare, "
            "tnforge.cli.sweep_lambda, tnforge.cli.loop; "
            "bad = [m for m in ('apache_beam', 'pynini') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_training_without_dev_examples_keeps_the_last_weights_and_says_so(tmp_path):
    """A build without a dev split (`--split none`) gives nothing to judge by: no early stopping (it used to stop
    after `patience` evaluations of an empty dev split, keeping the first epoch's weights as best.pt), no
    learning-rate decay, best.pt is the last weights, and the summary says so."""
    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.manifest import mark_complete, write_manifest
    from tnforge.schemas import EXAMPLES
    from tnforge.trainers.kernel.window_task import describe
    from tnforge.trainers.seq2seq.train import train

    data = tmp_path / "data"
    write_sharded(examples_table(TINY_SENTENCES, "train"), dataset_path(data, "examples", "train"), EXAMPLES)
    write_sharded(examples_table([], "dev"), dataset_path(data, "examples", "dev"), EXAMPLES)  # as --split none
    write_manifest(data, mark_complete({}))
    result = train(tiny_config(data, tmp_path / "run", epochs=5, patience=1))
    assert result.stopped == "epochs" and result.epochs == 5
    assert result.best["step"] == result.steps and "dev_accuracy" not in result.best
    assert torch.load(tmp_path / "run" / "best.pt", weights_only=False)["metrics"]["dev"]["step"] == result.steps
    _, summary = describe(result)
    assert f"no dev examples: best.pt is the last weights (step {result.steps})" in summary
    assert (tmp_path / "run" / "training.png").exists()
