"""The dataset build as a Beam pipeline: corpus files in, a dataset directory of sharded Parquet out.

Graph (elements are files, Arrow tables and small count objects — never one dict per token):

  files ─ Reshuffle ─ parse_file ─┬─ rejects ──────────────────────────────┐
          (Arrow cache per file)  ├─ stats ── merge ── plan ─┐ (side input)   │
                                  └─ (path, cache) ── build_file ─┬─ tables ──┴─ GroupByKey(dataset, split,
                                                                  │              shard) ── write_shard
                                                                  └─ counts, pairs ── GroupByKey(shard) ── write
  state (stats, plan, counts, written files) ── one JSON the driver turns into manifest.json
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.datasets import dataset_path, shard_name, shard_of, write_shard
from tnforge.filesystems import is_remote, open_arrow_file, open_binary, write_atomically
from tnforge.generators.sampling import SamplingPlan, TrainStats, make_plan
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_steps import (
    FileOutput,
    FileStats,
    SplitCounts,
    build_file,
    count_pairs,
    pair_keys,
    parse_file,
)
from tnforge.pipelines.runner import is_dry_run, make_pipeline, pipeline_options
from tnforge.progress import log

STATE_FILE = ".tnforge-build-state.json"
CACHE_DIR = ".tnforge-cache"


class _MergeStats(beam.CombineFn):
    """Merge per-file FileStats into global statistics."""

    def __init__(self, config: BuildConfig) -> None:
        self._options = config.sampling

    def create_accumulator(self) -> dict:
        return {"files": [], "train": TrainStats(), "splits": {s: SplitCounts() for s in schemas.SPLITS},
                "excluded": 0}

    def add_input(self, acc: dict, stats: FileStats) -> dict:
        report = stats.report
        acc["files"].append({
            "path": stats.path, "size": stats.size, "sha256": stats.sha256, "flavour": report.flavour,
            "records": report.records, "sentences": report.sentences, "bom": report.bom,
            "crlf_lines": report.crlf_lines, "rejects": dict(report.rejects),
        })
        acc["train"].merge(stats.train, self._options)
        for split, counts in stats.splits.items():
            acc["splits"][split].merge(counts)
        acc["excluded"] += stats.excluded
        return acc

    def merge_accumulators(self, accumulators: Iterable[dict]) -> dict:
        accumulators = list(accumulators)
        merged = accumulators[0]
        for acc in accumulators[1:]:
            merged["files"].extend(acc["files"])
            merged["train"].merge(acc["train"], self._options)
            for split, counts in acc["splits"].items():
                merged["splits"][split].merge(counts)
            merged["excluded"] += acc["excluded"]
        return merged

    def extract_output(self, acc: dict) -> dict:
        acc["files"].sort(key=lambda f: f["path"])
        return acc


class _MergeCounts(beam.CombineFn):
    """Merge the example counts of every file's FileOutput."""

    def create_accumulator(self) -> dict:
        return {s: SplitCounts() for s in schemas.SPLITS}

    def add_input(self, acc: dict, output: FileOutput) -> dict:
        for split, counts in output.splits.items():
            acc[split].merge(counts)
        return acc

    def merge_accumulators(self, accumulators: Iterable[dict]) -> dict:
        accumulators = list(accumulators)
        for acc in accumulators[1:]:
            for split, counts in acc.items():
                accumulators[0][split].merge(counts)
        return accumulators[0]

    def extract_output(self, acc: dict) -> dict:
        return acc


class _ParseFn(beam.DoFn):
    def __init__(self, config: BuildConfig, total: int) -> None:
        self._config = config
        self._total = total

    def process(self, item: tuple[int, str, int]):
        index, path, size = item
        start = time.monotonic()
        cache = cache_path(self._config.out, index)
        rejects = []
        for piece in parse_file(path, size, cache, self._config, index):
            if isinstance(piece, FileStats):
                log(f"pass 1/2 (read, split, count) · file {index + 1}/{self._total} · {os.path.basename(path)} · "
                    f"{piece.report.records:,} records · {time.monotonic() - start:.1f}s")
                yield piece
            else:
                rejects.append(piece)
        if rejects:
            key = ("rejects", "", 0)
            yield beam.pvalue.TaggedOutput("rejects", (key, save_piece(self._config.out, key, index, rejects)))


def cache_path(out: str, index: int) -> str:
    """Where pass 1 keeps the parsed tokens of input file `index`."""
    return os.path.join(out, CACHE_DIR, f"{index:06d}.arrow")


class _BuildFn(beam.DoFn):
    def __init__(self, config: BuildConfig, total: int, shards: int) -> None:
        self._config = config
        self._total = total
        self._shards = shards

    def process(self, item: tuple[str, str, int], plan: SamplingPlan):
        path, cache, index = item
        start = time.monotonic()
        rows = 0
        pieces: dict[tuple[str, str, int], list[pa.Table]] = {}
        for piece in build_file(path, cache, self._config, plan, self._shards):
            if isinstance(piece, FileOutput):
                pairs, piece.pairs = piece.pairs, None
                yield beam.pvalue.TaggedOutput("counts", piece)
                if pairs is not None and pairs.num_rows:
                    yield from _pair_pieces(pairs, self._shards)
            else:
                rows += piece[1].num_rows if piece[0][0] == "examples" else 0
                pieces.setdefault(piece[0], []).append(piece[1])
        for key in sorted(pieces):
            yield key, save_piece(self._config.out, key, index, pieces.pop(key))
        log(f"pass 2/2 (examples)           · {os.path.basename(path)} · {rows:,} examples · "
            f"{time.monotonic() - start:.1f}s")


def save_piece(out: str, key: tuple[str, str, int], index: int, tables: list[pa.Table]) -> str:
    """Write one input file's rows for one (dataset, split, shard) to a temporary Arrow file; return its path."""
    dataset, split, shard = key
    path = os.path.join(out, CACHE_DIR, "pieces", f"{dataset}-{split or 'all'}-{shard:05d}-{index:06d}.arrow")
    table = pa.concat_tables(tables)
    with write_atomically(path) as handle, pa.ipc.new_file(handle, table.schema) as writer:
        writer.write_table(table)
    return path


def _pair_pieces(pairs: pa.Table, shards: int):
    """Counted pairs of one file, keyed by (split, shard) of their stable key."""
    keys = pair_keys(pairs)
    pairs = pairs.append_column("key", pa.array(keys, pa.uint64()))
    index = shard_of(keys, shards)
    for shard in np.unique(index):
        part = pairs.filter(pa.array(index == shard))
        for split in sorted(set(part.column("split").to_pylist())):
            chunk = part.filter(pc.equal(part.column("split"), split))
            yield beam.pvalue.TaggedOutput("pairs", ((split, int(shard)), chunk))


def _read_piece(path: str) -> pa.Table:
    return open_arrow_file(path).read_all()


def _table_path(out: str, dataset: str, split: str, shard: int, shards: int) -> str:
    folder = dataset_path(out, dataset, split or None)
    return os.path.join(str(folder), shard_name(shard, shards))


class _WriteTables(beam.DoFn):
    def __init__(self, out: str, shards: int) -> None:
        self._out = out
        self._shards = shards

    def process(self, element: tuple[tuple[str, str, int], Iterable[str]]):
        (dataset, split, shard), pieces = element
        pieces = sorted(pieces)
        table = pa.concat_tables([_read_piece(piece) for piece in pieces])
        count = 1 if dataset == "rejects" else self._shards
        path = _table_path(self._out, dataset, split, shard, count)
        write_shard(table, path, schemas.SCHEMAS[dataset])
        for piece in pieces:
            _remove(piece)
        yield (dataset, split, shard, table.num_rows)


class _WritePairs(beam.DoFn):
    def __init__(self, out: str, shards: int) -> None:
        self._out = out
        self._shards = shards

    def process(self, element: tuple[tuple[str, int], Iterable[pa.Table]]):
        (split, shard), tables = element
        merged = pa.concat_tables(list(tables))
        keys = merged.select(["class", "before", "after", "key"]).group_by(
            ["class", "before", "after"], use_threads=False).aggregate([("key", "min")])
        keys = keys.rename_columns(["class", "before", "after", "key"])
        totals = count_pairs(merged.select(["split", "class", "before", "after", "count"]))
        table = totals.join(keys, ["class", "before", "after"], use_threads=False)
        write_shard(table, _table_path(self._out, "positive_pairs", split, shard, self._shards), schemas.POSITIVE_PAIRS)
        yield ("positive_pairs", split, shard, table.num_rows)


def _save_state(_, out: str, stats: dict, plan: SamplingPlan, counts: dict, written: list) -> None:
    state = {
        "files": stats["files"],
        "excluded": stats["excluded"],
        "tokens": {s: _split_json(c) for s, c in stats["splits"].items()},
        "examples": {s: _split_json(c) for s, c in counts.items()},
        "plan": {
            "trivial_keep_rate": plan.keep_rate,
            "trivial_fraction": plan.trivial_fraction,
            "trivial_tokens": plan.trivial_tokens,
            "trivial_kept": plan.trivial_kept,
            "nontrivial_examples": plan.nontrivial_examples,
            "upsampled": plan.upsampled,
        },
        "written": sorted(list(w) for w in written),
    }
    with write_atomically(os.path.join(out, STATE_FILE)) as handle:
        handle.write(json.dumps(state).encode())


def _split_json(counts: SplitCounts) -> dict:
    return {
        "tokens": dict(sorted(counts.tokens.items())),
        "examples": dict(sorted(counts.examples.items())),
        "trivial_tokens": counts.trivial_tokens,
        "trivial_examples": counts.trivial_examples,
        "sampled_out": counts.sampled_out,
        "copies": counts.copies,
        "sentences": counts.sentences,
    }


def run_pipeline(config: BuildConfig, files: list[tuple[str, int]], shards: int, workers: int | None) -> dict | None:
    """Run the build pipeline; return the build state (None for a dry run that submits nothing)."""
    options = pipeline_options(config.pipeline_args, workers)
    items = [(i, path, size) for i, (path, size) in enumerate(files)]
    total = len(items)
    pipeline = make_pipeline(options)
    files_pc = pipeline | "Files" >> beam.Create(items) | "Spread" >> beam.Reshuffle()
    parsed = files_pc | "Parse" >> beam.ParDo(_ParseFn(config, total)).with_outputs("rejects", main="stats")
    stats = parsed.stats | "MergeStatistics" >> beam.CombineGlobally(_MergeStats(config))
    plan = stats | "Plan" >> beam.Map(lambda s: make_plan(s["train"], config.sampling))
    caches = (parsed.stats | "Caches" >> beam.Map(lambda s: (s.path, s.cache, s.index))
              | "SpreadCaches" >> beam.Reshuffle())
    built = caches | "BuildExamples" >> beam.ParDo(
        _BuildFn(config, total, shards), plan=beam.pvalue.AsSingleton(plan)
    ).with_outputs("counts", "pairs", main="tables")
    tables = (built.tables, parsed.rejects) | "AllTables" >> beam.Flatten()
    written_tables = (tables | "GroupShards" >> beam.GroupByKey()
                      | "WriteShards" >> beam.ParDo(_WriteTables(config.out, shards)))
    written_pairs = (built.pairs | "GroupPairs" >> beam.GroupByKey()
                     | "WritePairs" >> beam.ParDo(_WritePairs(config.out, shards)))
    counts = built.counts | "MergeCounts" >> beam.CombineGlobally(_MergeCounts())
    written = (written_tables, written_pairs) | "AllWritten" >> beam.Flatten()
    _ = (pipeline | "Finish" >> beam.Create([None]) | "SaveState" >> beam.Map(
        _save_state, config.out, stats=beam.pvalue.AsSingleton(stats), plan=beam.pvalue.AsSingleton(plan),
        counts=beam.pvalue.AsSingleton(counts), written=beam.pvalue.AsList(written)))
    result = pipeline.run()
    if is_dry_run(options):
        return None
    result.wait_until_finish()
    state_path = os.path.join(config.out, STATE_FILE)
    with open_binary(state_path) as handle:
        state = json.loads(handle.read())
    _remove(state_path)
    _remove(os.path.join(config.out, CACHE_DIR))
    return state


def _remove(path: str) -> None:
    if is_remote(path):
        from apache_beam.io.filesystems import FileSystems

        FileSystems.delete([path])
    elif os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)
