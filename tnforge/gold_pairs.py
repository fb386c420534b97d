"""Gold (class, before, after, count) pairs: from a corpus TSV file or a dataset directory's positive pairs.

What the grammar tools (coverage, lexicon learning) read; distinct pairs with their total counts, sorted.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path

GoldPair = tuple[str, str, str, int]


def read_corpus_pairs(path: str | Path) -> list[GoldPair]:
    """Distinct (class, before, after) of a corpus TSV (`CLASS<TAB>before<TAB>after`) with counts.

    ValueError (one line) for a file that is no such TSV: Parquet, not UTF-8 text, or without one such line."""
    import io

    from tnforge.filesystems import open_binary

    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    with open_binary(str(path)) as raw:
        head = raw.read(4)
    if head == b"PAR1":
        raise ValueError(f"{path}: a Parquet file; give the dataset directory it belongs to, or a corpus TSV file")
    with open_binary(str(path)) as raw:
        try:
            with io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle:
                for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                    if len(row) != 3 or row[0] == "<eos>":
                        continue
                    counts[(row[0], row[1], row[2])] += 1
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start}): give a corpus TSV "
                             "file or a dataset directory") from error
    if not counts:
        raise ValueError(f"{path}: no CLASS<TAB>before<TAB>after line: give a corpus TSV file or a dataset directory")
    return [(cls, before, after, n) for (cls, before, after), n in sorted(counts.items())]


def read_dataset_pairs(root: str | Path) -> list[GoldPair]:
    """Distinct (class, before, after) of a dataset directory's positive pairs, counts summed over splits.

    DatasetError for a folder that is no complete dataset directory, FileNotFoundError for one without positive
    pairs."""
    from tnforge.datasets import dataset_files, read_dataset
    from tnforge.manifest import require_dataset

    require_dataset(root)  # an empty folder, a model run, an unfinished build: said as such
    if not dataset_files(root, "positive_pairs"):
        raise FileNotFoundError(f"{root}: no positives/*/*.parquet (is it a dataset built by `tnforge build`?)")
    table = read_dataset(root, "positive_pairs", columns=["class", "before", "after", "count"])
    columns = [table.column(name).to_pylist() for name in ("class", "before", "after", "count")]
    merged: dict[tuple[str, str, str], int] = {}
    for cls, before, after, count in zip(*columns, strict=True):
        merged[(cls, before, after)] = merged.get((cls, before, after), 0) + count
    return [(cls, before, after, count) for (cls, before, after), count in sorted(merged.items())]


def read_gold_pairs(source: str | Path, classes: Collection[str] = ()) -> list[GoldPair]:
    """The gold pairs of a corpus TSV file or a dataset directory (only `classes`, when given).

    ValueError when `source` is neither; FileNotFoundError for a directory without positive pairs."""
    from tnforge.filesystems import is_file, is_folder

    if is_file(source):
        pairs = read_corpus_pairs(source)
    elif is_folder(source):
        pairs = read_dataset_pairs(source)
    else:
        raise ValueError(f"{source}: neither a dataset directory nor a corpus TSV file")
    return [p for p in pairs if p[0] in classes] if classes else pairs
