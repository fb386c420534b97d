"""Gold pairs for the grammar tools: from a corpus TSV, from a dataset's positive pairs, and the errors."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tnforge.datasets import dataset_path, write_sharded
from tnforge.gold_pairs import read_corpus_pairs, read_dataset_pairs, read_gold_pairs
from tnforge.hashing import stable_hash64
from tnforge.manifest import mark_complete, write_manifest
from tnforge.schemas import POSITIVE_PAIRS


def _write_positive_pairs(root, rows) -> None:
    for split in ("train", "dev"):
        part = [r for r in rows if r[0] == split]
        table = pa.table({
            "key": pa.array([stable_hash64(*r[:4]) for r in part], pa.uint64()),
            "split": [r[0] for r in part], "class": [r[1] for r in part], "before": [r[2] for r in part],
            "after": [r[3] for r in part], "count": [r[4] for r in part],
        })
        write_sharded(table, dataset_path(root, "positive_pairs", split), POSITIVE_PAIRS)
    write_manifest(root, mark_complete({}))


def test_corpus_tsv_pairs_are_distinct_with_counts(tmp_path):
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("CARDINAL\t3\tthree\nPLAIN\tthe\t<self>\n<eos>\t<eos>\nCARDINAL\t3\tthree\nbad line\n",
                      encoding="utf-8")
    expected = [("CARDINAL", "3", "three", 2), ("PLAIN", "the", "<self>", 1)]
    assert read_corpus_pairs(corpus) == expected
    assert read_gold_pairs(str(corpus)) == expected
    assert read_gold_pairs(corpus, classes=("PLAIN",)) == [("PLAIN", "the", "<self>", 1)]


def test_dataset_pairs_are_summed_over_splits(tmp_path):
    _write_positive_pairs(tmp_path, [("train", "MONEY", "$5", "five dollars", 3), ("dev", "MONEY", "$5", "five dollars", 1),
                                     ("dev", "DATE", "2016", "twenty sixteen", 2)])
    expected = [("DATE", "2016", "twenty sixteen", 2), ("MONEY", "$5", "five dollars", 4)]
    assert read_dataset_pairs(tmp_path) == expected
    assert read_gold_pairs(tmp_path, classes=("MONEY",)) == expected[1:]


def test_errors_name_the_source(tmp_path):
    with pytest.raises(ValueError, match="neither a dataset directory nor a corpus TSV file"):
        read_gold_pairs(tmp_path / "nowhere")
    with pytest.raises(ValueError, match=r"not a dataset directory \(an empty folder\)"):
        read_gold_pairs(tmp_path)
    write_manifest(tmp_path, mark_complete({}))
    with pytest.raises(FileNotFoundError, match="no positives/"):
        read_gold_pairs(tmp_path)
    (tmp_path / "part.parquet").write_bytes(b"PAR1")
    with pytest.raises(ValueError, match="part.parquet: a Parquet file; give the dataset directory"):
        read_gold_pairs(tmp_path / "part.parquet")
    (tmp_path / "notes.txt").write_text("no tabs here\n")
    with pytest.raises(ValueError, match=r"notes.txt: no CLASS<TAB>before<TAB>after line"):
        read_gold_pairs(tmp_path / "notes.txt")
    (tmp_path / "latin1.tsv").write_bytes("PLAIN\tcaf\xe9\t<self>\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin1.tsv: not UTF-8 text"):
        read_gold_pairs(tmp_path / "latin1.tsv")
