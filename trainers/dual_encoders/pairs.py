"""Labelled (token, reading-or-word) pairs of one split, streamed from `pairs` / `vocab_pairs`, filtered by
negative type and thinned to a ratio by a stable hash of each row's key."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tnforge import datasets
from tnforge.hashing import unit_interval
from tnforge.trainers.dual_encoders.metrics import nontrivial_mask

#: Dataset and output column of each dual encoder kind.
SOURCES = {"sequence": ("pairs", "reading"), "vocabulary": ("vocab_pairs", "word")}


@dataclass
class PairRows:
    """Labelled pairs of one split in memory (columns as lists)."""

    befores: list[str]
    outputs: list[str]
    labels: list[int]
    types: list[str]
    classes: list[str]

    def __len__(self) -> int:
        return len(self.labels)


def load_pairs(root: str, kind: str, split: str, negatives: tuple[str, ...] = (), ratio: float | None = None,
               seed: int = 0, trivial: bool = True) -> PairRows:
    """Stream one split's pairs: keep positives, negatives of the chosen types, at most `ratio` per positive;
    without `trivial`, only the pairs that involve no trivial reading (`nontrivial_mask`)."""
    dataset, column = SOURCES[kind]
    columns = ["key", "class", "before", column, "label", "negative_type"]
    rows = PairRows([], [], [], [], [])
    keys: list[int] = []
    for batch in datasets.iter_batches(root, dataset, split, columns=columns):
        data = batch.to_pydict()
        for key, cls, before, output, label, kind_of in zip(data["key"], data["class"], data["before"], data[column],
                                                             data["label"], data["negative_type"], strict=True):
            if label == 0 and negatives and kind_of not in negatives:
                continue
            keys.append(key)
            rows.befores.append(before)
            rows.outputs.append(output)
            rows.labels.append(int(label))
            rows.types.append(kind_of or "positive")
            rows.classes.append(cls)
    if not trivial and rows.labels:
        keep = np.flatnonzero(nontrivial_mask(rows.befores, rows.outputs, rows.labels)).tolist()
        keys = [keys[i] for i in keep]
        rows = PairRows(*([values[i] for i in keep] for values in
                          (rows.befores, rows.outputs, rows.labels, rows.types, rows.classes)))
    if ratio is not None and rows.labels:
        positives = sum(rows.labels)
        negative_count = len(rows.labels) - positives
        if negative_count > ratio * positives:
            share = ratio * positives / negative_count
            draw = unit_interval(np.asarray(keys, dtype=np.uint64), seed=seed + 1)
            keep = [i for i, label in enumerate(rows.labels) if label == 1 or draw[i] < share]
            rows = PairRows(*([values[i] for i in keep] for values in
                              (rows.befores, rows.outputs, rows.labels, rows.types, rows.classes)))
    return rows
