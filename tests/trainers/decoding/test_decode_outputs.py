"""trainers.decode_outputs: the one decode → predictions loop, evaluation of a decoded split, and the
hypotheses writer (one file or Parquet parts) — on a tiny seq2seq model trained briefly."""

from __future__ import annotations

import json
from contextlib import contextmanager

import numpy as np
import pyarrow.parquet as pq
import pytest

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge import schemas  # noqa: E402
from tnforge.datasets import shard_name  # noqa: E402
from tnforge.generators.topk import read_hypotheses  # noqa: E402
from tnforge.trainers.decoding.outputs import write_hypotheses  # noqa: E402
from tnforge.trainers.evaluation.decoded import decode_predictions, evaluate_decoding, original_tokens  # noqa: E402

TOKENS = sum(len(s) for s in H.TINY_SENTENCES)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from tnforge.trainers.kernel.examples import example_files
    from tnforge.trainers.seq2seq.loading import load_model

    result, data = H.train_tiny(tmp_path_factory.mktemp("outputs"), epochs=2)
    return load_model(result.run), example_files(data, "dev")


class Recorder:
    """A progress factory that records each bar's label, total and updates."""

    def __init__(self) -> None:
        self.bars: list[list] = []

    @contextmanager
    def __call__(self, label: str, total: int):
        bar = [label, total, 0]
        self.bars.append(bar)

        class Bar:
            def update(self, n: int) -> None:
                bar[2] += n

        yield Bar()


def test_decode_predictions_gives_one_prediction_per_original_token(tiny):
    loaded, files = tiny
    seen: list[int] = []
    predictions, seconds, counts = decode_predictions(loaded, files, "dev", beam=2, batch_size=8, on_batch=seen.append)
    assert len(predictions) == TOKENS == sum(seen) == original_tokens(files, "dev") and seconds >= 0
    assert counts == {}  # no constraint, nothing counted
    gold = {(cls, before): after for sentence in H.TINY_SENTENCES for cls, before, after in sentence}
    assert all(gold[(p["class"], p["before"])] == p["gold"] and isinstance(p["prediction"], str) for p in predictions)


def test_decode_predictions_needs_gold_readings(tiny, tmp_path):
    loaded, _ = tiny
    path = tmp_path / "no_after.parquet"
    pq.write_table(H.examples_table(H.TINY_SENTENCES, "dev").drop(["after"]), path)
    with pytest.raises(ValueError, match="no 'after' column"):
        decode_predictions(loaded, [path], None)


def test_evaluate_decoding_reports_every_token_under_a_progress_bar(tiny):
    loaded, files = tiny
    progress = Recorder()
    result = evaluate_decoding(loaded, files, "dev", beam=2, progress=progress, label="eval")
    assert result["tokens"]["count"] == TOKENS
    assert progress.bars == [["eval", TOKENS, TOKENS]]


def test_write_hypotheses_one_file_or_parts(tiny, tmp_path):
    loaded, files = tiny
    single = write_hypotheses(loaded, files, tmp_path / "one.parquet", split="dev", beam=3, top_k=2)
    table = pq.read_table(tmp_path / "one.parquet")
    assert table.schema.equals(schemas.HYPOTHESES, check_metadata=False)
    assert (single.inputs, single.rows, single.files) == (TOKENS, table.num_rows, 1) and table.num_rows <= 2 * TOKENS
    progress = Recorder()
    parts = write_hypotheses(loaded, files, tmp_path / "parts", split="dev", beam=3, top_k=2, batch_size=8,
                             rows_per_file=1, progress=progress)
    names = sorted(p.name for p in (tmp_path / "parts").iterdir())
    assert names == ["_hypotheses.json", *(shard_name(i, parts.files) for i in range(parts.files))]
    assert parts.files > 1
    assert pq.read_table(tmp_path / "parts").num_rows == parts.rows == single.rows
    assert progress.bars == [["decode", TOKENS, TOKENS]]
    marker = json.loads((tmp_path / "parts" / "_hypotheses.json").read_text())
    assert marker["complete"] and marker["rows"] == parts.rows and marker["parts"] == names[1:]
    # A folder that holds hypotheses is never written into (two decodes into one folder used to overwrite).
    with pytest.raises(ValueError, match="already holds hypotheses"):
        write_hypotheses(loaded, files, tmp_path / "parts", split="dev", beam=3, top_k=2, batch_size=8)
    assert sorted(p.name for p in (tmp_path / "parts").iterdir()) == names
    # Sharded and sorted by key and rank: the same rows as the one file of the same batches, scores to the bit.
    same_batches = write_hypotheses(loaded, files, tmp_path / "eight.parquet", split="dev", beam=3, top_k=2,
                                    batch_size=8)
    parted, whole = read_hypotheses(tmp_path / "parts"), pq.read_table(tmp_path / "eight.parquet")
    assert same_batches.rows == parts.rows
    assert parted.sort_by([("key", "ascending"), ("rank", "ascending")]).equals(whole)
    # Batches of 8 and of 64 round the model's arithmetic apart in the last bits of a score, no more.
    assert np.allclose(whole["score"].to_numpy(), pq.read_table(tmp_path / "one.parquet")["score"].to_numpy(),
                       rtol=1e-5, atol=1e-6)


def test_write_hypotheses_writes_nothing_for_nothing(tiny, tmp_path):
    loaded, files = tiny
    written = write_hypotheses(loaded, files, tmp_path / "none.parquet", split="test")
    assert (written.inputs, written.rows, written.files) == (0, 0, 0) and not (tmp_path / "none.parquet").exists()
