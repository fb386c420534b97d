"""The negatives pipeline: positive pairs of a dataset directory → labelled pairs for both dual encoders.

Reads DIR/positives/{split}/ (and optionally a hypotheses file), writes DIR/pairs/{split}/ (PAIRS) and
DIR/vocab_pairs/{split}/ (VOCAB_PAIRS), and records counts in the "negatives" section of DIR/manifest.json.
With trivial pairs on (the default), the distinct trivial tokens of DIR/examples (`<self>`/`sil`; the train
split's already down-sampled) are positives too, so the dual encoders learn when a token is read as written.

Shape of the Beam pipeline (only file paths, counts and the context move between stages, never rows):
  tasks: each split's context parts, each examples file (trivial tokens), each positives file, the hypotheses file
    ─► ReadInputs: each file's rows sorted by H(before) into a scratch Arrow file → (path, distinct inputs);
       the context tasks build the context's parts in the same step, put together into one small side input
  distinct inputs ─► one combined sum → the unit count ─► unit ids ─► Reshuffle
    ─► each unit reads its range of H(before) from every scratch file ─► per-input negatives, chunk by chunk
  ─► Arrow tables per (dataset, split) ─► WriteDataset (each table spilled once to scratch; per shard: sort,
     write every shard once, count its groups) ─► the counts in one scratch JSON for the manifest.
An input's rows from every split (and its hypotheses) fall in one unit's range, so the never-a-positive rule
needs no global table; the unit count grows with the data (see `negative_units`, `negative_inputs`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from typing import Any

import apache_beam as beam
from apache_beam.metrics.metric import MetricsFilter

from tnforge.collector import few_malloc_arenas, trimming
from tnforge.datasets import DATASET_DIRS, dataset_files
from tnforge.errors import Interrupted, interrupted
from tnforge.filesystems import (
    check_path,
    exists,
    has_contents,
    is_folder,
    is_remote,
    join,
    remove,
    remove_temporaries,
)
from tnforge.generators.input_negatives import GENERATOR_VERSION, Settings
from tnforge.generators.licensing import grammar_language, grammar_version, resolve_grammar
from tnforge.generators.negative_context import assemble_context
from tnforge.generators.negative_sampling import DEFAULT_CAP
from tnforge.generators.negatives import HYPOTHESES, check_kinds, needing, regenerated_kinds
from tnforge.manifest import SCRATCH, require_complete, require_dataset, update_section, write_manifest
from tnforge.pipelines.negative_counts import load_tallies, save_tallies, summarize, tally_table
from tnforge.pipelines.negative_inputs import CONTEXT, ReadInputs, input_tasks, unit_pieces
from tnforge.pipelines.negative_units import METRICS, GenerateNegatives, auto_workers, work_units
from tnforge.pipelines.runner import make_pipeline, pipeline_options, quiet_worker_errors
from tnforge.pipelines.writer import WriteDataset

OUTPUTS = ("pairs", "vocab_pairs")
#: Scratch folder (under DIR) for the output pieces between generation and the shard writer.
PIECES = join(SCRATCH, "negative-pieces")
#: Scratch file (under DIR) of the groups counted in each shard as it is written (`negative_counts`).
COUNTS = join(SCRATCH, "negative-counts.json")
#: Scratch folder (under DIR) for the input files' rows, sorted for the units (`negative_inputs`).
INPUTS = join(SCRATCH, "negative-inputs")


def build_pipeline(
    pipeline: beam.Pipeline,
    root: str,
    settings: Settings,
    topk_from: str | None,
    use_grammar: bool,
    shards: int,
    units: int | None = None,
    release: bool = False,
    out: str | None = None,
) -> beam.PCollection:
    """Add the negatives transforms to a pipeline; returns the PCollection of shard reports.

    units: work units (None: one per INPUTS_PER_UNIT distinct inputs, counted in the pipeline); release: hand
    freed memory back to the system after each chunk and shard (`collector.release_memory`; worth its CPU in
    worker processes, whose memory adds up); out: where the pairs and the scratch go (None: `root`)."""
    out = out or root
    tasks = input_tasks(root, settings.trivial, topk_from if needing(HYPOTHESES, settings.kinds) else None)
    read = (
        pipeline
        | "InputFiles" >> beam.Create(tasks)
        | "ReadInputs" >> beam.ParDo(ReadInputs(root, join(out, INPUTS), settings.seed)).with_outputs(
            CONTEXT, main="files")
    )
    files = read.files
    unit_count = (
        files
        | "CountInputs" >> beam.Map(lambda file: file.inputs)
        | "SumInputs" >> beam.CombineGlobally(sum)
        | "Units" >> beam.Map(work_units, override=units)
    )
    return (
        unit_count
        | "UnitIds" >> beam.FlatMap(lambda count: list(range(count)))
        | "SpreadUnits" >> beam.Reshuffle()
        | "ReadUnits" >> beam.Map(unit_pieces, beam.pvalue.AsList(files), beam.pvalue.AsSingleton(unit_count))
        | "Generate" >> beam.ParDo(_Generate(settings, use_grammar, release=release), beam.pvalue.AsList(read[CONTEXT]))
        | "Write" >> WriteDataset(out, dict.fromkeys(OUTPUTS, shards), scratch=join(out, PIECES), release=release,
                                  summarize=tally_table)
        | "AllShards" >> beam.combiners.ToList()
        | "SaveCounts" >> beam.Map(save_tallies, join(out, COUNTS))
    )


class _Generate(GenerateNegatives):
    """`GenerateNegatives` given the context as its parts (`negative_context.assemble_context`), put together
    on the worker (once per worker: the parts are the same for every unit), with no stage of its own between
    reading the inputs and the units."""

    _assembled: tuple[list, dict] | None = None  # (the parts' names, the context made of them)

    def process(self, element: tuple[int, list], parts: list) -> Iterator[Any]:
        names = sorted((split, part) for split, part, _ in parts)
        if self._assembled is None or self._assembled[0] != names:
            self._assembled = names, assemble_context(parts)
        return super().process(element, self._assembled[1])


def work_counters(result: Any) -> dict[str, int]:
    """{"units": work units with inputs, "inputs": distinct inputs} from a finished run's counters."""
    found = {}
    for name in ("units", "inputs"):
        counters = result.metrics().query(MetricsFilter().with_namespace(METRICS).with_name(name))["counters"]
        found[name] = sum(int(c.committed if c.committed is not None else c.attempted) for c in counters)
    return found


def check_pairs_folder(out: str) -> None:
    """A folder holding a dataset's examples is no pairs folder (one line, before anything is written)."""
    if dataset_files(out, "examples"):
        raise ValueError(f"{out}: holds a dataset of its own (examples/): give a new or a pairs folder as --out")


#: What a pairs folder's manifest keeps of its dataset's: what describes the build, not its files (`datasets`,
#: `accounting` and the rest count files the folder does not hold, so validation would look for them there).
PAIRS_FOLDER_SECTIONS = ("layout", "tnforge_version", "config", "grammar_language", "complete")


def pairs_folder(root: str, out: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """Start `out` as the pairs folder of dataset `root`: its manifest holds the build's settings
    (`PAIRS_FOLDER_SECTIONS`) and `pairs_of`, the dataset's path, and no pairs until this run records them;
    returns that manifest (`check_pairs_folder` first)."""
    where = root if is_remote(root) else os.path.abspath(root)
    manifest = {name: manifest[name] for name in PAIRS_FOLDER_SECTIONS if name in manifest} | {"pairs_of": where}
    write_manifest(out, manifest)
    return manifest


def _forget_outputs(root: str, manifest: dict[str, Any]) -> None:
    """Drop an earlier run's "negatives" section, then its pairs: until this run records its own section, no
    pairs are committed (and no stale shard of another shard count survives)."""
    if manifest.pop("negatives", None) is not None:
        write_manifest(root, manifest)
    for name in OUTPUTS:
        remove(join(root, DATASET_DIRS[name]))
    _remove_pieces(root)


def _remove_pieces(root: str) -> None:
    """Remove the pieces' scratch folder (and the scratch folder itself when nothing else is left in it)."""
    remove(join(root, PIECES))
    remove(join(root, INPUTS))
    remove(join(root, COUNTS))
    scratch = join(root, SCRATCH)
    if is_folder(scratch) and not has_contents(scratch):
        remove(scratch)


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
    units: int | None = None,
    out: str | None = None,
) -> dict[str, Any]:
    """Generate the pairs of a dataset directory; returns the manifest's new "negatives" section.

    kinds: registered kinds (`generators.negatives.kinds()`); ratio: negatives per positive (None = all candidates, up
    to `cap` per input); topk_from: a hypotheses Parquet file (for the kinds that need one, "topk"); grammar: judge the
    negatives with the covering grammar (None = when available); pipeline_args: Beam options (the local
    FnApiRunner unless they name a runner); workers: local worker processes (direct_num_workers; None: 1, in
    process; 0: `auto_workers`, one per expected work unit up to the usable cores); trivial:
    make pairs for trivial tokens too, and "unread" (`<self>`) negatives for the others; units: work units
    (None: from the data, one per INPUTS_PER_UNIT distinct inputs; the files are the same for any count); out:
    another folder for the pairs and their manifest (`pairs_folder`), the dataset `root` only read (None: `root`)."""
    say = progress or (lambda _message: None)
    root = str(root)
    out = root if out is None or str(out).rstrip("/") == root.rstrip("/") else str(out)
    kinds = list(dict.fromkeys(kinds))
    check_kinds(kinds, topk_from)
    if topk_from and not exists(check_path(topk_from)):
        raise FileNotFoundError(f"{topk_from}: no such hypotheses file")
    if ratio is not None and not ratio > 0:
        raise ValueError(f"ratio must be positive (or 'all'), got {ratio}")
    if shards < 1 or cap < 1 or (units is not None and units < 1):
        raise ValueError(f"shards, cap and units must be at least 1 (got shards={shards}, cap={cap}, units={units})")
    if not is_folder(check_path(root)):
        raise FileNotFoundError(f"{root}: no such dataset directory")
    require_dataset(root)
    if not dataset_files(root, "positive_pairs"):
        raise FileNotFoundError(f"{root}: no positive pairs under positives/ (run `tnforge build` first)")
    manifest = require_complete(root)
    if out != root:
        check_pairs_folder(out)
    use_grammar = resolve_grammar(grammar)
    settings = Settings(kinds=frozenset(kinds), ratio=ratio, cap=cap, seed=seed, trivial=trivial)
    if workers == 0:
        workers = auto_workers(root, units, pipeline_args)
    say(f"generating {'+'.join(kinds)} negatives at ratio {ratio or 'all'} (cap {cap}, grammar "
        f"{'on' if use_grammar else 'off'}, trivial pairs {'on' if trivial else 'off'}"
        f"{f', {workers} local workers' if workers and workers > 1 else ''})")
    options = pipeline_options(pipeline_args, workers)  # refuses bad runner options before anything is deleted
    if out != root:
        manifest = pairs_folder(root, out, manifest)
    _forget_outputs(out, manifest)
    pipeline = make_pipeline(options)
    processes = bool(workers and workers > 1)  # worker processes, besides this one
    build_pipeline(pipeline, root, settings, topk_from, use_grammar, shards, units, release=processes, out=out)
    tallies = None
    try:
        # Memory: few malloc arenas in every process of the run; with worker processes, the driver (which only
        # passes elements between them) hands its freed heap back as it goes.
        with quiet_worker_errors(), few_malloc_arenas(), trimming() if processes else nullcontext():
            result = pipeline.run()
            result.wait_until_finish()
        tallies = load_tallies(join(out, COUNTS))
    except BaseException as error:
        if interrupted(error):  # Beam wraps Ctrl-C in a RuntimeError: one line and exit 130, as build does
            raise Interrupted(f"interrupted; no negatives were written to {out}") from error
        raise
    finally:
        _remove_pieces(out)
        remove_temporaries(out)  # what a worker that died between writing and renaming left
    say("counting the pairs written")
    section: dict[str, Any] = {
        "ratio": float(ratio) if ratio is not None else "all",
        "kinds": kinds,
        "cap": cap,
        "seed": seed,
        "shards": shards,
        "grammar": use_grammar,
        "grammar_version": grammar_version() if use_grammar else None,  # which grammar decided `licensed`
        "grammar_language": grammar_language() if use_grammar else None,  # old manifests without it: "en"
        "trivial": trivial,
        "topk_from": str(topk_from) if topk_from else None,
        "generator_version": GENERATOR_VERSION,
        "work": work_counters(result),
        **summarize(tallies),
    }
    update_section(out, "negatives", section)
    return section


def regenerate_negatives(dataset: str, pairs: str, kinds: Sequence[str], ratio: float | None, hypotheses: str,
                         seed: int, pipeline_args: Sequence[str] = ()) -> None:
    """The adversarial loop's Beam step (`trainers.adversarial_loop.RegenerateNegatives`, `pipeline_args` bound
    by the caller): the pairs of `dataset` (only read) made again into the pairs folder `pairs`, of `kinds`
    (none: the registry's `regenerated_kinds()`), top-k ones from `hypotheses` (one shard, the grammar when
    available; the local runner unless `pipeline_args` name another)."""
    run_negatives(str(dataset), list(kinds) or list(regenerated_kinds()), ratio, str(hypotheses), None, seed, 1,
                  list(pipeline_args), out=str(pairs))
