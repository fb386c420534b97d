"""trainers.constraint_sets: constraints built from dual-encoder runs and a grammar callable, their notes,
the kind check, and the configuration matrix that `compare` decodes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("torch")

from tests.support import tiny_models as DE  # noqa: E402
from tnforge.trainers.decoding.constraint_sets import (  # noqa: E402
    build_constraint,
    configuration_matrix,
    constraint_pieces,
    load_scorer,
)
from tnforge.trainers.decoding.constraints import (  # noqa: E402
    GrammarConstraint,
    SequenceDEConstraint,
    VocabularyFilterConstraint,
)
from tnforge.trainers.decoding.hooks import CombinedConstraint  # noqa: E402

#: What build_constraint reads off a loaded seq2seq model.
LOADED = SimpleNamespace(device="cpu", max_output_length=12)


def reading_words(before: str, cls: str | None) -> set[tuple[str, ...]]:
    return {("five",)} if before == "5" else set()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, str]:
    """A sequence and a vocabulary dual encoder, one epoch each on the number pairs of test_dual_encoder."""
    import pyarrow as pa

    from tnforge import schemas
    from tnforge.datasets import dataset_path, write_sharded
    from tnforge.trainers.dual_encoders.config import DualEncoderConfig
    from tnforge.trainers.dual_encoders.train import DETrainConfig, train_dual_encoder

    root = tmp_path_factory.mktemp("constraint_sets")
    data = str(root / "data")
    for split, numbers in (("train", list(range(30))), ("dev", list(range(0, 30, 3)))):
        pairs, vocab = DE.pairs_rows(split, numbers)
        write_sharded(pa.Table.from_pydict(pairs, schema=schemas.PAIRS), dataset_path(data, "pairs", split),
                      schemas.PAIRS)
        write_sharded(pa.Table.from_pydict(vocab, schema=schemas.VOCAB_PAIRS), dataset_path(data, "vocab_pairs", split),
                      schemas.VOCAB_PAIRS)
    found = {}
    for kind in ("sequence", "vocabulary"):
        found[kind] = str(root / kind)
        train_dual_encoder(DETrainConfig(data=data, out=found[kind], kind=kind, device="cpu", epochs=1, progress=False,
                                         threads=1, model=DualEncoderConfig(**DE.SMALL)))
    return found


def test_nothing_asked_is_no_constraint() -> None:
    assert build_constraint(LOADED) == (None, "unconstrained")


def test_grammar_mask_from_a_callable() -> None:
    constraint, note = build_constraint(LOADED, reading_words=reading_words, covered={"CARDINAL"})
    assert isinstance(constraint, GrammarConstraint) and note == "grammar mask"
    assert constraint.max_length == 12 and constraint.classes == {"CARDINAL"}


def test_dual_encoders_and_grammar_combine_with_notes(runs) -> None:
    constraint, note = build_constraint(LOADED, runs["sequence"], runs["vocabulary"], reading_words, {"CARDINAL"},
                                        weight=2)
    assert note == "seqDE λ=2, vocDE λ=2, grammar mask"
    assert isinstance(constraint, CombinedConstraint)
    assert [type(c) for c in constraint.constraints] == [SequenceDEConstraint, VocabularyFilterConstraint,
                                                         GrammarConstraint]
    single, note = build_constraint(LOADED, voc_de=runs["vocabulary"])
    assert isinstance(single, VocabularyFilterConstraint) and note == "vocDE λ=5"


def test_a_scorer_of_the_wrong_kind_is_a_clear_error(runs) -> None:
    with pytest.raises(ValueError, match="a vocabulary dual encoder, but a sequence one is needed"):
        load_scorer(runs["vocabulary"], "cpu", "sequence")
    with pytest.raises(ValueError, match="a sequence dual encoder, but a vocabulary one is needed"):
        build_constraint(LOADED, voc_de=runs["sequence"])
    assert load_scorer(runs["sequence"], "cpu", "sequence").kind == "sequence"


def test_pieces_are_named_per_run(runs) -> None:
    pieces = constraint_pieces(LOADED, runs["sequence"], [("a", runs["vocabulary"]), ("b", runs["vocabulary"])],
                               reading_words, {"CARDINAL"})
    assert list(pieces) == ["seqDE", "vocDE[a]", "vocDE[b]", "grammar"]
    assert isinstance(pieces["grammar"], GrammarConstraint)


def test_configuration_matrix() -> None:
    seq, voc_a, voc_b, grammar = (object() for _ in range(4))
    matrix = configuration_matrix({"seqDE": seq, "vocDE[a]": voc_a, "vocDE[b]": voc_b, "grammar": grammar})
    assert list(matrix) == ["none", "+seqDE", "+vocDE[a]", "+vocDE[b]", "+grammar", "+seqDE+vocDE[a]",
                            "+seqDE+vocDE[b]", "+seqDE+vocDE[a]+vocDE[b]+grammar"]
    assert matrix["none"] is None and matrix["+seqDE"] is seq and matrix["+grammar"] is grammar
    assert matrix["+seqDE+vocDE[b]"].constraints == [seq, voc_b]
    assert matrix["+seqDE+vocDE[a]+vocDE[b]+grammar"].constraints == [seq, voc_a, voc_b, grammar]
    without_seq = configuration_matrix({"vocDE[a]": voc_a, "grammar": grammar})
    assert list(without_seq) == ["none", "+vocDE[a]", "+grammar", "+vocDE[a]+grammar"]
    assert list(configuration_matrix({"grammar": grammar})) == ["none", "+grammar"]
    assert configuration_matrix({}) == {"none": None}
