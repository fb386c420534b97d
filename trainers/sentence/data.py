"""The sentence family's data: a build's `sentences` Parquet (tokens, classes, readings) as batches of whole
sentences — source pieces with their feature columns, target pieces with a `<sep>` between tokens' readings.

The source tensor is [N, S, 1 + F]: the piece id, then one id per feature (`features.feature_ids`); beam search
reads only its first dimension, so it travels through the decoding protocol as the `source` of any family."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from tnforge.trainers.kernel.vocab import BOS, EOS, PAD
from tnforge.trainers.sentence.features import feature_ids
from tnforge.trainers.sentence.pieces import SentencePieces

#: The columns training and dev evaluation read.
COLUMNS = ("tokens", "classes", "readings")


def sentence_files(root: str | os.PathLike, split: str) -> list[Path] | list[str]:
    """The `sentences` files of a split of a dataset directory; ValueError (one line) for a build without the
    token alignment (`readings`, sentences schema 3), FileNotFoundError when the directory has no sentences."""
    from tnforge.datasets import dataset_files, dataset_path
    from tnforge.filesystems import check_path, is_folder, parquet_file
    from tnforge.trainers.training.runs import check_not_corpus

    path = check_path(root)
    if not is_folder(path):
        check_not_corpus(path)
        raise FileNotFoundError(f"{path}: not a dataset directory (build one with `tnforge build`)")
    if not is_folder(dataset_path(path, "sentences")):
        raise FileNotFoundError(f"{path}: no sentences/ dataset (build it with `tnforge build`)")
    files = dataset_files(path, "sentences", split)
    for file in files[:1]:
        if "readings" not in parquet_file(file).schema_arrow.names:
            raise ValueError(f"{file}: sentences without the readings column (built by an older tnforge): "
                             "rebuild the dataset with `tnforge build --overwrite`")
    return files


def count_sentences(files: Sequence[Path | str]) -> int:
    from tnforge.filesystems import parquet_file

    return sum(parquet_file(f).metadata.num_rows for f in files)


@dataclass
class SentenceBatch:
    """Encoded sentences: source [N, S, 1 + F], lengths [N], teacher-forcing targets [N, T] (None when
    decoding), and the rows' columns (tokens, classes …) as lists."""

    source: torch.Tensor
    source_lengths: torch.Tensor
    target_in: torch.Tensor | None = None
    target_out: torch.Tensor | None = None
    rows: dict[str, list] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.source.shape[0])

    def to(self, device: torch.device) -> SentenceBatch:
        def move(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t.to(device, non_blocking=True)

        return SentenceBatch(move(self.source), move(self.source_lengths), move(self.target_in),
                             move(self.target_out), self.rows)


def encode_source(pieces: SentencePieces, features: Sequence[str], tokens: Sequence[str],
                  classes: Sequence[str | None]) -> np.ndarray:
    """One sentence's source: [pieces, 1 + F] (piece id, then each feature's id)."""
    token_pieces = pieces.encode_tokens(tokens)
    ids = [i for p in token_pieces for i in p]
    columns = [ids, *feature_ids(token_pieces, tokens, classes, features)]
    return np.asarray(columns, dtype=np.int64).T.reshape(len(ids), 1 + len(features))


def make_batch(rows: dict[str, list], pieces: SentencePieces, features: Sequence[str],
               with_target: bool = False) -> SentenceBatch:
    """A batch of sentence rows (`tokens`, `classes`; `readings` too with `with_target`)."""
    sources = [encode_source(pieces, features, t, c) for t, c in zip(rows["tokens"], rows["classes"], strict=True)]
    lengths = [len(s) for s in sources]
    source = np.zeros((len(sources), max(lengths, default=1), 1 + len(features)), dtype=np.int64)
    for i, s in enumerate(sources):
        source[i, : len(s)] = s
    batch = SentenceBatch(torch.from_numpy(source), torch.tensor(lengths, dtype=torch.long), rows=rows)
    if with_target:
        targets = [pieces.join_readings(r) for r in rows["readings"]]
        width = max(len(t) for t in targets) + 1
        target_in = torch.full((len(targets), width), PAD, dtype=torch.long)
        target_out = torch.full((len(targets), width), PAD, dtype=torch.long)
        for i, t in enumerate(targets):
            target_in[i, : len(t) + 1] = torch.tensor([BOS, *t])
            target_out[i, : len(t) + 1] = torch.tensor([*t, EOS])
        batch.target_in, batch.target_out = target_in, target_out
    return batch


def source_length(pieces: SentencePieces, tokens: Sequence[str]) -> int:
    return sum(len(p) for p in pieces.encode_tokens(tokens))


def pool_batches(rows: dict[str, list], pieces: SentencePieces, features: Sequence[str], batch_size: int,
                 rng: np.random.Generator, max_source: int) -> list[SentenceBatch]:
    """Training batches of a pool of rows: sentences longer than `max_source` pieces left out, the rest sorted
    by length into batches of `batch_size`, in a shuffled order."""
    lengths = [source_length(pieces, t) for t in rows["tokens"]]
    order = [i for i in np.argsort(lengths, kind="stable") if lengths[i] <= max_source]
    chunks = [order[s: s + batch_size] for s in range(0, len(order), batch_size)]
    made = []
    for index in rng.permutation(len(chunks)):
        chunk = chunks[int(index)]
        made.append(make_batch({name: [values[i] for i in chunk] for name, values in rows.items()}, pieces,
                               features, with_target=True))
    return made


def read_split(files: Sequence[Path | str], limit: int = 0) -> dict[str, list]:
    """The rows of sentences files (`COLUMNS`), in file order, at most `limit` (0: all)."""
    from tnforge.filesystems import read_parquet

    rows: dict[str, list] = {name: [] for name in COLUMNS}
    for file in files:
        table = read_parquet(file, columns=list(COLUMNS))
        for name in COLUMNS:
            rows[name].extend(table.column(name).to_pylist())
        if limit and len(rows["tokens"]) >= limit:
            break
    return {name: values[: limit or None] for name, values in rows.items()}


def iter_texts(files: Sequence[Path | str]) -> Iterator[str]:
    """The written and the spoken text of every sentence of `files` (what the pieces are trained on)."""
    from tnforge.filesystems import parquet_file

    for file in files:
        for batch in parquet_file(file).iter_batches(columns=["written", "spoken"]):
            for written, spoken in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
                yield written
                if spoken:
                    yield spoken
