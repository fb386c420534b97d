"""Dual encoders: features, training on tiny pairs, checkpoints, and the pair metrics."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from tests.support.tiny_models import SMALL, pairs_rows, write_pair_dataset
from tnforge import schemas
from tnforge.datasets import dataset_path, write_sharded
from tnforge.hashing import stable_hash64
from tnforge.trainers.dual_encoders.config import DualEncoderConfig
from tnforge.trainers.dual_encoders.features import (
    Featurizer,
    input_grams,
    pair_keys,
    reading_grams,
    token_shape,
)
from tnforge.trainers.dual_encoders.metrics import pair_metrics, roc_auc
from tnforge.trainers.dual_encoders.model import DualEncoder
from tnforge.trainers.dual_encoders.numbers import reading_numbers
from tnforge.trainers.dual_encoders.pairs import load_pairs
from tnforge.trainers.dual_encoders.scorer import load_dual_encoder
from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder


@pytest.fixture(scope="module")
def pair_dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_pair_dataset(tmp_path_factory.mktemp("de_data"))




def test_features_are_stable_and_informative() -> None:
    grams = input_grams("1,234")
    assert "d1@3/4" in grams and "d4@0/4" in grams  # digits keep their place value
    assert "wtwenty one" in reading_grams("twenty one") and "p0:twenty" in reading_grams("twenty one")
    featurizer = Featurizer(DualEncoderConfig(**SMALL))
    ids, offsets = featurizer.pack("input", ["12", "1,234"])
    again, _ = Featurizer(DualEncoderConfig(**SMALL)).pack("input", ["12", "1,234"])
    assert ids.tolist() == again.tolist() and offsets.tolist()[0] == 0
    assert int(ids.max()) < 4096


def test_matrix_logits_match_pair_logits() -> None:
    import torch

    for head in ("mlp", "dot"):
        torch.manual_seed(0)
        model = DualEncoder(DualEncoderConfig(head=head, **SMALL)).eval()
        u, v = torch.randn(5, 32), torch.randn(7, 32)
        matrix = model.matrix_logits(u, v, chunk=64)
        pairs = model.pair_logits(u.repeat_interleave(7, 0), v.repeat(5, 1)).view(5, 7)
        assert torch.allclose(matrix, pairs, atol=1e-5)


def test_load_pairs_filters_types_and_thins_by_ratio(pair_dataset: str) -> None:
    everything = load_pairs(pair_dataset, "sequence", "train")
    only_random = load_pairs(pair_dataset, "sequence", "train", negatives=("random",))
    assert set(everything.types) == {"positive", "synthetic", "random"}
    assert set(only_random.types) == {"positive", "random"}
    thinned = load_pairs(pair_dataset, "sequence", "train", ratio=1.0, seed=3)
    positives = sum(thinned.labels)
    assert positives == 60 and len(thinned) - positives <= 1.3 * positives
    assert load_pairs(pair_dataset, "sequence", "train", ratio=1.0, seed=3).befores == thinned.befores


def test_pair_keys_match_numbers_letters_and_months() -> None:
    spelled, whole = reading_numbers("twenty eight thousand four hundred eighty seven dollars")
    assert "28487" in spelled and whole == [{"28487"}]
    assert {"1995"} <= reading_numbers("nineteen ninety five")[1][0] and "1905" in reading_numbers("nineteen o five")[0]
    assert reading_numbers("four nine sil three o sil four")[1] == [{"49"}, {"30"}, {"4"}]
    right, near_miss = pair_keys("1995", "nineteen ninety five"), pair_keys("1995", "nineteen ninety six")
    assert {"num_all", "said_all"} <= set(right) and {"num_missing", "said_extra"} <= set(near_miss)
    assert "let_eq" in pair_keys("DEFCs", "d e f c's") and "let_ne" in pair_keys("IUCN", "i u d's n")
    assert "month_eq" in pair_keys("12 Oct 2000", "the twelfth of october two thousand")
    assert "month_number" in pair_keys("2012-12-12", "the twelfth of december twenty twelve")
    assert "month_ne" in pair_keys("18 May 2009", "the eighteenth of march two thousand nine")


def test_interaction_term_needs_the_tokens_and_is_sequence_only() -> None:
    import torch

    with pytest.raises(ValueError, match="sequence kind only"):
        DualEncoder(DualEncoderConfig(kind="vocabulary", cross_buckets=1024, **SMALL))
    model = DualEncoder(DualEncoderConfig(cross_buckets=1024, **SMALL))
    with torch.no_grad():
        model.cross.weight.fill_(0.25)
    featurizer = Featurizer(model.config)
    ids, offsets = featurizer.pack_cross(["12", "1,234"], ["twelve", "one thousand two hundred thirty four"])
    assert offsets.tolist()[0] == 0 and int(ids.max()) < 1024 and len(ids) > 2 * len(pair_keys("12", "twelve"))
    u, v = torch.zeros(2, 32), torch.zeros(2, 32)
    plain = DualEncoder(DualEncoderConfig(**SMALL))
    plain.load_state_dict({k: t for k, t in model.state_dict().items() if not k.startswith("cross")})
    # The interaction term adds 0.25 per distinct hashed pair feature to the towers' logit.
    sizes = torch.diff(torch.cat([offsets, torch.tensor([len(ids)])])).float()
    assert torch.allclose(model.pair_logits(u, v, (ids, offsets)) - plain.pair_logits(u, v), 0.25 * sizes)
    with pytest.raises(ValueError, match="cross ids"):
        model.pair_logits(u, v)


@pytest.mark.parametrize("kind,cross", [("sequence", 0), ("sequence", 1 << 14), ("vocabulary", 0)])
def test_training_separates_obvious_pairs(pair_dataset: str, tmp_path, kind: str, cross: int) -> None:
    config = DETrainConfig(data=pair_dataset, out=str(tmp_path / kind), kind=kind, device="cpu", epochs=25,
                           patience=25, batch_size=32, learning_rate=1e-2, seed=5, progress=False, threads=1,
                           model=DualEncoderConfig(cross_buckets=cross, **SMALL))
    result = train_dual_encoder(config)
    assert result.best["auc"] >= 0.95
    scorer = load_dual_encoder(tmp_path / kind, "cpu")
    rows = load_pairs(pair_dataset, kind, "train")
    scores = scorer.score(rows.befores, rows.outputs).numpy()
    labels = np.asarray(rows.labels, dtype=bool)
    assert roc_auc(labels, scores) >= 0.97
    assert scores[labels].mean() > 0.7 and scores[~labels].mean() < 0.3
    records = [json.loads(line) for line in (tmp_path / kind / "metrics.jsonl").read_text().splitlines()]
    dev = [r for r in records if r["event"] == "dev"]
    assert [r["epoch"] for r in dev] == list(range(result.epochs)) and {r["event"] for r in records} == {"dev", "train"}
    assert all(r["step"] % 20 == 0 and r["loss"] > 0 for r in records if r["event"] == "train")
    assert scorer.metrics["dev"]["auc"] == pytest.approx(result.best["auc"])
    if kind == "vocabulary":
        matrix = scorer.score_matrix(["21", "5"], ["twenty", "one", "five", "forty", "seven"])
        assert matrix.shape == (2, 5)
        # Each input's own words score high, the words its negatives held score low.
        assert matrix[0, 0] > 0.5 > matrix[0, 3] and matrix[1, 2] > 0.5 > matrix[1, 4]


def test_auc_and_false_accepts_on_hand_made_scores() -> None:
    assert roc_auc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4]) == pytest.approx(0.875)
    assert np.isnan(roc_auc([1, 1], [0.2, 0.3]))
    report = pair_metrics([1, 1, 0, 0, 0], [0.9, 0.6, 0.7, 0.2, 0.1], ["positive", "positive", "random",
                                                                       "synthetic", "random"])
    by_type = {row["type"]: row for row in report["per_type"]}
    assert by_type["random"]["false_accept"] == pytest.approx(0.5)
    assert by_type["synthetic"]["false_accept"] == 0.0
    assert report["accuracy"] == pytest.approx(0.8) and report["false_accept"] == pytest.approx(1 / 3)


def test_token_shape_and_trivial_pair_keys() -> None:
    assert {"case:upper", "vowels:v+"} <= set(token_shape("TURNS"))
    assert {"case:upper", "vowels:v0", "consonants:3"} <= set(token_shape("NHL"))
    assert "digits+letters" in token_shape("1990s") and "other:," in token_shape(",")
    keys = pair_keys("TURNS", schemas.SELF, features=2)
    assert keys[0] == "trivial:<self>" and "trivial:<self>:case:upper" in keys
    # Version 1 (checkpoints trained before trivial pairs) keeps its string-matching features.
    assert pair_keys("TURNS", schemas.SELF) == pair_keys("TURNS", schemas.SELF, features=1)
    assert not [k for k in pair_keys("TURNS", schemas.SELF) if k.startswith("trivial")]
    assert "scase:upper" in input_grams("TURNS", features=2) and "scase:upper" not in input_grams("TURNS")


TRAIN_WORDS = ("cat dog house river Ottawa London apple table window garden music paper water stone light "
               "TURNS HERO GOAT FROM Paris").split()
DEV_WORDS = "mouse forest BUILDS Berlin orange".split()


@pytest.fixture(scope="module")
def trivial_dataset(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Numbers with their readings and an "unread" <self> negative; words read as written with a spelled-out
    negative (the pairs `tnforge negatives` makes for trivial tokens)."""
    root = tmp_path_factory.mktemp("de_trivial")
    for split, numbers, tokens in (("train", range(60), TRAIN_WORDS), ("dev", range(0, 60, 3), DEV_WORDS)):
        rows = {name: [] for name in schemas.PAIRS.names}
        pairs, _ = pairs_rows(split, list(numbers))
        extra = [(str(n), schemas.SELF, 0, "synthetic") for n in numbers]
        extra += [(w, schemas.SELF, 1, "") for w in tokens]
        extra += [(w, " ".join(w.lower()), 0, "synthetic") for w in tokens]
        for before, reading, label, kind in extra:
            for name, value in (("key", stable_hash64(split, before, reading, kind)), ("split", split),
                                ("class", "PLAIN"), ("before", before), ("reading", reading), ("label", label),
                                ("negative_type", kind), ("negative_subtype", kind), ("licensed", None),
                                ("generator_version", "test"), ("source_key", 0)):
                rows[name].append(value)
        table = pa.concat_tables([pa.Table.from_pydict(pairs, schema=schemas.PAIRS),
                                  pa.Table.from_pydict(rows, schema=schemas.PAIRS)])
        write_sharded(table, dataset_path(root, "pairs", split), schemas.PAIRS)
    return str(root)


def test_a_de_trained_on_trivial_pairs_judges_trivial_readings(trivial_dataset: str, tmp_path) -> None:
    import torch

    config = DETrainConfig(data=trivial_dataset, out=str(tmp_path / "seq"), kind="sequence", device="cpu", epochs=25,
                           patience=25, batch_size=32, learning_rate=1e-2, seed=5, progress=False, threads=1,
                           model=DualEncoderConfig(cross_buckets=1 << 14, **SMALL))
    plain = load_pairs(trivial_dataset, "sequence", "train", trivial=False)
    assert plain.labels and schemas.SELF not in plain.outputs and not set(TRAIN_WORDS) & set(plain.befores)
    result = train_dual_encoder(config)
    assert "nontrivial" in result.best and result.best["nontrivial"]["count"] < result.best["count"]
    scorer = load_dual_encoder(tmp_path / "seq", "cpu")
    assert scorer.judges_trivial and scorer.config.features == 2
    # Unseen words are read as written, not spelled; a number is not left unread.
    words = scorer.score(DEV_WORDS, [schemas.SELF] * len(DEV_WORDS)).numpy()
    spelled = scorer.score(DEV_WORDS, [" ".join(w.lower()) for w in DEV_WORDS]).numpy()
    assert (words > spelled).all() and words.mean() > 0.5 > spelled.mean()
    numbers = scorer.score(["21", "42"], [schemas.SELF, schemas.SELF]).numpy()
    readings = scorer.score(["21", "42"], ["twenty one", "forty two"]).numpy()
    assert (numbers < 0.5).all() and (readings > 0.5).all()

    # A checkpoint from before feature versions (no "features" in its model config) loads as version 1.
    payload = torch.load(tmp_path / "seq" / "best.pt", map_location="cpu", weights_only=False)
    del payload["model_config"]["features"], payload["model_config"]["trivial"]
    torch.save(payload, tmp_path / "old.pt")
    old = load_dual_encoder(tmp_path / "old.pt", "cpu")
    assert old.config.features == 1 and not old.judges_trivial


@pytest.mark.parametrize("select,best_epoch", [("auc", 2), ("auc-nontrivial", 1)])
def test_best_epoch_is_chosen_by_the_selected_dev_figure(trivial_dataset: str, tmp_path, monkeypatch,
                                                         select: str, best_epoch: int) -> None:
    """The dev figures of each epoch are scripted (all pairs vs non-trivial pairs disagree); training is real."""
    import json

    import tnforge.trainers.dual_encoders.train as training

    figures = iter([(0.90, 0.50), (0.80, 0.90), (0.95, 0.60), (0.70, 0.70)])

    def scripted(model, rows, device):
        auc, nontrivial = next(figures)
        return {"auc": auc, "accuracy": auc, "false_accept": 0.0, "count": 10, "nontrivial": {"count": 5, "auc": nontrivial}}

    monkeypatch.setattr(training, "evaluate_rows", scripted)
    config = DETrainConfig(data=trivial_dataset, out=str(tmp_path / "run"), kind="sequence", device="cpu", epochs=4,
                           patience=4, batch_size=32, seed=5, progress=False, threads=1, select=select,
                           model=DualEncoderConfig(**SMALL))
    result = training.train_dual_encoder(config)
    records = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert result.best["epoch"] == best_epoch and result.best["selected_by"] == select
    assert [r["epoch"] for r in records if r.get("best")][-1] == best_epoch
    assert load_dual_encoder(tmp_path / "run", "cpu").metrics["dev"]["epoch"] == best_epoch


def test_unknown_selection_is_a_clear_error() -> None:
    from tnforge.trainers.dual_encoders.train import selection_score

    with pytest.raises(ValueError, match="auc-nontrivial"):
        selection_score({"auc": 0.9}, "accuracy")
    assert selection_score({"auc": 0.9}, "auc-nontrivial") == 0.9  # no trivial pairs: all pairs
    assert selection_score({"auc": 0.9, "nontrivial": {"auc": 0.7}}, "auc-nontrivial") == 0.7


def test_training_without_dev_pairs_keeps_the_last_epoch_and_says_so(tmp_path) -> None:
    """No dev pairs (a build with `--split none`): nothing to judge by, so no early stopping (it used to stop after
    `patience` epochs and keep the first epoch as best.pt) and best.pt is the last epoch, as the note says."""
    from tnforge.trainers.dual_encoders.runs import describe

    root = tmp_path / "data"
    pairs, vocab = pairs_rows("train", list(range(30)))
    empty, empty_vocab = pairs_rows("dev", [])
    for split, (p, v) in (("train", (pairs, vocab)), ("dev", (empty, empty_vocab))):
        write_sharded(pa.Table.from_pydict(p, schema=schemas.PAIRS), dataset_path(root, "pairs", split), schemas.PAIRS)
        write_sharded(pa.Table.from_pydict(v, schema=schemas.VOCAB_PAIRS), dataset_path(root, "vocab_pairs", split),
                      schemas.VOCAB_PAIRS)
    config = DETrainConfig(data=str(root), out=str(tmp_path / "run"), kind="sequence", device="cpu", epochs=4,
                           patience=1, batch_size=32, seed=5, progress=False, threads=1, model=DualEncoderConfig(**SMALL))
    result = train_dual_encoder(config)
    assert result.dev_pairs == 0 and result.stopped != "early stopping" and result.epochs == 4
    assert result.best["epoch"] == 3
    assert load_dual_encoder(tmp_path / "run", "cpu").metrics["dev"]["epoch"] == 3
    note, _ = describe(result, "")
    assert "no dev pairs: best.pt is the last epoch's weights" in note
