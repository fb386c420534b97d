"""Work units of the negatives pipeline: inputs spread over a number of units that grows with the data.

An input (`before`) goes to the unit whose range of H(before) holds it (H = `tnforge.hashing.stable_hash64`;
`unit_bounds`: units split the 64-bit range evenly), so all its positives (every split) and hypotheses meet
in one unit; a unit reads its rows itself from the inputs' scratch files (`negative_inputs`). The unit count comes from the data: one unit per
`INPUTS_PER_UNIT` distinct inputs (counted per file in one combined pass, a small side input), so a large
corpus gives many bounded work units and a cluster can use as many workers. A unit is processed in chunks
of `CHUNK_INPUTS` inputs, each chunk's tables yielded as soon as they are made (memory stays bounded).

Every input's rows depend on the input and the (global) context only and the writer sorts each shard by a
total order, so the files are byte-identical for any unit count, chunk size and worker count.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from apache_beam.metrics import Metrics

from tnforge.collector import gc_paused, release_memory
from tnforge.datasets import by_split
from tnforge.generators.input_negatives import GENERATOR_VERSION, Positive, Settings, chunk_columns
from tnforge.generators.licensing import Licenser
from tnforge.generators.pair_keys import column_hashes
from tnforge.generators.pair_tables import columns_table
from tnforge.generators.topk import group_by_before
from tnforge.generators.vocab_pairs import vocab_tables

#: Distinct inputs per work unit (an upper bound: inputs are counted per file, so one seen in several counts
#: several times): units = max(1, ceil(inputs / INPUTS_PER_UNIT)).
INPUTS_PER_UNIT = 50_000
#: Inputs generated, judged and turned into tables at a time inside a unit (bounds a worker's memory).
CHUNK_INPUTS = 4_000
POSITIVE_COLUMNS = ["key", "split", "class", "before", "after"]
#: Namespace of the pipeline's counters: "units" (work units with inputs) and "inputs" (distinct inputs).
METRICS = "tnforge.negatives"

#: ("positives" | "hypotheses", rows): what the readers emit.
Piece = tuple[str, pa.Table]


def work_units(inputs: int, override: int | None = None) -> int:
    """The number of work units for `inputs` distinct inputs (`override`, when given, wins)."""
    if override:
        return int(override)
    return max(1, math.ceil(inputs / INPUTS_PER_UNIT))


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_workers(root: str, units: int | None, pipeline_args: Sequence[str] = ()) -> int:
    """Local worker processes for `--workers 0` (the CLI's default): one per expected work unit, at most the
    usable cores; 1 (in-process, no start-up of worker processes) for a single unit, and when the Beam
    options choose another runner or their own `direct_num_workers`. Units are estimated from the positive
    files' row counts (Parquet footers; an upper bound of the distinct inputs). The files are the same bytes
    for any worker count."""
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions

    from tnforge.datasets import dataset_files
    from tnforge.filesystems import parquet_file
    from tnforge.pipelines.runner import is_local_runner

    runner = PipelineOptions(list(pipeline_args)).view_as(StandardOptions).runner
    if (runner is not None and not is_local_runner(runner)) or any(
            a.startswith("--direct_num_workers") for a in pipeline_args):
        return 1
    if not units:
        rows = sum(parquet_file(path).metadata.num_rows for path in dataset_files(root, "positive_pairs"))
        units = work_units(rows)
    return max(1, min(usable_cores(), units))


def distinct_inputs(piece: Piece) -> int:
    """Distinct inputs of one positives piece (0 for hypotheses: they add no input)."""
    kind, table = piece
    return int(pc.count_distinct(table.column("before")).as_py()) if kind == "positives" and table.num_rows else 0


def unit_bounds(units: int) -> np.ndarray:
    """The lowest H(before) of each unit: unit u holds the inputs with H in [bound(u), bound(u + 1)), a range
    (so a unit finds its rows in files sorted by H without reading the others)."""
    return np.array([-(-(unit << 64) // units) for unit in range(units)], dtype=np.uint64)


def unit_range(unit: int, units: int) -> tuple[int, int | None]:
    """(lowest H, highest H + 1 or None for the last unit) of a unit's inputs."""
    bounds = unit_bounds(units)
    return int(bounds[unit]), (int(bounds[unit + 1]) if unit + 1 < units else None)


def unit_of(befores: pa.Array | pa.ChunkedArray, units: int) -> np.ndarray:
    """The work unit of each input (the range its H(before) falls in), hashing each distinct input once."""
    return np.searchsorted(unit_bounds(units), column_hashes(befores), side="right").astype(np.int64) - 1


def assign_units(piece: Piece, units: int) -> Iterator[tuple[int, Piece]]:
    """(unit, rows of that unit) for each unit a piece's rows reach."""
    kind, table = piece
    if not table.num_rows:
        return
    if units == 1:
        yield 0, piece
        return
    index = unit_of(table.column("before"), units)
    for unit in np.unique(index).tolist():
        yield unit, (kind, table.filter(pa.array(index == unit)))


def _positives(tables: list[pa.Table]) -> dict[str, list[Positive]]:
    """before → its positives (every split), sorted by (split, class, after); duplicates (the same trivial
    pair from several example files) are one positive, with the key of the last of them. One stable Arrow sort
    by (before, split, class, after) instead of a dict per input (UTF-8 byte order is Python's string order)."""
    tables = [t.select(POSITIVE_COLUMNS) for t in tables if t.num_rows]
    if not tables:
        return {}
    rows = pa.concat_tables(tables, promote_options="permissive").combine_chunks()
    order = pc.sort_indices(rows, sort_keys=[(name, "ascending") for name in ("before", "split", "class", "after")])
    rows = rows.take(order)
    count = rows.num_rows
    last = np.ones(count, dtype=bool)  # the last row of each run of one (before, split, class, after)
    if count > 1:
        same = np.ones(count - 1, dtype=bool)
        for name in ("before", "split", "class", "after"):
            column = rows.column(name).combine_chunks()
            same &= pc.equal(column.slice(1), column.slice(0, count - 1)).to_numpy(zero_copy_only=False)
        last[:-1] = ~same
    if not last.all():
        rows = rows.filter(pa.array(last))
    by_input: dict[str, list[Positive]] = {}
    columns = [rows.column(c).to_pylist() for c in POSITIVE_COLUMNS]
    for key, split, cls, before, after in zip(*columns, strict=True):
        found = by_input.get(before)
        if found is None:
            by_input[before] = [Positive(split, cls, after, key)]
        else:
            found.append(Positive(split, cls, after, key))
    return by_input


def chunk_candidates(inputs: list[str], by_input: dict, hypotheses: dict, contexts: dict,
                     settings: Settings) -> tuple[pa.Table, list]:
    """Pair rows (as columns) and vocabulary groups of some inputs (their positives are taken out of `by_input`)."""
    return chunk_columns(inputs, {before: by_input.pop(before) for before in inputs}, hypotheses, contexts, settings)


class GenerateNegatives(beam.DoFn):
    """All pairs for the inputs of one work unit, as Arrow tables keyed by (dataset, split), chunk by chunk."""

    def __init__(self, settings: Settings, use_grammar: bool, chunk: int = CHUNK_INPUTS, release: bool = False) -> None:
        self.settings = settings
        self.use_grammar = use_grammar
        self.chunk = chunk
        self.release = release  # hand each unit's freed memory back (worker processes: their sum counts)
        self.judge: Licenser | None = None

    def setup(self) -> None:
        # The grammar (pynini) is imported here, on the worker, never at module import.
        self.judge = Licenser() if self.use_grammar else None

    def process(self, element: tuple[int, list[Piece]], contexts: dict) -> Iterator[Any]:
        _, pieces = element
        with gc_paused():  # a unit's positives are ~50k small tuples: no cyclic scans while they are made
            by_input = _positives([t for kind, t in pieces if kind == "positives"])
            hypotheses = group_by_before([t for kind, t in pieces if kind == "hypotheses"])
        if by_input:
            Metrics.counter(METRICS, "units").inc()
            Metrics.counter(METRICS, "inputs").inc(len(by_input))
        inputs = sorted(by_input)
        for start in range(0, len(inputs), self.chunk):
            with gc_paused():
                tables = self._chunk(inputs[start:start + self.chunk], by_input, hypotheses, contexts)
            for dataset, parts in tables.items():
                for split, part in parts:
                    yield (dataset, split), part
            del tables
        if self.release:  # the unit's tables are spilled by now: its peak need not stay resident
            release_memory()

    def _chunk(self, inputs: list[str], by_input: dict, hypotheses: dict,
               contexts: dict) -> dict[str, list[tuple[str, pa.Table]]]:
        """The pairs and vocabulary pairs of some inputs, split by split (their positives are taken out of
        `by_input`)."""
        pair_rows, vocab_groups = chunk_candidates(inputs, by_input, hypotheses, contexts, self.settings)
        tables = {
            "pairs": list(by_split(columns_table(pair_rows, GENERATOR_VERSION, self.judge))),
            "vocab_pairs": list(vocab_tables(vocab_groups, contexts, GENERATOR_VERSION)),
        }
        if self.judge is not None:
            self.judge.forget()  # a unit's inputs never come back: keep the grammar's cache bounded
        return tables


