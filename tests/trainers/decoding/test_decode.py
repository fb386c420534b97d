"""Batched beam search: scores, top-k export, the constraint hook, the plain-text tokenizer, and the
`tnforge decode` / `tnforge normalize` commands — on a tiny model trained on a tiny dataset."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

torch = pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge import schemas  # noqa: E402
from tnforge.trainers.decoding.text_tokenizer import sentence_windows, spoken, tokenize  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from tnforge.trainers.seq2seq.loading import load_model

    result, data = H.train_tiny(tmp_path_factory.mktemp("decode"))
    return load_model(result.run), data, result.run


def _batch(loaded, windows):
    from tnforge.trainers.kernel.examples import make_batch

    return make_batch({"input": list(windows)}, loaded.input_vocab, None, 256)


def _windows():
    return H.examples_table(H.TINY_SENTENCES, "train")["input"].to_pylist()


def _sequence_log_prob(loaded, window: str, reading: str) -> float:
    """Teacher-forced log-probability of a reading (with its STOP) under the model."""
    from tnforge.trainers.kernel.vocab import BOS, EOS

    batch = _batch(loaded, [window])
    ids = loaded.output_vocab.encode(reading)
    with torch.no_grad():
        logits = loaded.model(batch.source, batch.source_lengths, torch.tensor([[BOS] + ids]))
    log_probs = torch.log_softmax(logits[0], dim=-1)
    return float(sum(log_probs[t, i] for t, i in enumerate(ids + [EOS])))


def test_top_k_gives_k_distinct_ranked_hypotheses_with_true_scores(tiny):
    from tnforge.trainers.decoding.decode import decode_batch

    loaded, _, _ = tiny
    windows = _windows()
    ranked, counts = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=6)
    assert counts == {}
    gold = H.examples_table(H.TINY_SENTENCES, "train")["after"].to_pylist()
    for window, hypotheses, reading in zip(windows, ranked, gold, strict=True):
        texts = [text for text, _ in hypotheses]
        scores = [score for _, score in hypotheses]
        assert len(texts) == 6 and len(set(texts)) == 6
        assert scores == sorted(scores, reverse=True)
        assert texts[0] == reading
        for text, score in hypotheses[:3]:
            assert score == pytest.approx(_sequence_log_prob(loaded, window, text), abs=1e-4)


def test_beam_one_is_greedy_decoding(tiny):
    from tnforge.trainers.decoding.beam_search import beam_search
    from tnforge.trainers.kernel.vocab import BOS, EOS, PAD, UNK

    loaded, _, _ = tiny
    model = loaded.model
    batch = _batch(loaded, _windows())
    found = beam_search(loaded, batch.source, batch.source_lengths, beam=1, keep=1, max_length=12)
    for row, hypotheses in enumerate(found):
        with torch.no_grad():
            encoded, state = model.encode(batch.source[row: row + 1], batch.source_lengths[row: row + 1])
            previous, ids = torch.tensor([BOS]), []
            for step in range(12):
                logits, state = model.step(previous, state, encoded)
                logits[0, [PAD, UNK, BOS]] = float("-inf")
                if step == 0:
                    logits[0, EOS] = float("-inf")
                choice = int(logits[0].argmax())
                if choice == EOS:
                    break
                ids.append(choice)
                previous = torch.tensor([choice])
        assert hypotheses[0].ids == ids


def test_constraint_mask_forbids_a_word_everywhere(tiny):
    from tnforge.trainers.decoding.decode import decode_batch
    from tnforge.trainers.decoding.hooks import BatchConstraint, PerBatch

    loaded, _, _ = tiny
    five = loaded.output_vocab.index["five"]
    seen_steps = []

    class NoFive(BatchConstraint):
        def step_scores(self, context):
            seen_steps.append(context.step)
            assert context.prefixes.shape == (context.rows.shape[0], context.step)
            mask = torch.zeros(context.rows.shape[0], len(context.output_vocab), dtype=torch.bool)
            mask[:, five] = True
            return None, mask

    windows = _windows()
    free, _ = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=4)
    assert any("five" in text.split() for hyps in free for text, _ in hyps)
    ranked, _ = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=4, constraint=PerBatch(NoFive))
    assert all("five" not in text.split() for hyps in ranked for text, _ in hyps)
    assert all(len(hyps) == 4 for hyps in ranked) and seen_steps[0] == 0


def test_prepared_scores_apply_per_input(tiny):
    from tnforge.trainers.decoding.decode import decode_batch
    from tnforge.trainers.decoding.hooks import BatchConstraint, DecodingConstraint

    loaded, _, _ = tiny
    windows = _windows()
    table = H.examples_table(H.TINY_SENTENCES, "train")
    target = table["after"].to_pylist().index("five hundred forty")
    other = table["after"].to_pylist().index("five dollars")
    five = loaded.output_vocab.index["five"]

    class NoFiveForOneInput(DecodingConstraint):
        def for_batch(self, batch):
            assert batch.inputs == windows and batch.befores is None
            scores = torch.zeros(len(batch.inputs), len(batch.output_vocab))
            scores[target, five] = float("-inf")
            return BatchConstraint(batch, added=scores)

    ranked, _ = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=3, constraint=NoFiveForOneInput())
    assert all("five" not in text.split() for text, _ in ranked[target])
    assert ranked[other][0][0] == "five dollars"


def test_stop_bonus_changes_the_ranking(tiny):
    from tnforge.trainers.decoding.decode import decode_batch
    from tnforge.trainers.decoding.hooks import BatchConstraint, PerBatch

    loaded, _, _ = tiny
    window = _windows()[1]  # "540" → five hundred forty
    free = decode_batch(loaded, _batch(loaded, [window]), beam=4, top_k=4)[0][0]
    runner_up = free[2][0]

    class PreferRunnerUp(BatchConstraint):
        def stop_scores(self, context):
            return torch.tensor([50.0 if text == runner_up else 0.0 for text in context.texts()])

    steered = decode_batch(loaded, _batch(loaded, [window]), beam=4, top_k=4,
                           constraint=PerBatch(PreferRunnerUp))[0][0]
    assert steered[0][0] == runner_up and steered[0][1] == pytest.approx(free[2][1] + 50.0, abs=1e-4)
    assert [t for t, _ in steered[1:]] == [t for t, _ in free if t != runner_up][:3]


def test_decoding_a_batch_twice_with_one_constraint_gives_the_same_readings_and_counts(tiny):
    from tnforge.trainers.decoding.constraints import GrammarConstraint
    from tnforge.trainers.decoding.decode import decode_batch, decode_files
    from tnforge.trainers.kernel.examples import example_files

    loaded, data, _ = tiny
    licensed = {"540": {("five", "forty"), ("five", "hundred", "forty")}, "$5": {("five", "dollars")},
                "4:45": {("four", "forty", "five", "o", "clock")}}
    constraint = GrammarConstraint(lambda before, cls: licensed.get(before, frozenset()), any_class=True)
    windows = _windows()
    first, first_counts = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=3, constraint=constraint)
    second, second_counts = decode_batch(loaded, _batch(loaded, windows), beam=3, top_k=3, constraint=constraint)
    assert first == second
    # 540 and $5 are constrained; every other input (4:45 too: "o clock" is not spellable) is left free
    assert first_counts == second_counts == {"grammar_constrained": 2, "grammar_unconstrained": len(windows) - 2}
    gold = H.examples_table(H.TINY_SENTENCES, "train")["after"].to_pylist()
    assert {t for t, _ in first[gold.index("five hundred forty")]} <= {"five forty", "five hundred forty"}
    batches = list(decode_files(loaded, example_files(data, "train"), split="train", beam=3, constraint=constraint))
    assert all(set(counts) == {"grammar_constrained", "grammar_unconstrained"} for _, _, counts in batches)
    assert sum(counts["grammar_constrained"] for _, _, counts in batches) == 2


def test_combined_constraint_adds_scores_and_merges_masks():
    from tnforge.trainers.decoding.hooks import (
        BatchConstraint,
        CombinedConstraint,
        ConstraintBatch,
        PerBatch,
        StepContext,
    )
    from tnforge.trainers.kernel.vocab import WordVocabulary

    vocab = WordVocabulary(["a", "b"])

    class One(BatchConstraint):
        def step_scores(self, context):
            mask = torch.zeros(1, len(vocab), dtype=torch.bool)
            mask[0, 4] = True
            return torch.ones(1, len(vocab)), mask

        def stop_scores(self, context):
            return torch.tensor([0.5])

    class Two(One):
        def step_scores(self, context):
            scores, mask = super().step_scores(context)
            return scores, mask.roll(1, dims=1)

    context = StepContext(1, torch.tensor([0]), torch.tensor([[4]]), vocab)
    batch = ConstraintBatch(["<norm> 1 </norm>"], None, None, vocab, torch.device("cpu"))
    combined = CombinedConstraint([PerBatch(One), PerBatch(Two)])
    scores, mask = combined.for_batch(batch).step_scores(context)
    assert scores.tolist() == [[2.0] * len(vocab)] and mask[0, 4] and mask[0, 5]
    assert combined.for_batch(batch).stop_scores(context).tolist() == [1.0]
    assert context.texts() == ["a"]


def test_tokenizer_follows_corpus_conventions():
    assert tokenize("Train 540 leaves at 4:45.") == ["Train", "540", "leaves", "at", "4:45", "."]
    assert tokenize("Dr. Smith paid $3.50 for 1,000 e-mails, see www.example.com/x.") == [
        "Dr", ".", "Smith", "paid", "$3.50", "for", "1,000", "e-mails", ",", "see", "www.example.com/x", "."]
    assert tokenize("The U.S. won on January 22, 2001 (3.5 kg).") == [
        "The", "U.S.", "won", "on", "January 22, 2001", "(", "3.5 kg", ")", "."]
    assert tokenize("mail bob@example.org") == ["mail", "bob@example.org"]
    tokens = ["Train", "540", "leaves"]
    assert sentence_windows(tokens)[1] == "Train <norm> 540 </norm> leaves"
    assert spoken(["at", "4:45", "."], ["<self>", "four forty five", "sil"]) == "at four forty five"


def test_cli_decode_writes_top_k_hypotheses(tiny, tmp_path):
    from click.testing import CliRunner

    from tnforge.cli import cli

    _loaded, data, run = tiny
    out = tmp_path / "hyps"
    result = CliRunner().invoke(cli, ["decode", "--model", str(run), "--data", str(data), "--split", "dev",
                                      "--beam", "3", "--top-k", "3", "--out", str(out), "--device", "cpu"])
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.schema.equals(schemas.HYPOTHESES, check_metadata=False)
    n_tokens = sum(len(s) for s in H.TINY_SENTENCES)
    assert table.num_rows == 3 * n_tokens
    frame = table.to_pandas()
    for _key, group in frame.groupby("key"):
        assert sorted(group["rank"]) == [0, 1, 2] and group["hypothesis"].nunique() == 3
    best = frame[frame["rank"] == 0]
    assert (best["hypothesis"] == best["gold"]).all()
    single = tmp_path / "one.parquet"
    again = CliRunner().invoke(cli, ["decode", "-m", str(run / "best.pt"), "-d", str(data), "--top-k", "1",
                                     "-o", str(single)])
    assert again.exit_code == 0 and pq.read_table(single).num_rows == n_tokens


def test_cli_normalize_prints_readings_and_speech(tiny):
    from click.testing import CliRunner

    from tnforge.cli import cli

    _loaded, _data, run = tiny
    result = CliRunner().invoke(cli, ["normalize", "--model", str(run), "--unguarded", "Train 540 leaves at 4:45."])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[1].split() == ["540", "five", "hundred", "forty", "(no", "class:", "seq2seq,", "unguarded)"]
    assert lines[-1] == "Train five hundred forty leaves at four forty five"
    bad = CliRunner().invoke(cli, ["normalize", "--model", str(run / "nothing.pt"), "x"])
    assert bad.exit_code != 0


def _dataset_with_positives(data: Path, root: Path) -> Path:
    """A copy of the tiny dataset with positive pairs (the tiny build has none) in train and dev."""
    import shutil

    import pyarrow as pa

    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.hashing import stable_hash64

    shutil.copytree(data, root)
    for split in ("train", "dev"):
        rows = sorted({(cls, b, a) for s in H.TINY_SENTENCES for cls, b, a in s if a not in schemas.TRIVIAL_TARGETS})
        table = pa.table({"key": pa.array([stable_hash64(*r) for r in rows], pa.uint64()),
                          "split": [split] * len(rows), "class": [r[0] for r in rows], "before": [r[1] for r in rows],
                          "after": [r[2] for r in rows], "count": pa.array([1] * len(rows), pa.int64())},
                         schema=schemas.POSITIVE_PAIRS)
        write_sharded(table, dataset_path(root, "positive_pairs", split), schemas.POSITIVE_PAIRS)
    return root


def test_cli_compare_and_sweep_lambda_with_dual_encoders(tiny, tmp_path):
    """`tnforge compare` and `tnforge sweep-lambda` end to end: negatives for the tiny dataset (trivial pairs
    included), two tiny dual encoders, every configuration decoded and reported."""
    import json

    from click.testing import CliRunner

    from tnforge.cli import cli
    from tnforge.pipelines.negatives import run_negatives

    _loaded, data, run = tiny
    root = _dataset_with_positives(data, tmp_path / "data")
    run_negatives(str(root), ["synthetic", "random"], 3, None, False, 0, 1, [])
    runner = CliRunner()
    for kind, out in (("seq-de", "seq"), ("voc-de", "voc")):
        trained = runner.invoke(cli, ["train", kind, "--data", str(root), "--out", str(tmp_path / out), "--epochs", "3",
                                      "--dim", "16", "--hidden", "32", "--buckets", "4096", "--device", "cpu",
                                      "--threads", "1", "--no-progress"])
        assert trained.exit_code == 0, trained.output
    report = tmp_path / "compare"
    result = runner.invoke(cli, ["compare", "-m", str(run), "-d", str(root), "--split", "dev", "--seq-de",
                                 str(tmp_path / "seq"), "--voc-de", str(tmp_path / "voc"), "-r", str(report),
                                 "--device", "cpu", "--threads", "1"])
    assert result.exit_code == 0, result.output
    comparison = json.loads((report / "comparison.json").read_text())
    names = [row["configuration"] for row in comparison["configurations"]]
    assert names[:4] == ["none", "+seqDE", "+vocDE[voc]", "+grammar"] and "+seqDE+vocDE[voc]" in names
    tokens = sum(len(s) for s in H.TINY_SENTENCES)
    assert all(row["tokens"] == tokens for row in comparison["configurations"])
    rows = {row["configuration"]: row for row in comparison["configurations"]}
    assert rows["none"]["errors"] == 0 and rows["+grammar"]["errors"] == 0  # gold is licensed: the mask keeps it
    assert comparison["grammar_inputs"]["constrained"] > 0
    assert "Grammar constraint:" in (report / "comparison.md").read_text()
    sweep = runner.invoke(cli, ["sweep-lambda", "-m", str(run), "-d", str(root), "--split", "dev", "--seq-de",
                                str(tmp_path / "seq"), "--voc-de", str(tmp_path / "voc"), "--lambdas", "0,5",
                                "--out", str(tmp_path / "sweep"), "--device", "cpu", "--threads", "1"])
    assert sweep.exit_code == 0, sweep.output
    assert {"sweep.md", "sweep.json"} <= {p.name for p in (tmp_path / "sweep").iterdir()}


def test_cli_loop_runs_rounds_without_touching_the_dataset(tiny, tmp_path):
    """`tnforge loop`: each round decodes the train split for top-k, regenerates negatives in OUT/data,
    retrains the filter and evaluates it; the source dataset is left as it was."""
    import json

    from click.testing import CliRunner

    from tnforge.cli import cli

    _loaded, data, run = tiny
    root = _dataset_with_positives(data, tmp_path / "data")
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    out = tmp_path / "loop"
    result = CliRunner().invoke(cli, ["loop", "-m", str(run), "-d", str(root), "--rounds", "2", "--epochs", "1",
                                      "--top-k", "2", "--out", str(out), "--device", "cpu", "--threads", "1"])
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "loop.json").read_text())
    tokens = sum(len(s) for s in H.TINY_SENTENCES)
    assert [row["round"] for row in rows] == [1, 2]
    for row in rows:
        assert 0 <= row["errors"] <= tokens and row["error_rate"] == pytest.approx(row["errors"] / tokens)
        assert 0 <= row["filter_auc"] <= 1
        assert (out / f"round-{row['round']}" / "voc-de" / "best.pt").exists()
        assert (out / f"round-{row['round']}" / "hypotheses" / "_hypotheses.json").exists()
    negatives = json.loads((out / "data" / "manifest.json").read_text())["negatives"]
    assert negatives["topk_from"].endswith("round-2/hypotheses")  # the last round's hypotheses
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before  # no pairs, no manifest added
    assert "| 2 |" in (out / "loop.md").read_text() and "%" in (out / "loop.md").read_text()
