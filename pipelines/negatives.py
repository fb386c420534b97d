"""The negatives pipeline: positive pairs of a dataset directory → labelled pairs for both dual encoders.

Reads DIR/positives/{split}/ (and optionally a hypotheses file), writes DIR/pairs/{split}/ (PAIRS) and
DIR/vocab_pairs/{split}/ (VOCAB_PAIRS), and records counts in the "negatives" section of DIR/manifest.json.
With trivial pairs on (the default), the distinct trivial tokens of DIR/examples (`<self>`/`sil`; the train
split's already down-sampled) are positives too, so the dual encoders learn when a token is read as written.

Shape of the Beam pipeline (batches move between stages, never single rows):
  positive files ─► read + bucket by hash(before) ─┬─► ToList ─► build context (one small side input)
  example files  ─► trivial tokens + bucket ───────┤  (trivial pairs: not part of the context)
  hypotheses     ─► read + split + bucket ─────────┤
                                                    └─► GroupByKey(bucket) ─► per-input negatives (side input)
  ─► Arrow tables per (dataset, split) ─► WriteDataset (shard by key, sort, write every shard once).
Grouping by the input's bucket brings an input's positives from every split together, so the
never-a-positive rule needs no global table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import apache_beam as beam
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.datasets import DATASET_DIRS, by_split, dataset_files
from tnforge.filesystems import check_path, exists, is_folder, join, read_parquet, remove, remove_temporaries
from tnforge.generators.input_negatives import GENERATOR_VERSION, Positive, Settings, input_pairs
from tnforge.generators.licensing import Licenser, resolve_grammar
from tnforge.generators.negative_context import build_context
from tnforge.generators.negative_sampling import DEFAULT_CAP
from tnforge.generators.pair_tables import pairs_table
from tnforge.generators.topk import assign_splits, group_by_before, read_hypotheses
from tnforge.generators.vocab_pairs import vocab_table
from tnforge.hashing import stable_hash64
from tnforge.manifest import check_input, require_complete, update_section, write_manifest
from tnforge.pipelines.build_steps import count_pairs, pair_keys
from tnforge.pipelines.runner import make_pipeline, pipeline_options
from tnforge.pipelines.writer import WriteDataset
from tnforge.schemas.negative_kinds import KINDS

#: Work units: inputs are spread over this many buckets by a stable hash of `before`.
BUCKETS = 32
OUTPUTS = ("pairs", "vocab_pairs")
POSITIVE_COLUMNS = ["key", "split", "class", "before", "after"]


def _bucketed(table: pa.Table, buckets: int) -> Iterator[tuple[int, pa.Table]]:
    befores = table.column("before").to_pylist()
    hashes = {b: stable_hash64(b) % buckets for b in set(befores)}
    index = np.fromiter((hashes[b] for b in befores), dtype=np.int64, count=len(befores))
    for bucket in np.unique(index).tolist():
        yield bucket, table.filter(pa.array(index == bucket))


def read_positive_file(path: str, buckets: int) -> Iterator[tuple[int, tuple[str, pa.Table]]]:
    """(bucket, ("positives", rows)) slices of one positive-pairs file."""
    table = read_parquet(path, columns=POSITIVE_COLUMNS)
    for bucket, part in _bucketed(table, buckets):
        yield bucket, ("positives", part)


def read_trivial_file(path: str, buckets: int) -> Iterator[tuple[int, tuple[str, pa.Table]]]:
    """(bucket, ("positives", rows)) slices of the distinct trivial (split, class, before, after) of one
    examples file (originals only), keyed like positive pairs."""
    table = read_parquet(path, columns=["split", "class", "before", "after", "trivial", "copy"])
    table = table.filter(pc.and_(table.column("trivial"), pc.equal(table.column("copy"), 0)))
    if not table.num_rows:
        return
    table = count_pairs(table.select(["split", "class", "before", "after"]))
    table = table.append_column("key", pa.array(pair_keys(table), pa.uint64())).select(POSITIVE_COLUMNS)
    for bucket, part in _bucketed(table, buckets):
        yield bucket, ("positives", part)


def read_hypothesis_file(path: str, root: str, buckets: int) -> Iterator[tuple[int, tuple[str, pa.Table]]]:
    """(bucket, ("hypotheses", rows)) slices of a hypotheses file, each row with its example's split."""
    table = assign_splits(read_hypotheses(path), root)
    for bucket, part in _bucketed(table, buckets):
        yield bucket, ("hypotheses", part)


class GenerateNegatives(beam.DoFn):
    """All pairs for the inputs of one bucket, as Arrow tables keyed by (dataset, split)."""

    def __init__(self, settings: Settings, use_grammar: bool) -> None:
        self.settings = settings
        self.use_grammar = use_grammar
        self.judge: Licenser | None = None

    def setup(self) -> None:
        # The grammar (pynini) is imported here, on the worker, never at module import.
        self.judge = Licenser() if self.use_grammar else None

    def process(self, element: tuple[int, list[tuple[str, pa.Table]]], contexts: dict) -> Iterator[Any]:
        _, pieces = element
        positive_tables = [t for kind, t in pieces if kind == "positives"]
        hypotheses = group_by_before([t for kind, t in pieces if kind == "hypotheses"])
        by_input: dict[str, dict[tuple[str, str, str], Positive]] = {}
        for table in positive_tables:
            columns = [table.column(c).to_pylist() for c in POSITIVE_COLUMNS]
            for key, split, cls, before, after in zip(*columns, strict=True):
                # Trivial tokens come once per examples file: the same pair from several files is one positive.
                by_input.setdefault(before, {})[(split, cls, after)] = Positive(split, cls, after, key)
        pair_rows, vocab_groups = [], []
        for before in sorted(by_input):
            positives = [by_input[before][k] for k in sorted(by_input[before])]
            pairs, vocab = input_pairs(before, positives, hypotheses.get(before, ()), contexts, self.settings)
            pair_rows.extend(pairs)
            vocab_groups.extend(vocab)
        tables = {
            "pairs": pairs_table(pair_rows, GENERATOR_VERSION, self.judge),
            "vocab_pairs": vocab_table(vocab_groups, contexts, GENERATOR_VERSION),
        }
        for dataset, table in tables.items():
            for split, part in by_split(table):
                yield (dataset, split), part


def build_pipeline(
    pipeline: beam.Pipeline,
    root: str,
    settings: Settings,
    topk_from: str | None,
    use_grammar: bool,
    shards: int,
) -> beam.PCollection:
    """Add the negatives transforms to a pipeline; returns the PCollection of shard reports."""
    files = [str(path) for path in dataset_files(root, "positive_pairs")]
    positives = (
        pipeline
        | "PositiveFiles" >> beam.Create(files)
        | "ReadPositives" >> beam.FlatMap(read_positive_file, BUCKETS)
    )
    contexts = (
        positives
        | "PositiveTables" >> beam.Map(lambda item: item[1][1])
        | "AllPositives" >> beam.combiners.ToList()
        | "BuildContext" >> beam.Map(build_context, settings.seed)
    )
    sources = [positives]
    if settings.trivial:
        sources.append(
            pipeline
            | "ExampleFiles" >> beam.Create([str(path) for path in dataset_files(root, "examples")])
            | "ReadTrivial" >> beam.FlatMap(read_trivial_file, BUCKETS)
        )
    if topk_from is not None and "topk" in settings.kinds:
        sources.append(
            pipeline
            | "HypothesisFiles" >> beam.Create([str(topk_from)])
            | "ReadHypotheses" >> beam.FlatMap(read_hypothesis_file, root, BUCKETS)
        )
    return (
        sources
        | "AllInputs" >> beam.Flatten()
        | "ByBucket" >> beam.GroupByKey()
        | "Generate" >> beam.ParDo(
            GenerateNegatives(settings, use_grammar), beam.pvalue.AsSingleton(contexts)
        )
        | "Write" >> WriteDataset(root, dict.fromkeys(OUTPUTS, shards))
    )


def count_outputs(root: str) -> dict[str, Any]:
    """Counts per split and type (and class, and subtype) of the pairs and vocabulary pairs written."""

    def tally(dataset: str, by: list[str]) -> list[dict]:
        files = dataset_files(root, dataset)
        if not files:
            return []
        columns = sorted({"split", "label", "negative_type", *by})
        table = pa.concat_tables([read_parquet(f, columns=columns) for f in files])
        kind = pc.if_else(
            pc.and_(pc.equal(table.column("negative_type"), ""), pc.equal(table.column("label"), 1)),
            "positive",
            table.column("negative_type"),
        )
        table = table.append_column("type", kind)
        return table.group_by(["split", "type", *by]).aggregate([("label", "count")]).to_pylist()

    counts: dict[str, dict[str, int]] = {}
    by_class: dict[str, dict[str, dict[str, int]]] = {}
    subtypes: dict[str, dict[str, int]] = {}
    licensed = 0
    for row in tally("pairs", ["class", "negative_subtype", "licensed"]):
        split, kind, n = row["split"], row["type"], row["label_count"]
        counts.setdefault(split, {}).setdefault(kind, 0)
        counts[split][kind] += n
        cls_counts = by_class.setdefault(split, {}).setdefault(row["class"], {})
        cls_counts[kind] = cls_counts.get(kind, 0) + n
        if kind != "positive":
            name = f"{kind}:{row['negative_subtype']}" if row["negative_subtype"] else kind
            subtypes.setdefault(split, {})[name] = subtypes.get(split, {}).get(name, 0) + n
        if row["licensed"]:
            licensed += n
    vocab_counts: dict[str, dict[str, int]] = {}
    for row in tally("vocab_pairs", []):
        vocab_counts.setdefault(row["split"], {})[row["type"]] = row["label_count"]

    def ordered(mapping: dict) -> dict:
        return {k: ordered(v) if isinstance(v, dict) else v for k, v in sorted(mapping.items())}

    return {
        "counts": ordered(counts),
        "by_class": ordered(by_class),
        "subtypes": ordered(subtypes),
        "vocab_counts": ordered(vocab_counts),
        "licensed": licensed,
    }


def _forget_outputs(root: str, manifest: dict[str, Any]) -> None:
    """Drop an earlier run's "negatives" section, then its pairs: until this run records its own section, no
    pairs are committed (and no stale shard of another shard count survives)."""
    if manifest.pop("negatives", None) is not None:
        write_manifest(root, manifest)
    for name in OUTPUTS:
        remove(join(root, DATASET_DIRS[name]))


def run_negatives(
    root: str,
    kinds: Sequence[str],
    ratio: float | None,
    topk_from: str | None,
    grammar: bool | None,
    seed: int,
    shards: int,
    pipeline_args: list[str],
    cap: int = DEFAULT_CAP,
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
    trivial: bool = True,
) -> dict[str, Any]:
    """Generate the pairs of a dataset directory; returns the manifest's new "negatives" section.

    kinds: any of "synthetic", "random", "topk"; ratio: negatives per positive (None = all candidates, up
    to `cap` per input); topk_from: a hypotheses Parquet file (required for "topk"); grammar: judge the
    negatives with the covering grammar (None = when available); pipeline_args: Beam options (the local
    FnApiRunner unless they name a runner); workers: local worker processes (direct_num_workers); trivial:
    make pairs for trivial tokens too, and "unread" (`<self>`) negatives for the others."""
    say = progress or (lambda _message: None)
    root = str(root)
    kinds = list(dict.fromkeys(kinds))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"unknown negative kind(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(KINDS)}")
    if "topk" in kinds and not topk_from:
        raise ValueError("the 'topk' kind needs a hypotheses file (--topk-from)")
    if topk_from and "topk" not in kinds:
        raise ValueError("a hypotheses file was given but 'topk' is not among the kinds")
    if topk_from and not exists(check_path(topk_from)):
        raise FileNotFoundError(f"{topk_from}: no such hypotheses file")
    if ratio is not None and not ratio > 0:
        raise ValueError(f"ratio must be positive (or 'all'), got {ratio}")
    if shards < 1 or cap < 1:
        raise ValueError(f"shards and cap must be at least 1 (got shards={shards}, cap={cap})")
    if not is_folder(check_path(root)):
        raise FileNotFoundError(f"{root}: no such dataset directory")
    check_input(root)
    if not dataset_files(root, "positive_pairs"):
        raise FileNotFoundError(f"{root}: no positive pairs under positives/ (run `tnforge build` first)")
    manifest = require_complete(root)
    use_grammar = resolve_grammar(grammar)
    settings = Settings(kinds=frozenset(kinds), ratio=ratio, cap=cap, seed=seed, trivial=trivial)
    say(f"generating {'+'.join(kinds)} negatives at ratio {ratio or 'all'} (cap {cap}, grammar "
        f"{'on' if use_grammar else 'off'}, trivial pairs {'on' if trivial else 'off'})")
    options = pipeline_options(pipeline_args, workers)  # refuses bad runner options before anything is deleted
    _forget_outputs(root, manifest)
    try:
        with make_pipeline(options) as pipeline:
            build_pipeline(pipeline, root, settings, topk_from, use_grammar, shards)
    finally:
        remove_temporaries(root)  # what a worker that died between writing and renaming left
    say("counting the pairs written")
    section: dict[str, Any] = {
        "ratio": float(ratio) if ratio is not None else "all",
        "kinds": kinds,
        "cap": cap,
        "seed": seed,
        "shards": shards,
        "grammar": use_grammar,
        "trivial": trivial,
        "topk_from": str(topk_from) if topk_from else None,
        "generator_version": GENERATOR_VERSION,
        **count_outputs(root),
    }
    update_section(root, "negatives", section)
    return section


def regenerate_negatives(dataset: Path, kinds: Sequence[str], ratio: float | None, hypotheses: Path,
                         seed: int) -> None:
    """The adversarial loop's Beam step (`trainers.adversarial_loop.RegenerateNegatives`): the pairs of
    `dataset` made again, top-k ones from `hypotheses` (one shard, the grammar when available, local runner)."""
    run_negatives(str(dataset), list(kinds), ratio, str(hypotheses), None, seed, 1, [])
