"""The negatives pipeline's inputs: read once, written to scratch, and read back by each work unit by file.

Each input file (a positive-pairs file, an examples file's distinct trivial tokens, a hypotheses file) is read
by one step (`ReadInputs`); its rows are sorted by H(before) (H = `tnforge.hashing.stable_hash64`) and written
to scratch as an Arrow file in record batches (about `BATCHES_PER_FILE` per file), the first hash of each batch
in the file's metadata. Only the file's path and its count of distinct inputs move on (`InputFile`), never its
rows. A work unit owns a range of H(before) (`unit_bounds`), so it reads from each such file just the batches
that overlap its range (memory-mapped locally, by byte ranges on gs://) and keeps the rows inside it: in all,
every row is read about once whatever the unit count, and a unit holds only its own rows.

The same step builds the context, in parts (each split's suffix table, and its pools and vocabularies:
`negative_context.build_context_part`, each from that split's positive files alone), as tasks among the files:
the parts are made at the same time on different workers and while the other files are read, not in a stage of
their own that every unit waits for; `negative_context.assemble_context` puts them together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.collector import gc_paused, release_memory
from tnforge.datasets import dataset_files
from tnforge.filesystems import is_remote, join, open_seekable, read_parquet, write_atomically
from tnforge.generators.negative_context import CONTEXT_PARTS, build_context_part, split_rows
from tnforge.generators.pair_keys import column_hashes
from tnforge.generators.topk import assign_splits, read_hypotheses
from tnforge.pipelines.build_steps import count_pairs, pair_keys
from tnforge.pipelines.negative_units import POSITIVE_COLUMNS, Piece, unit_range

#: Record batches of a scratch input file: about BATCHES_PER_FILE of them, of MIN_BATCH_ROWS..BATCH_ROWS rows.
#: A unit reads the batches overlapping its range, so it reads at most two batches per file beyond its own rows:
#: with batches of 1/512 of a file, the units' overread in all is at most units / 256 times the file.
BATCH_ROWS = 16_384
MIN_BATCH_ROWS = 256
BATCHES_PER_FILE = 512
#: The sorted H(before) column of a scratch input file (dropped when a unit reads its rows).
HASH = "_input_hash"
#: Schema metadata of a scratch input file: the first H(before) of each record batch, comma-separated.
FIRST_HASHES = b"tnforge.first_hashes"
#: Tag of `ReadInputs`' second output, the context.
CONTEXT = "context"


class InputFile(NamedTuple):
    """One input file read: its rows' scratch file (None when it has none) and its distinct inputs."""

    kind: str  # "positives" (positive pairs, trivial tokens) or "hypotheses"
    path: str | None
    inputs: int  # distinct `before` values (0 for hypotheses: they add no input)


def input_tasks(root: str, trivial: bool, topk_from: str | None) -> list[tuple[str, str]]:
    """(kind, path) of every input file to read, and (CONTEXT, "split part") for each part of each split's
    context. The local runner deals the tasks out to its workers round-robin in this order, so the longest come
    first and apart: the first split's (train's) two context parts, then the files, then the other splits'
    parts."""
    splits = [split for split in schemas.SPLITS if dataset_files(root, "positive_pairs", split)]
    contexts = [(CONTEXT, f"{split} {part}") for split in splits for part in CONTEXT_PARTS]
    tasks = contexts[:len(CONTEXT_PARTS)]
    if trivial:
        tasks += [("examples", str(path)) for path in dataset_files(root, "examples")]
    tasks += [("positives", str(path)) for path in dataset_files(root, "positive_pairs")]
    if topk_from is not None:
        tasks.append(("hypotheses", str(topk_from)))
    return tasks + contexts[len(CONTEXT_PARTS):]


def context_part(root: str, task: str, seed: int) -> Iterator[tuple[str, str, dict]]:
    """(split, part, fields) of one context task ("split part"), from that split's positive files only (none
    when the split has no rows)."""
    split, part = task.split(" ")
    tables = [read_parquet(p, columns=POSITIVE_COLUMNS) for p in dataset_files(root, "positive_pairs", split)]
    table = split_rows(tables, split)
    if table is not None:
        yield split, part, build_context_part(split, part, table, seed)


def read_positive_file(path: str) -> Iterator[Piece]:
    """("positives", rows) of one positive-pairs file."""
    yield "positives", read_parquet(path, columns=POSITIVE_COLUMNS)


def read_trivial_file(path: str) -> Iterator[Piece]:
    """("positives", rows): the distinct trivial (split, class, before, after) of one examples file
    (originals only), keyed like positive pairs."""
    table = read_parquet(path, columns=["split", "class", "before", "after", "trivial", "copy"])
    table = table.filter(pc.and_(table.column("trivial"), pc.equal(table.column("copy"), 0)))
    if table.num_rows:
        table = count_pairs(table.select(["split", "class", "before", "after"]))
        table = table.append_column("key", pa.array(pair_keys(table), pa.uint64())).select(POSITIVE_COLUMNS)
    release_memory()  # the examples file read is far larger than its distinct trivial tokens
    if table.num_rows:
        yield "positives", table


def read_hypothesis_file(path: str, root: str) -> Iterator[Piece]:
    """("hypotheses", rows) of a hypotheses file, each row with its example's split."""
    yield "hypotheses", assign_splits(read_hypotheses(path), root)


def spill_input(scratch: str, kind: str, source: str, table: pa.Table) -> str:
    """Write a table's rows sorted by H(before), in batches with their first hashes, under scratch; return the
    path (named after the source file, so a retried step writes the same file)."""
    hashes = column_hashes(table.column("before"))
    order = np.argsort(hashes, kind="stable")
    hashes = hashes[order]
    table = table.take(order).append_column(HASH, pa.array(hashes, pa.uint64())).combine_chunks()
    rows = min(BATCH_ROWS, max(MIN_BATCH_ROWS, -(-len(hashes) // BATCHES_PER_FILE)))
    firsts = ",".join(map(str, hashes[::rows].tolist())).encode()
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), FIRST_HASHES: firsts})
    name = hashlib.blake2b(source.encode("utf-8"), digest_size=10).hexdigest()
    path = join(scratch, f"{kind}-{name}.arrow")
    with write_atomically(path) as handle, pa.ipc.new_file(handle, table.schema) as writer:
        writer.write_table(table, max_chunksize=rows)
    return path


def _rows_in_range(reader: pa.ipc.RecordBatchFileReader, low: int, high: int | None) -> pa.Table:
    """The rows of an open scratch input file with low <= H(before) < high (None: no upper end)."""
    listed = reader.schema.metadata[FIRST_HASHES]
    firsts = np.array(listed.split(b",") if listed else [], dtype=np.uint64)
    # Batch i holds hashes in [firsts[i], firsts[i + 1]]: equal hashes may straddle a boundary.
    start = max(int(np.searchsorted(firsts, np.uint64(low), side="left")) - 1, 0)
    stop = len(firsts) if high is None else int(np.searchsorted(firsts, np.uint64(high), side="left"))
    batches = [reader.get_batch(i) for i in range(start, stop)]
    table = pa.Table.from_batches(batches, reader.schema)  # memory-mapped batches: not copied
    hashes = table.column(HASH).to_numpy()  # only the hashes are gathered
    first = int(np.searchsorted(hashes, np.uint64(low), side="left"))
    last = len(hashes) if high is None else int(np.searchsorted(hashes, np.uint64(high), side="left"))
    return table.slice(first, last - first).drop_columns([HASH]).replace_schema_metadata(None)


def read_unit_rows(path: str, low: int, high: int | None) -> pa.Table:
    """The rows of scratch input file `path` with low <= H(before) < high, reading only the batches needed."""
    if not is_remote(path):
        return _rows_in_range(pa.ipc.open_file(pa.memory_map(path)), low, high)
    with open_seekable(path) as handle:  # remote: the footer and the needed batches, by byte ranges
        return _rows_in_range(pa.ipc.open_file(handle), low, high)


def unit_pieces(unit: int, files: Sequence[InputFile], units: int) -> tuple[int, list[Piece]]:
    """(unit, its pieces): the rows of every input file whose H(before) falls in the unit's range."""
    low, high = unit_range(unit, units)
    pieces = []
    for file in sorted((f for f in files if f.path is not None), key=lambda f: (f.kind, f.path)):
        table = read_unit_rows(file.path, low, high)
        if table.num_rows:
            # In input order (the files are sorted by hash): a chunk's inputs are then made from rows, and
            # into objects, that lie together in memory (≈ 15 % less CPU for the unit than in hash order).
            pieces.append((file.kind, table.take(pc.sort_indices(table, [("before", "ascending")]))))
    return unit, pieces


class ReadInputs(beam.DoFn):
    """(kind, path) → an `InputFile` (the rows written to scratch); a context task → (split, part, fields) of
    the context, tagged CONTEXT."""

    def __init__(self, root: str, scratch: str, seed: int) -> None:
        self._root = root
        self._scratch = scratch
        self._seed = seed

    def process(self, task: tuple[str, str]) -> Iterator[InputFile | beam.pvalue.TaggedOutput]:
        kind, path = task
        with gc_paused():
            if kind == CONTEXT:
                for found in context_part(self._root, path, self._seed):
                    yield beam.pvalue.TaggedOutput(CONTEXT, found)
                return
            if kind == "positives":
                pieces = list(read_positive_file(path))
            elif kind == "examples":
                pieces = list(read_trivial_file(path))
            else:
                pieces = list(read_hypothesis_file(path, self._root))
        for found, table in pieces:
            inputs = int(pc.count_distinct(table.column("before")).as_py()) if found == "positives" else 0
            yield InputFile(found, spill_input(self._scratch, found, path, table) if table.num_rows else None, inputs)
