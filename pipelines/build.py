"""The dataset build as a Beam pipeline: corpus files in, a dataset directory of sharded Parquet out.

Graph (elements are files, Arrow tables and small count objects — never one dict per token):

  files ─ Reshuffle ─ parse_file ─┬─ rejects ───────────────────────────────────────┐
          (Arrow cache per file)  ├─ stats ── merge ── plan ─┐ (side input)            │
                                  └─ (path, cache) ── build_file ─┬─ tables ─────────┼─ WriteDataset
                                                                  ├─ pairs ── CountPairs ┘
                                                                  └─ counts ── merge
  state (stats, plan, counts, shard reports) ── one JSON the driver turns into manifest.json
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa

from tnforge import schemas
from tnforge.collector import few_malloc_arenas, trimming
from tnforge.datasets import by_split, split_shards
from tnforge.filesystems import join, open_binary, remove, remove_temporaries, write_atomically
from tnforge.generators.augmentation import Augmentation, SubstitutionPool
from tnforge.generators.leading_readings import Deference, LeadingReadings
from tnforge.generators.sampling import SamplingPlan, TrainStats, make_plan
from tnforge.generators.synthesis import Synthesis, synthesize
from tnforge.manifest import SCRATCH
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
from tnforge.pipelines.runner import is_dry_run, make_pipeline, pipeline_options, quiet_worker_errors
from tnforge.pipelines.writer import WriteDataset
from tnforge.progress import log
from tnforge.sources import InputFile

STATE_FILE = ".tnforge-build-state.json"
CACHE_DIR = SCRATCH


class _MergeStats(beam.CombineFn):
    """Merge per-file FileStats into global statistics."""

    def __init__(self, config: BuildConfig) -> None:
        self._options = config.sampling

    def create_accumulator(self) -> dict:
        return {"files": [], "train": TrainStats(), "splits": {s: SplitCounts() for s in schemas.SPLITS},
                "excluded": 0, "pool": None, "held_out": set(), "readings": None}

    @staticmethod
    def _add_augmentation(acc: dict, pool: SubstitutionPool | None, held_out: set[int],
                          readings: LeadingReadings | None) -> None:
        if pool is not None:
            acc["pool"] = pool if acc["pool"] is None else acc["pool"].merge(pool)
        acc["held_out"] |= held_out
        if readings is not None:
            acc["readings"] = readings if acc["readings"] is None else acc["readings"].merge(readings)

    def add_input(self, acc: dict, stats: FileStats) -> dict:
        report = stats.report
        acc["files"].append({
            "path": stats.path, "source": stats.source, "size": stats.size, "sha256": stats.sha256,
            "flavour": report.flavour,
            "records": report.records, "sentences": report.sentences, "bom": report.bom,
            "crlf_lines": report.crlf_lines, "rejects": dict(report.rejects),
            **({"class_inference": dict(sorted(report.inference.items())), "class_grammar": report.class_grammar}
               if report.flavour == "aligned" else {}),
        })
        acc["train"].merge(stats.train, self._options)
        for split, counts in stats.splits.items():
            acc["splits"][split].merge(counts)
        acc["excluded"] += stats.excluded
        self._add_augmentation(acc, stats.pool, stats.held_out, stats.readings)
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
            self._add_augmentation(merged, acc["pool"], acc["held_out"], acc["readings"])
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
    def __init__(self, config: BuildConfig, total: int, leading: frozenset[str] = frozenset()) -> None:
        self._config = config
        self._total = total
        self._leading = leading

    def process(self, item: tuple[int, InputFile]):
        index, source = item
        start = time.monotonic()
        cache = cache_path(self._config.out, index)
        rejects = []
        for piece in parse_file(source, cache, self._config, index, self._leading):
            if isinstance(piece, FileStats):
                log(f"pass 1/2 (read, split, count) · file {index + 1}/{self._total} · {source.source} · "
                    f"{piece.report.records:,} records · {time.monotonic() - start:.1f}s")
                yield piece
            else:
                rejects.append(piece)
        if rejects:
            yield beam.pvalue.TaggedOutput("rejects", (("rejects", ""), pa.concat_tables(rejects)))


def cache_path(out: str, index: int) -> str:
    """Where pass 1 keeps the parsed tokens of input file `index`."""
    return join(out, CACHE_DIR, f"{index:06d}.arrow")


#: Arrow bytes of pass-2 tables a file's step holds before handing them on (to be spilled by shard).
PENDING_BYTES = 32 << 20


class PendingPieces:
    """A file's ((dataset, split), table) pieces, handed on concatenated per key once they hold PENDING_BYTES:
    a large file's tables are never all in memory. Where the pieces are cut changes no output: every dataset
    is sorted by a key unique to each row within its shard."""

    def __init__(self, limit: int | None = None) -> None:
        self._limit = PENDING_BYTES if limit is None else limit
        self._tables: dict[tuple[str, str], list[pa.Table]] = {}
        self._bytes = 0

    def add(self, key: tuple[str, str], table: pa.Table) -> Iterator[tuple[tuple[str, str], pa.Table]]:
        """Hold one piece; every held piece, when they reach the limit."""
        self._tables.setdefault(key, []).append(table)
        self._bytes += table.nbytes
        if self._bytes >= self._limit:
            yield from self.flush()

    def flush(self) -> Iterator[tuple[tuple[str, str], pa.Table]]:
        """Every held piece, one table per key, in key order."""
        for key in sorted(self._tables):
            yield key, pa.concat_tables(self._tables.pop(key))
        self._bytes = 0


class _BuildFn(beam.DoFn):
    def __init__(self, config: BuildConfig, total: int) -> None:
        self._config = config
        self._total = total

    def process(self, item: tuple[InputFile, str], plan: SamplingPlan, augmentation: Augmentation | None = None,
                synthesis: Synthesis | None = None, deference: Deference | None = None):
        source, cache = item
        start = time.monotonic()
        rows = 0
        pieces = PendingPieces()
        for piece in build_file(source, cache, self._config, plan, augmentation, synthesis, deference):
            if isinstance(piece, FileOutput):
                pairs, piece.pairs = piece.pairs, None
                yield beam.pvalue.TaggedOutput("counts", piece)
                if pairs is not None and pairs.num_rows:
                    yield beam.pvalue.TaggedOutput("pairs", pairs)
            else:
                rows += piece[1].num_rows if piece[0][0] == "examples" else 0
                yield from pieces.add(*piece)
        yield from pieces.flush()
        log(f"pass 2/2 (examples)           · {source.source} · {rows:,} examples · "
            f"{time.monotonic() - start:.1f}s")


class _SumPairs(beam.CombineFn):
    """Counted (split, class, before, after, key, count) tables → one table, each pair once with its total."""

    def create_accumulator(self) -> list[pa.Table]:
        return []

    def add_input(self, acc: list[pa.Table], table: pa.Table) -> list[pa.Table]:
        acc.append(table)
        return acc

    def merge_accumulators(self, accumulators: Iterable[list[pa.Table]]) -> list[pa.Table]:
        return [table for acc in accumulators for table in acc]

    def compact(self, acc: list[pa.Table]) -> list[pa.Table]:
        return [self.extract_output(acc)] if len(acc) > 1 else acc

    def extract_output(self, acc: list[pa.Table]) -> pa.Table:
        merged = pa.concat_tables(acc)
        keys = merged.select(["class", "before", "after", "key"]).group_by(
            ["class", "before", "after"], use_threads=False).aggregate([("key", "min")])
        keys = keys.rename_columns(["class", "before", "after", "key"])
        totals = count_pairs(merged.select(["split", "class", "before", "after", "count"]))
        return totals.join(keys, ["class", "before", "after"], use_threads=False)


class CountPairs(beam.PTransform):
    """Per-file counted pairs → (("positive_pairs", split), table) with every pair once, its counts summed."""

    def __init__(self, shards: int) -> None:
        super().__init__()
        self._shards = shards

    def expand(self, pairs: beam.PCollection) -> beam.PCollection:
        return (pairs
                | "KeyByShard" >> beam.FlatMap(_keyed_pairs, self._shards)
                | "SumCounts" >> beam.CombinePerKey(_SumPairs())
                | "AsDataset" >> beam.MapTuple(lambda key, table: (("positive_pairs", key[0]), table)))


def _keyed_pairs(pairs: pa.Table, shards: int):
    """Counted pairs of one file with their stable key, keyed by (split, shard): equal pairs meet."""
    pairs = pairs.append_column("key", pa.array(pair_keys(pairs), pa.uint64()))
    for split, part in by_split(pairs):
        for shard, chunk in split_shards(part, shards).items():
            yield (split, shard), chunk


def augmentation_plan(stats: dict, config: BuildConfig) -> Augmentation | None:
    """What pass 2 needs to augment train sentences (None without --augment-sentences)."""
    if not config.augment_sentences or stats["pool"] is None:
        return None
    return Augmentation(config.augment_sentences, config.seed, stats["pool"].choices(), frozenset(stats["held_out"]))


def synthesis_plan(stats: dict, config: BuildConfig) -> Synthesis | None:
    """What pass 2 needs to place synthesized examples (None without --synthesize): the rare classes' forms,
    drawn and read with the covering grammar (`generators.synthesis`)."""
    if not config.synthesize or stats["pool"] is None:
        return None
    from tnforge.grammars import adapter

    readings, committed, tables = adapter.synthesis_grammar()
    plan = synthesize(stats["pool"].choices(), stats["splits"]["train"].tokens, config.synthesize,
                      config.synthesize_below, config.seed, readings, committed, tables)
    plan.held_out = frozenset(stats["held_out"])  # its sentences never read like a dev/test sentence
    return plan


def deference_plan(stats: dict, config: BuildConfig, leading: frozenset[str]) -> Deference | None:
    """What pass 2 needs to defer later inputs to the first one's readings (None without --defer-to-first)."""
    return Deference.of(leading, stats["readings"]) if config.defer_to_first else None


def _save_state(_, path: str, stats: dict, plan: SamplingPlan, counts: dict, written: list,
                augmentation: Augmentation | None = None, synthesis: Synthesis | None = None,
                leading: frozenset[str] = frozenset()) -> None:
    state = {
        "leading": sorted(leading),
        "files": stats["files"],
        "excluded": stats["excluded"],
        "tokens": {s: _split_json(c) for s, c in stats["splits"].items()},
        "examples": {s: _split_json(c) for s, c in counts.items()},
        "plan": {
            "trivial_keep_rate": plan.keep_rate,
            "trivial_fraction": plan.trivial_fraction,
            "trivial_target": plan.trivial_target,
            "trivial_tokens": plan.trivial_tokens,
            "trivial_kept": plan.trivial_kept,
            "nontrivial_examples": plan.nontrivial_examples,
            "upsampled": plan.upsampled,
            "copy_budget": plan.copy_budget,
        },
        "written": sorted(list(w) for w in written),
        "substitutes": {cls: len(pool) for cls, pool in augmentation.substitutes.items()} if augmentation else {},
        "synthesis": synthesis.section() if synthesis else None,
    }
    with write_atomically(path) as handle:
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
        "augmented_sentences": counts.augmented_sentences,
        "substituted": counts.substituted,
        "augmented_dropped": counts.augmented_dropped,
        "synthesized": dict(sorted(counts.synthesized.items())),
        "deferred": dict(sorted(counts.deferred.items())),
        "synthesized_sentences": counts.synthesized_sentences,
        "synthesized_dropped": counts.synthesized_dropped,
    }


def run_pipeline(config: BuildConfig, files: list[InputFile], shards: int, workers: int | None,
                 leading: frozenset[str] = frozenset()) -> dict | None:
    """Run the build pipeline; return the build state (None for a dry run that submits nothing). `leading`: with
    --defer-to-first, the sources of the first input's files.

    The scratch folder (pass-1 caches, shard pieces, the state file) lives under --out (never on a worker's
    disk) and is removed once, by the driver, when the run has ended (also when it failed: a job still running
    is cancelled first), with any temporary file an interrupted write left."""
    options = pipeline_options(config.pipeline_args, workers)
    items = list(enumerate(files))
    total = len(items)
    scratch = join(config.out, CACHE_DIR)
    pipeline = make_pipeline(options)
    files_pc = pipeline | "Files" >> beam.Create(items) | "Spread" >> beam.Reshuffle()
    parsed = files_pc | "Parse" >> beam.ParDo(_ParseFn(config, total, leading)).with_outputs("rejects", main="stats")
    stats = parsed.stats | "MergeStatistics" >> beam.CombineGlobally(_MergeStats(config))
    plan = stats | "Plan" >> beam.Map(lambda s: make_plan(s["train"], config.sampling))
    augmentation = stats | "Augmentation" >> beam.Map(augmentation_plan, config)
    synthesis = stats | "Synthesis" >> beam.Map(synthesis_plan, config)
    deference = stats | "Deference" >> beam.Map(deference_plan, config, leading)
    caches = (parsed.stats | "Caches" >> beam.Map(lambda s: (InputFile(s.path, s.size, s.source, s.key_name), s.cache))
              | "SpreadCaches" >> beam.Reshuffle())
    built = caches | "BuildExamples" >> beam.ParDo(
        _BuildFn(config, total), plan=beam.pvalue.AsSingleton(plan),
        augmentation=beam.pvalue.AsSingleton(augmentation), synthesis=beam.pvalue.AsSingleton(synthesis),
        deference=beam.pvalue.AsSingleton(deference),
    ).with_outputs("counts", "pairs", main="tables")
    pairs = built.pairs | "CountPairs" >> CountPairs(shards)
    layout = {"examples": shards, "sentences": shards, "positive_pairs": shards, "rejects": 1}
    written = ((built.tables, parsed.rejects, pairs)
               | "Write" >> WriteDataset(config.out, layout, scratch=join(scratch, "pieces"), release=True))
    counts = built.counts | "MergeCounts" >> beam.CombineGlobally(_MergeCounts())
    state_path = join(scratch, STATE_FILE)
    _ = (pipeline | "Finish" >> beam.Create([None]) | "SaveState" >> beam.Map(
        _save_state, state_path, stats=beam.pvalue.AsSingleton(stats), plan=beam.pvalue.AsSingleton(plan),
        counts=beam.pvalue.AsSingleton(counts), written=beam.pvalue.AsList(written),
        augmentation=beam.pvalue.AsSingleton(augmentation), synthesis=beam.pvalue.AsSingleton(synthesis),
        leading=leading))
    result = None
    try:
        with quiet_worker_errors(), few_malloc_arenas(), trimming():
            result = pipeline.run()
            if is_dry_run(options):
                return None
            result.wait_until_finish()
        with open_binary(state_path) as handle:
            return json.loads(handle.read())
    except BaseException:
        cancel(result)  # a remote job must not go on writing into what is removed below
        raise
    finally:
        if not is_dry_run(options):
            remove_scratch(scratch)
            remove_temporaries(config.out)


def cancel(result: Any) -> None:
    """Cancel a pipeline that is still running (a remote runner's job after Ctrl-C); quiet when it cannot."""
    try:
        from apache_beam.runners.runner import PipelineState

        if result is not None and not PipelineState.is_terminal(result.state):
            result.cancel()
    except Exception:  # noqa: BLE001 - the original error matters more; local runners cannot cancel
        log("could not cancel the running pipeline; cancel it with your runner's tools")


def remove_scratch(scratch: str) -> None:
    """Remove the scratch folder; tried again once (a worker may still finish a file as it goes)."""
    try:
        remove(scratch)
    except OSError:
        time.sleep(0.5)
        remove(scratch)
