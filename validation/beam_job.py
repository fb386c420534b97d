"""Validation as a Beam pipeline (`tnforge validate DIR -- --runner=…`): the files are the elements; each
is validated by `shards.validate_shard` on a worker, the pieces of the dataset-wide checks are grouped by
key-hash partition (GroupByKey) and checked by `groups.validate_group`, and every partial result is
combined into one, written under the results folder for the driver to read.
"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam

from tnforge.filesystems import join, open_binary, remove, write_bytes
from tnforge.validation.combine import Partial
from tnforge.validation.engine import Engine
from tnforge.validation.groups import combine_pieces, validate_group
from tnforge.validation.shards import Plan, Unit, validate_shard
from tnforge.worker_console import quiet_worker_tracebacks

quiet_worker_tracebacks()  # in Beam's worker processes only: the driver reports failures, once


class _WithEngine(beam.DoFn):
    """A DoFn holding the plan, and one GX engine per worker (made in `setup`, never per element)."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._engine: Engine | None = None

    def setup(self) -> None:
        from tnforge.progress import quiet_library_logs

        self._quiet = quiet_library_logs()
        self._quiet.__enter__()
        self._engine = Engine(self._plan.params)


class _ValidateShards(_WithEngine):
    def process(self, unit: Unit) -> Iterator[Any]:
        partial, pieces = validate_shard(self._engine, self._plan, unit)
        yield partial
        for key, table in pieces:
            yield beam.pvalue.TaggedOutput("pieces", (key, table))


class _ValidateGroups(_WithEngine):
    def process(self, element: tuple[tuple[str, str, int], Iterable[Any]]) -> Iterator[Partial]:
        key, tables = element
        assert self._engine is not None
        yield validate_group(self._engine, self._plan, key, combine_pieces(tables))


class _Merge(beam.CombineFn):
    """Partials added up (`Partial.merge` is associative and commutative)."""

    def create_accumulator(self) -> Partial:
        return Partial()

    def add_input(self, accumulator: Partial, element: Partial) -> Partial:
        return accumulator.merge(element)

    def merge_accumulators(self, accumulators: Iterable[Partial]) -> Partial:
        merged = Partial()
        for accumulator in accumulators:
            merged.merge(accumulator)
        return merged

    def extract_output(self, accumulator: Partial) -> Partial:
        return accumulator


def _write(partial: Partial, path: str) -> None:
    write_bytes(path, pickle.dumps(partial))


def run_pipeline(plan: Plan, units: Sequence[Unit], pipeline_args: Sequence[str], scratch: str) -> Partial:
    """Validate `units` on the runner the Beam options name; the combined partial (read from `scratch`)."""
    from tnforge.pipelines.runner import make_pipeline, pipeline_options, quiet_worker_errors, require_shared

    options = pipeline_options(pipeline_args)
    require_shared(options, {"dataset directory": plan.root})
    path = join(scratch, f".validation-{uuid.uuid4().hex[:12]}.pickle")
    with quiet_worker_errors():
        pipeline = make_pipeline(options)
        files = pipeline | "Files" >> beam.Create(list(units)) | "Spread" >> beam.Reshuffle()
        shards = files | "ValidateShards" >> beam.ParDo(_ValidateShards(plan)).with_outputs("pieces", main="partial")
        groups = (shards.pieces | "ByPartition" >> beam.GroupByKey()
                  | "ValidateGroups" >> beam.ParDo(_ValidateGroups(plan)))
        _ = ((shards.partial, groups) | "All" >> beam.Flatten() | "Combine" >> beam.CombineGlobally(_Merge())
             | "Write" >> beam.Map(_write, path))
        pipeline.run().wait_until_finish()
    try:
        with open_binary(path) as handle:
            return pickle.loads(handle.read())
    finally:
        remove(path)
