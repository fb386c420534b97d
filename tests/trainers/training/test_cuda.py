"""The CUDA paths: each trainer on the GPU (seq2seq with mixed precision, both dual encoders, the xgboost
tagger), the covering-grammar constraint on GPU tensors, and what the GPU trained read back on the CPU.

Skipped where torch sees no CUDA device (CI has none); run on a GPU machine with
`python -m pytest tests/trainers/training/test_cuda.py` (docs/guides/train-at-scale.md, "Checking a GPU machine").
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")

from tests.support.tiny_models import (  # noqa: E402
    SMALL,
    TINY_SENTENCES,
    examples_table,
    tiny_config,
    train_tiny,
    write_pair_dataset,
)

CUDA = "cuda"


def test_seq2seq_trains_on_cuda_with_amp_and_its_model_decodes_alike_on_the_cpu(tmp_path):
    from tnforge.trainers.decoding.decode import decode_windows
    from tnforge.trainers.seq2seq.loading import FORMAT, load_model
    from tnforge.trainers.training.checkpoints import load_checkpoint

    result, _data = train_tiny(tmp_path, device=CUDA)
    assert result.best["dev_accuracy"] == 1.0
    state = load_checkpoint(result.run / "checkpoint.pt", FORMAT)
    assert state["config"]["amp"]
    if torch.cuda.is_bf16_supported():  # bfloat16 needs no gradient scaler
        assert state["training"]["scaler"] == {}
    else:  # float16: the GradScaler ran and was saved
        assert state["training"]["scaler"]["scale"] > 0
    timing = [json.loads(x) for x in (result.run / "timing.jsonl").read_text().splitlines()]
    assert timing and all(0 < r["peak_memory_mb"] < 4096 for r in timing)
    table = examples_table(TINY_SENTENCES, "train")
    inputs, gold = table["input"].to_pylist(), table["after"].to_pylist()
    on_gpu = load_model(result.run, CUDA)
    assert next(on_gpu.model.parameters()).is_cuda
    assert decode_windows(on_gpu, inputs, beam=3) == gold
    assert decode_windows(load_model(result.run, "cpu"), inputs, beam=3) == gold


def test_seq2seq_resumes_on_cuda_where_it_stopped(tmp_path):
    from tnforge.trainers.seq2seq.train import train

    _straight, data = train_tiny(tmp_path / "a", epochs=1, device=CUDA)
    train(tiny_config(data, tmp_path / "b", epochs=2, device=CUDA))
    resumed = train(tiny_config(data, tmp_path / "b", epochs=3, device=CUDA), resume=True)
    assert (resumed.epochs, resumed.steps) == (3, 3 * 4)
    events = [json.loads(x) for x in (resumed.run / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in events if r["event"] == "dev"] == [0, 1, 2]


@pytest.mark.parametrize("first,then", [("cpu", CUDA), (CUDA, "cpu")])
def test_seq2seq_resumes_on_the_other_device(tmp_path, first, then):
    from tnforge.trainers.seq2seq.train import train

    _first, data = train_tiny(tmp_path, epochs=2, device=first)  # the CPU saves no scaler state
    resumed = train(tiny_config(data, tmp_path / "run", epochs=4, device=then), resume=True)
    assert (resumed.epochs, resumed.steps) == (4, 4 * 4)


@pytest.mark.parametrize("kind", ["sequence", "vocabulary"])
def test_dual_encoder_trains_on_cuda_and_scores_alike_on_the_cpu(tmp_path, kind):
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.metrics import roc_auc
    from tnforge.trainers.dual_encoders.pairs import load_pairs
    from tnforge.trainers.dual_encoders.scorer import load_dual_encoder
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    data = write_pair_dataset(tmp_path / "data")
    config = DETrainConfig(data=data, out=str(tmp_path / kind), kind=kind, device=CUDA, epochs=25, patience=25,
                           batch_size=32, learning_rate=1e-2, seed=5, progress=False, threads=1,
                           model=DualEncoderConfig(**SMALL))
    assert train_dual_encoder(config).best["auc"] >= 0.95
    rows = load_pairs(data, kind, "train")
    on_gpu = load_dual_encoder(tmp_path / kind, CUDA).score(rows.befores, rows.outputs).cpu().numpy()
    on_cpu = load_dual_encoder(tmp_path / kind, "cpu").score(rows.befores, rows.outputs).numpy()
    assert roc_auc(np.asarray(rows.labels, dtype=bool), on_gpu) >= 0.97
    assert np.allclose(on_gpu, on_cpu, atol=1e-4)


def test_tagger_trains_on_cuda_and_its_model_predicts_on_the_cpu(tmp_path):
    xgboost = pytest.importorskip("xgboost")
    from tnforge.trainers.tagger import load_tagger
    from tnforge.trainers.tagger.train import TaggerConfig, fit_tagger, xgboost_device

    assert xgboost_device("cuda") == "cuda"
    tokens = [[before for _, before, _ in sentence] for sentence in TINY_SENTENCES]
    labels = [[cls for cls, _, _ in sentence] for sentence in TINY_SENTENCES]
    tagger = fit_tagger(tokens, labels, TaggerConfig(rounds=40, patience=0, folds=2, device=CUDA))
    assert json.loads(tagger.booster.save_config())["learner"]["generic_param"]["device"].startswith(CUDA)
    tagger.save(tmp_path / "tagger")
    again = load_tagger(tmp_path / "tagger")  # as a laptop loads it: no device named
    gold = [cls for sentence in labels for cls in sentence]
    predicted = [p.cls for sentence in again.predict(tokens) for p in sentence]
    assert predicted == [p.cls for sentence in tagger.predict(tokens) for p in sentence]
    assert sum(p == g for p, g in zip(predicted, gold, strict=True)) >= len(gold) - 2  # the CPU fits all but 1
    assert np.allclose(again.probabilities(tokens), tagger.probabilities(tokens), atol=1e-4)
    assert xgboost.__version__


def test_grammar_mask_on_cuda_allows_only_licensed_readings():
    pytest.importorskip("pynini")
    from tnforge.grammars import covered_classes, licenses, reading_words
    from tnforge.trainers.decoding.beam_search import beam_search
    from tnforge.trainers.decoding.constraints import GrammarConstraint
    from tnforge.trainers.decoding.hooks import ConstraintBatch
    from tnforge.trainers.kernel.vocab import WordVocabulary
    from tnforge.trainers.kernel.window import LoadedWindowModel
    from tnforge.trainers.seq2seq.model import Seq2Seq, Seq2SeqConfig

    tokens = [("CARDINAL", "540"), ("TIME", "4:45"), ("MONEY", "$3"), ("MEASURE", "3 cm"), ("DATE", "1984"),
              ("DECIMAL", "3.5"), ("ORDINAL", "3rd"), ("LETTERS", "BBC"), ("DIGIT", "007")]
    words = sorted({w for cls, before in tokens for r in reading_words(before, cls, 200) for w in r}
                   | {"one", "two", "kilometers", "euros", "the", "of"})
    vocab = WordVocabulary(words)
    device = torch.device(CUDA)
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(input_embedding=8, output_embedding=8, encoder_hidden=8, decoder_hidden=16,
                                attention=8, dropout=0.0), 10, len(vocab)).to(device).eval()  # untrained
    model = LoadedWindowModel(model, None, vocab, {}, Path(), device)
    constraint = GrammarConstraint(lambda b, c: reading_words(b, c, 200), covered_classes(), max_length=30)
    batch = ConstraintBatch([f"<norm> {b} </norm>" for _, b in tokens], [b for _, b in tokens],
                            [c for c, _ in tokens], vocab, device)
    source = torch.randint(4, 10, (len(tokens), 5), device=device)
    found = beam_search(model, source, torch.full((len(tokens),), 5, device=device), beam=4, keep=3,
                        max_length=30, constraint=constraint.for_batch(batch))
    outputs = [(cls, before, vocab.decode(h.ids)) for (cls, before), hs in zip(tokens, found, strict=True)
               for h in hs]
    assert len(outputs) >= len(tokens)
    assert all(licenses(before, text, cls) for cls, before, text in outputs), outputs
