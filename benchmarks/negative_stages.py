"""Benchmark: CPU seconds per stage of one negatives work unit (`GenerateNegatives`), without Beam.

Reads a dataset directory's positive pairs (and trivial tokens), builds the context, takes one work unit
of the run's unit count and times, chunk by chunk with `time.process_time`: candidate generation (the
input → pair rows/vocabulary groups step), the pairs table (with the grammar when available; the grammar's
own share is also given) and the vocabulary table.

    python benchmarks/negative_stages.py /tmp/negspeed-div10m/dataset [--unit 0] [--no-grammar]
"""

from __future__ import annotations

import argparse
import os
import time

from tnforge.collector import gc_paused
from tnforge.datasets import dataset_files
from tnforge.generators.input_negatives import Settings
from tnforge.generators.licensing import Licenser, resolve_grammar
from tnforge.generators.negative_context import build_context
from tnforge.pipelines.negative_inputs import read_positive_file, read_trivial_file
from tnforge.pipelines.negative_units import (
    CHUNK_INPUTS,
    _positives,
    assign_units,
    chunk_candidates,
    distinct_inputs,
    work_units,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset")
    parser.add_argument("--unit", type=int, default=0)
    parser.add_argument("--ratio", type=float, default=10.0)
    parser.add_argument("--no-grammar", action="store_true")
    args = parser.parse_args()

    from tnforge.generators.input_negatives import GENERATOR_VERSION
    from tnforge.generators.pair_tables import columns_table
    from tnforge.generators.vocab_pairs import vocab_table

    pieces = [p for f in dataset_files(args.dataset, "positive_pairs") for p in read_positive_file(str(f))]
    contexts = build_context([t for _, t in pieces], 0)
    pieces += [p for f in dataset_files(args.dataset, "examples") for p in read_trivial_file(str(f))]
    units = work_units(sum(map(distinct_inputs, pieces)))
    mine = [piece for p in pieces for unit, piece in assign_units(p, units) if unit == args.unit]
    settings = Settings(frozenset({"synthetic", "random"}), args.ratio, 100, 0, trivial=True)
    judge = Licenser() if resolve_grammar(None if not args.no_grammar else False) else None
    if judge is not None:  # load the grammar before the clock starts
        judge([("1", "one", "CARDINAL")])
        judge.forget()
    times = {"positives": 0.0, "candidates": 0.0, "pairs table": 0.0, "  grammar": 0.0, "vocab table": 0.0}
    if judge is not None:
        judge_columns = judge.columns

        def timed(*columns):
            begin = time.process_time()
            try:
                return judge_columns(*columns)
            finally:
                times["  grammar"] += time.process_time() - begin

        judge.columns = timed
    rows = 0
    start = time.process_time()
    with gc_paused():
        by_input = _positives([t for _, t in mine])
    times["positives"] = time.process_time() - start
    inputs = sorted(by_input)
    for first in range(0, len(inputs), CHUNK_INPUTS):
        with gc_paused():
            t0 = time.process_time()
            pair_rows, groups = chunk_candidates(inputs[first:first + CHUNK_INPUTS], by_input, {}, contexts, settings)
            t1 = time.process_time()
            table = columns_table(pair_rows, GENERATOR_VERSION, judge)
            t2 = time.process_time()
            vocab_table(groups, contexts, GENERATOR_VERSION)
            t3 = time.process_time()
        if judge is not None:
            judge.forget()
        rows += table.num_rows
        times["candidates"] += t1 - t0
        times["pairs table"] += t2 - t1
        times["vocab table"] += t3 - t2
    print(f"unit {args.unit} of {units}: {len(inputs)} inputs, {rows} pair rows, grammar {judge is not None}, "
          f"load {os.getloadavg()[0]:.2f}")
    for stage, seconds in times.items():
        print(f"  {stage:12s} {seconds:6.2f} s CPU")


if __name__ == "__main__":
    main()
