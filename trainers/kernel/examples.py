"""Streaming the `examples` Parquet into padded, length-bucketed tensor batches.

Rows are read record batch by record batch (never the whole dataset), gathered into a pool of a few
thousand examples, shuffled with a seeded generator, sorted by input length inside the pool and cut into
batches, whose order is shuffled again. Memory stays bounded by the pool size.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch

from tnforge.trainers.kernel.vocab import BOS, EOS, PAD, Vocabulary
from tnforge.trainers.training.runs import check_not_corpus

#: Readings with at least this many words are batched apart from the rest (see bucketed_batches).
LONG_READING = 16


def example_files(source: str | os.PathLike, split: str | None = None) -> list[Path] | list[str]:
    """Parquet files of examples: a dataset directory (its `examples/<split>`), a folder of Parquet files (in it
    or its sub-folders: `filesystems.parquet_files`), or one Parquet file, local (Paths) or remote (gs://… strings). Raises FileNotFoundError naming the path
    when nothing is found, ValueError for a corpus file (`check_not_corpus`)."""
    from tnforge.decode_units import example_files as files_of
    from tnforge.filesystems import check_path, is_file

    if is_file(check_path(source)):
        check_not_corpus(check_path(source))
    return files_of(source, split)


def iter_rows(
    files: Sequence[Path], columns: Sequence[str], batch_size: int = 8192, split: str | None = None,
    max_copies: int = 0,
) -> Iterator[pa.RecordBatch]:
    """Stream record batches of some columns; keep only rows of `split` when the files carry a split column,
    and with `max_copies` > 0 only rows whose up-sampling `copy` index is below it."""
    from tnforge.filesystems import parquet_file

    for path in files:
        parquet = parquet_file(path)
        names = parquet.schema_arrow.names
        if missing := [name for name in columns if name not in names]:
            raise ValueError(f"{path}: no column {', '.join(missing)} (it has {', '.join(names) or 'none'}): not an "
                             "examples file of a tnforge dataset")
        use_split = bool(split) and "split" in names
        use_copy = max_copies > 0 and "copy" in names
        wanted = list(dict.fromkeys(list(columns) + (["split"] if use_split else []) + (["copy"] if use_copy else [])))
        for batch in parquet.iter_batches(batch_size=batch_size, columns=wanted):
            if use_split:
                batch = batch.filter(pc.equal(batch.column("split"), split))
            if use_copy:
                batch = batch.filter(pc.less(batch.column("copy"), max_copies))
            if batch.num_rows:
                yield batch.select(list(columns))


def count_rows(files: Sequence[Path], split: str | None = None, max_copies: int = 0) -> int:
    """Rows `iter_rows` would stream: of `split` when the files carry a split column, with copy < max_copies
    when it is set (max_copies=1: originals only)."""
    if not max_copies and not split:
        from tnforge.filesystems import parquet_file

        return sum(parquet_file(f).metadata.num_rows for f in files)
    return sum(b.num_rows for b in iter_rows(files, ["input"], split=split, max_copies=max_copies))


def iter_texts(files: Sequence[Path], column: str, split: str | None = None, max_copies: int = 0) -> Iterator[str]:
    """Every value of one string column, streamed."""
    for batch in iter_rows(files, [column], split=split, max_copies=max_copies):
        yield from batch.column(0).to_pylist()


@dataclass
class Batch:
    """Padded tensors of one batch: source ids and lengths, decoder inputs/targets, and the row payload."""

    source: torch.Tensor  # [B, S] input ids
    source_lengths: torch.Tensor  # [B]
    target_in: torch.Tensor | None  # [B, T] BOS + reading ids
    target_out: torch.Tensor | None  # [B, T] reading ids + EOS
    rows: dict[str, list]  # the Parquet columns of the batch's rows, in batch order

    def __len__(self) -> int:
        return int(self.source.shape[0])

    def to(self, device: torch.device) -> Batch:
        def move(tensor: torch.Tensor | None) -> torch.Tensor | None:
            return None if tensor is None else tensor.to(device, non_blocking=True)

        return Batch(move(self.source), self.source_lengths, move(self.target_in), move(self.target_out),
                     self.rows)


def pad(sequences: Sequence[Sequence[int]], value: int = PAD) -> torch.Tensor:
    """A [len(sequences), max length] long tensor, right-padded."""
    width = max((len(s) for s in sequences), default=0)
    out = torch.full((len(sequences), max(width, 1)), value, dtype=torch.long)
    for i, seq in enumerate(sequences):
        if seq:
            out[i, : len(seq)] = torch.tensor(seq, dtype=torch.long)
    return out


def make_batch(
    rows: dict[str, list], input_vocab: Vocabulary, output_vocab: Vocabulary | None, max_input: int
) -> Batch:
    """Encode one batch of rows (needs `input`; `after` too when output_vocab is given)."""
    sources = [input_vocab.encode(text)[:max_input] or [PAD] for text in rows["input"]]
    lengths = torch.tensor([len(s) for s in sources], dtype=torch.long)
    target_in = target_out = None
    if output_vocab is not None:
        targets = [output_vocab.encode(text) for text in rows["after"]]
        target_in = pad([[BOS] + t for t in targets])
        target_out = pad([t + [EOS] for t in targets])
    return Batch(pad(sources), lengths, target_in, target_out, rows)


def _slice(rows: dict[str, list], order: np.ndarray) -> dict[str, list]:
    return {name: [values[i] for i in order] for name, values in rows.items()}


def pool_batches(pool: dict[str, list], input_vocab: Vocabulary, output_vocab: Vocabulary | None, batch_size: int,
                 rng: np.random.Generator, shuffle: bool = True, max_input: int = 256) -> list[Batch]:
    """The batches of one pool of rows (columns as lists): sorted by input length, with readings of
    LONG_READING words or more gathered at the end when targets are encoded; with `shuffle`, ties and the
    batch order drawn from `rng`."""
    count = len(pool["input"])
    if not count:
        return []
    lengths = np.fromiter((len(text) for text in pool["input"]), dtype=np.int64, count=count)
    order = rng.permutation(count) if shuffle else np.arange(count)
    if "after" in pool and output_vocab is not None:
        # Rare very long readings (a 289-word ELECTRONIC one in the sample) go to batches of their own:
        # one of them would make its whole batch run that many decoder steps.
        long = np.fromiter((text.count(" ") + 1 >= LONG_READING for text in pool["after"]), dtype=bool, count=count)
        order = order[np.lexsort((lengths[order], long[order]))]
    else:
        order = order[np.argsort(lengths[order], kind="stable")]
    chunks = [order[i: i + batch_size] for i in range(0, count, batch_size)]
    if shuffle:
        chunks = [chunks[i] for i in rng.permutation(len(chunks))]
    return [make_batch(_slice(pool, chunk), input_vocab, output_vocab, max_input) for chunk in chunks]


def bucketed_batches(
    files: Sequence[Path],
    input_vocab: Vocabulary,
    output_vocab: Vocabulary | None,
    batch_size: int,
    columns: Sequence[str] = ("input", "after"),
    split: str | None = None,
    shuffle: bool = False,
    seed: int = 0,
    pool_size: int = 8192,
    max_input: int = 256,
    max_copies: int = 0,
) -> Iterator[Batch]:
    """Length-bucketed batches streamed from Parquet files: sorted by input length within a pool, with
    readings of LONG_READING words or more gathered at the pool's end when targets are encoded.

    With `shuffle`, file order, pool contents and batch order are drawn from a numpy generator seeded by
    `seed` (pass seed + epoch for a new, reproducible order each epoch). Without it, batches keep the
    file order within each pool (sorted by length for speed) and every row appears exactly once.
    `max_copies` > 0 caps the build's up-sampling: rows with copy ≥ max_copies are skipped.
    """
    rng = np.random.default_rng(seed)
    files = list(files)
    if shuffle:
        files = [files[i] for i in rng.permutation(len(files))]
    columns = list(dict.fromkeys(columns))
    pool: dict[str, list] = {name: [] for name in columns}

    def flush() -> Iterator[Batch]:
        yield from pool_batches(pool, input_vocab, output_vocab, batch_size, rng, shuffle, max_input)
        for values in pool.values():
            values.clear()

    for record_batch in iter_rows(files, columns, split=split, max_copies=max_copies):
        for name in columns:
            pool[name].extend(record_batch.column(name).to_pylist())
        if len(pool["input"]) >= pool_size:
            yield from flush()
    yield from flush()
