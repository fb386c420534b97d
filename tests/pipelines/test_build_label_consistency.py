"""No (token, reading) is both a positive and a negative anywhere in a dataset (the dual encoders see no
class): the negatives never emit one, and validation flags one."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from tests.support.corpus_files import write_corpus
from tnforge import datasets
from tnforge.cli import cli
from tnforge.generators.input_negatives import PairRow
from tnforge.generators.pair_tables import pairs_table
from tnforge.validation import frames


def both_labels(root: Path, name: str, column: str) -> pd.DataFrame:
    """The (before, column) pairs of a dataset that have label 0 and label 1 (in any split and class)."""
    table = datasets.read_dataset(root, name, columns=["before", column, "label"]).to_pandas()
    labels = table.groupby(["before", column])["label"].nunique()
    return labels[labels > 1].reset_index()


def build(inputs: list[Path], out: Path, *options: str) -> Path:
    result = CliRunner().invoke(cli, ["build", *map(str, inputs), "--out", str(out), "--negatives", "synthetic,random",
                                      *options])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return out


def test_feet_read_verbatim_and_as_written_is_never_both(tmp_path: Path) -> None:
    verbatim = [[("PLAIN", "Spell", "<self>"), ("VERBATIM", "feet", "f e e t"), ("PLAIN", "now", "<self>"),
                 ("CARDINAL", str(100 + i), "one hundred"), ("PUNCT", ".", "sil")] for i in range(30)]
    plain = [[("PLAIN", "It", "<self>"), ("PLAIN", "is", "<self>"), ("CARDINAL", str(2 + i), "two"),
              ("PLAIN", "feet", "<self>"), ("PUNCT", ".", "sil")] for i in range(30)]
    # Standard split: the VERBATIM reading only in train/dev, the PLAIN one only in test.
    train = write_corpus(tmp_path / "output-00000-of-00100", verbatim)
    test = write_corpus(tmp_path / "output-00099-of-00100", plain)
    root = build([train, test], tmp_path / "ds", "--ratio", "5", "--trivial-fraction", "0.5")
    pairs = datasets.read_dataset(root, "pairs").to_pandas()
    feet = pairs[pairs["before"] == "feet"]
    assert {("VERBATIM", "f e e t", 1), ("PLAIN", "<self>", 1)} <= set(
        zip(feet["class"], feet["reading"], feet["label"], strict=True))
    assert set(feet.loc[feet["label"] == 0, "class"]) == {"PLAIN", "VERBATIM"}  # both classes got negatives
    assert both_labels(root, "pairs", "reading").empty
    assert both_labels(root, "vocab_pairs", "word").empty


def test_the_shared_sample_has_no_pair_with_both_labels(shared_tsv: Path, tmp_path: Path) -> None:
    root = build([shared_tsv], tmp_path / "ds", "--ratio", "3")
    assert datasets.read_dataset(root, "pairs", columns=["label"]).num_rows > 10_000
    assert both_labels(root, "pairs", "reading").empty
    assert both_labels(root, "vocab_pairs", "word").empty


def test_a_negative_licensed_for_another_class_is_dropped() -> None:
    rows = [PairRow("train", "CARDINAL", "12", "twelve", 1, "", "", 1),
            PairRow("train", "CARDINAL", "12", "one two", 0, "synthetic", "edit", 1),
            PairRow("dev", "DATE", "12", "twelfth", 1, "", "", 2),
            PairRow("dev", "DATE", "12", "one two", 0, "synthetic", "edit", 2),
            PairRow("dev", "DATE", "12", "two", 0, "random", "global", 2)]

    def judge(items: list[tuple[str, str, str]]) -> list[bool]:  # "one two" is licensed as a CARDINAL only
        return [(reading, cls) == ("one two", "CARDINAL") for _, reading, cls in items]

    table = pairs_table(rows, "test", judge).to_pandas()
    assert list(zip(table["class"], table["reading"], table["label"], table["licensed"], strict=True)) == [
        ("CARDINAL", "twelve", 1, None), ("CARDINAL", "one two", 1, True), ("DATE", "twelfth", 1, None),
        ("DATE", "two", 0, False)]
    assert pairs_table(rows, "test").num_rows == len(rows)  # without a grammar nothing is accepted twice


def test_validation_flags_a_pair_with_both_labels_in_any_class() -> None:
    pairs = pd.DataFrame({"before": ["12", "12", "feet", "feet"], "reading": ["one two", "one two", "<self>", "f e e t"],
                          "label": [1, 0, 1, 0], "negative_type": ["synthetic", "synthetic", "", "synthetic"],
                          "class": ["CARDINAL", "DATE", "PLAIN", "PLAIN"]})
    positives = pd.DataFrame({"before": ["feet"], "after": ["f e e t"]})  # a VERBATIM positive pair
    assert frames.equals_positive(pairs, None).tolist() == [False, True, False, False]
    assert frames.equals_positive(pairs, positives).tolist() == [False, True, False, True]


def test_the_bundled_build_has_no_pair_with_both_labels(bundled_build: Path) -> None:
    assert both_labels(bundled_build, "pairs", "reading").empty
    assert both_labels(bundled_build, "vocab_pairs", "word").empty
