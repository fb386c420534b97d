"""The negatives section's counts: per split and type (and class, and subtype) of the pairs and vocabulary pairs.

Each shard's writer counts the table it has just written (`tally_table`, through `WriteDataset(summarize=…)`),
so the counts are those of the files' own rows without reading 10 M rows back; `count_outputs` reads the files
themselves (file by file) and gives the same section.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from tnforge.datasets import dataset_files
from tnforge.filesystems import open_binary, read_parquet, write_text

#: The extra grouping columns of each dataset's counts.
BY = {"pairs": ["class", "negative_subtype", "licensed"], "vocab_pairs": []}

#: (dataset, split, type, *BY[dataset], rows): one group of a shard's counts.
Tally = tuple


def _columns(dataset: str) -> list[str]:
    return sorted({"split", "label", "negative_type", *BY[dataset]})


def tally_table(dataset: str, table: pa.Table) -> list[Tally]:
    """The groups of one table of `dataset` ("pairs" or "vocab_pairs") with their row counts."""
    by = BY[dataset]
    columns = _columns(dataset)
    found = []
    for row in table.select(columns).group_by(columns).aggregate([("label", "count")]).to_pylist():
        kind = "positive" if row["negative_type"] == "" and row["label"] == 1 else row["negative_type"]
        found.append((dataset, row["split"], kind, *(row[c] for c in by), row["label_count"]))
    return found


def summarize(tallies: Iterable[Tally]) -> dict[str, Any]:
    """The manifest's count entries from the groups of every shard."""
    counts: dict[str, dict[str, int]] = {}
    by_class: dict[str, dict[str, dict[str, int]]] = {}
    subtypes: dict[str, dict[str, int]] = {}
    vocab_counts: dict[str, dict[str, int]] = {}
    licensed = 0
    for dataset, split, kind, *rest in tallies:
        n = rest[-1]
        if dataset == "vocab_pairs":
            vocab_counts.setdefault(split, {})[kind] = vocab_counts.get(split, {}).get(kind, 0) + n
            continue
        cls, subtype, is_licensed = rest[:3]
        counts.setdefault(split, {})[kind] = counts.get(split, {}).get(kind, 0) + n
        cls_counts = by_class.setdefault(split, {}).setdefault(cls, {})
        cls_counts[kind] = cls_counts.get(kind, 0) + n
        if kind != "positive":
            name = f"{kind}:{subtype}" if subtype else kind
            subtypes.setdefault(split, {})[name] = subtypes.get(split, {}).get(name, 0) + n
        if is_licensed:
            licensed += n

    def ordered(mapping: dict) -> dict:
        return {k: ordered(v) if isinstance(v, dict) else v for k, v in sorted(mapping.items())}

    return {
        "counts": ordered(counts),
        "by_class": ordered(by_class),
        "subtypes": ordered(subtypes),
        "vocab_counts": ordered(vocab_counts),
        "licensed": licensed,
    }


def count_outputs(root: str) -> dict[str, Any]:
    """The count entries from the pairs and vocabulary pairs files of `root`, read file by file (one shard in
    memory at a time, string columns dictionary-encoded)."""
    tallies: list[Tally] = []
    for dataset in BY:
        columns = _columns(dataset)
        strings = [c for c in columns if c not in ("label", "licensed")]
        for path in dataset_files(root, dataset):
            table = read_parquet(path, columns=columns, read_dictionary=strings).unify_dictionaries()
            tallies += tally_table(dataset, table)
    return summarize(tallies)


def save_tallies(reports: Sequence[tuple[Any, list[Tally]]], path: str) -> None:
    """Write the writer's (report, tallies) of every shard as one JSON file (the driver reads it back)."""
    write_text(path, json.dumps([list(t) for _, tallies in reports for t in tallies]))


def load_tallies(path: str) -> list[Tally]:
    """The groups saved by `save_tallies`."""
    with open_binary(path) as handle:
        return [tuple(t) for t in json.loads(handle.read())]
