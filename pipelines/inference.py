"""Model inference at corpus scale on Beam: `tnforge decode` (top-k hypotheses of examples) and `tnforge normalize
--file` (raw sentences → spoken sentences) as pipelines around Beam's RunInference, same bytes as one process.

The model handlers load the model once per worker process (RunInference's shared handle: every thread of the
process uses that one copy) on the worker's GPU when it has one (device "auto"), and reach the model side only
inside the worker: decode's by name (`WORKER`: `tnforge.trainers.inference_worker`), normalize's through the
library's `tnforge.Normalizer.load` (`load_reader`), so building the job graph imports no torch. Batches are formed before RunInference, not by its BatchElements: a batch's composition changes its
scores' last bits, and a runner's bundles differ, so decode batches come from `tnforge.decode_units` (the
single process's batches) and normalize chunks are the single process's `CHUNK` lines; RunInference gets them
whole (`should_skip_batching`). Outputs are committed as one process commits them: hypotheses shards through
the dataset writer's functions, then `_hypotheses.json` last; the normalized text from per-chunk parts
concatenated into the output file (written atomically) once the job has finished.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.ml.inference.base import ModelHandler, RunInference

from tnforge import hypotheses, schemas
from tnforge.datasets import shard_name, split_shards, write_shard
from tnforge.decode_units import DecodeUnit, decode_columns, decode_units, unit_batches, unit_rows
from tnforge.filesystems import (
    is_file,
    join,
    read_bytes,
    remove,
    remove_temporaries,
    write_atomically,
    write_text,
)
from tnforge.pipelines.writer import piece_digest
from tnforge.reading.normalizer import CHUNK  # the sentences one process reads together

#: The model side, imported by name inside the workers only.
WORKER = "tnforge.trainers.inference_worker"


def worker() -> Any:
    """The model side's module (`trainers/inference_worker.py`), imported on first use in this process."""
    return importlib.import_module(WORKER)


def load_reader(spec: ReaderSpec) -> Any:
    """The raw-text reader (`tnforge.Normalizer.load`: the normalizer with its grammar attached inside, or a
    model run with its tagger) on the worker's device: the one place the Beam path gets it."""
    from tnforge.reading import Normalizer

    return Normalizer.load(spec.model, spec.device, spec.threads, tagger=spec.tagger, guard=spec.guard,
                           beam=spec.beam, batch_size=spec.batch_size, confidence=spec.confidence,
                           threshold=spec.threshold, corpus_letters=spec.corpus_letters,
                           punctuation=spec.punctuation, lexicon=spec.lexicon, force_lexicon=spec.force_lexicon)


@dataclass(frozen=True)
class DecodeSpec:
    """What a worker needs to decode: the model and its constraints, and the decoding settings."""

    model: str
    device: str = "auto"
    threads: int = 0
    seq_de: str | None = None
    voc_de: str | None = None
    grammar_constraint: bool = False
    weight: Any = 5.0  # λ: a number, or λ per class (trainers.decoding.class_weights.ClassWeights)
    beam: int = 4
    top_k: int = 1


def columns_of(records: Sequence[dict[str, Any]]) -> dict[str, list]:
    """Records (one dict a row) as columns."""
    return {name: [record[name] for record in records] for name in records[0]} if records else {}


class DecodeHandler(ModelHandler):
    """RunInference's handler for `decode`: an element is one decode batch (a list of example rows); the
    prediction is (its HYPOTHESES table, its number of inputs)."""

    def __init__(self, spec: DecodeSpec) -> None:
        super().__init__()
        self.spec = spec

    def load_model(self) -> Any:
        grammar = None
        if self.spec.grammar_constraint:
            from tnforge.grammars import adapter

            grammar = adapter.reading_words()
        s = self.spec
        return worker().load_decoder(s.model, s.device, s.threads, s.seq_de, s.voc_de, grammar, s.weight)

    def run_inference(self, batch: Sequence[dict[str, Any]], model: Any,
                      inference_args: dict[str, Any] | None = None) -> Iterable[pa.Table]:
        table = worker().decode_batch_table(model, columns_of(batch), self.spec.beam, self.spec.top_k)
        return [(table, len(batch))]

    def should_skip_batching(self) -> bool:
        return True  # the elements are the batches (see the module's docstring)

    def get_num_bytes(self, batch: Sequence[dict[str, Any]]) -> int:
        return sum(len(str(record.get("input", ""))) for record in batch)

    def get_metrics_namespace(self) -> str:
        return "tnforge_decode"


def batch_records(unit: DecodeUnit, columns: Sequence[str], split: str | None, batch_size: int,
                  originals_only: bool) -> Iterator[list[dict[str, Any]]]:
    """A unit's decode batches, each as a list of row records."""
    for rows in unit_batches(unit_rows(unit, columns, split, originals_only), batch_size):
        yield [dict(zip(rows, values, strict=True)) for values in zip(*rows.values(), strict=True)]


def write_hypotheses_shard(out: str, count: int, element: tuple[int, Iterable[pa.Table | None]]) -> int:
    """Write shard `element[0]` (of `count`) of a hypotheses folder from its pieces; its rows."""
    shard, pieces = element
    tables = sorted((p for p in pieces if p is not None), key=piece_digest)
    table = pa.concat_tables(tables) if tables else schemas.HYPOTHESES.empty_table()
    write_shard(table, join(out, shard_name(shard, count)), schemas.HYPOTHESES)
    return table.num_rows


#: The decode job's count of inputs, beside its shards until the launcher reads it (hidden: no reader lists it).
COUNT = ".inputs-decoded"


def write_count(out: str, inputs: int) -> None:
    write_text(join(out, COUNT), str(inputs))


def decode_pipeline(pipeline: beam.Pipeline, files: Sequence[object], out: str, spec: DecodeSpec,
                    split: str | None, batch_size: int, copies: bool, shards: int) -> None:
    """Add the decode job to `pipeline`: units → batches → RunInference → shards of `out` (and the count of
    inputs decoded, in `out`/.inputs-decoded)."""
    columns = decode_columns(files)
    units = decode_units(files)
    decoded = (pipeline | "Units" >> beam.Create(units) | "SpreadUnits" >> beam.Reshuffle()
               | "Batches" >> beam.FlatMap(batch_records, columns, split, batch_size, not copies)
               | "SpreadBatches" >> beam.Reshuffle()
               | "Decode" >> RunInference(DecodeHandler(spec)))
    pieces = decoded | "ByShard" >> beam.FlatMap(lambda done: split_shards(done[0], shards).items())
    every = pipeline | "EveryShard" >> beam.Create([(shard, None) for shard in range(shards)], reshuffle=False)
    _ = ((pieces, every) | "WithEmptyShards" >> beam.Flatten() | "GroupShards" >> beam.GroupByKey()
         | "WriteShards" >> beam.Map(lambda element: write_hypotheses_shard(out, shards, element)))
    _ = (decoded | "Inputs" >> beam.Map(lambda done: done[1]) | "CountInputs" >> beam.CombineGlobally(sum)
         | "WriteCount" >> beam.Map(lambda inputs: write_count(out, inputs)))


def run(pipeline: beam.Pipeline, options: Any, cleanup: str) -> bool:
    """Run `pipeline` to its end (False: a Dataflow dry run, nothing ran); temporaries under `cleanup` removed."""
    from tnforge.pipelines.runner import is_dry_run, quiet_worker_errors
    from tnforge.progress import quiet_library_logs

    try:
        with quiet_library_logs(), quiet_worker_errors():
            result = pipeline.run()
            if is_dry_run(options):
                return False
            result.wait_until_finish()
    finally:
        if not is_dry_run(options):
            remove_temporaries(cleanup)
    return True


def decode_on_beam(data: str | Sequence[object], out: str, spec: DecodeSpec, pipeline_args: Sequence[str],
                   split: str | None = None, batch_size: int = 64, copies: bool = False,
                   rows_per_file: int = 1_000_000) -> dict[str, Any] | None:
    """`tnforge decode … -- BEAM_OPTIONS`: the hypotheses of examples (`data`: a dataset, folder or file as `--data`
    takes it, or the examples files) into a new folder `out` (local or
    gs://), the same bytes as `trainers.decoding.outputs.write_hypotheses`; its `_hypotheses.json` (None after
    a dry run; nothing is written when there is nothing to decode)."""
    from tnforge.decode_units import example_files, row_bound
    from tnforge.pipelines.runner import is_dry_run, make_pipeline, pipeline_options, require_shared

    files = example_files(data, split) if isinstance(data, (str, os.PathLike)) else data

    if out.endswith(".parquet"):
        raise ValueError(f"{out}: on Beam, --out is a folder (its shards and _hypotheses.json), not one file")
    options = pipeline_options(pipeline_args)
    require_shared(options, {"examples file": files[0] if files else None, "output folder": out})
    if not is_dry_run(options):  # a dry run touches no output (its bucket may not exist offline)
        hypotheses.refuse_existing(out)
    pipeline = make_pipeline(options)
    decode_pipeline(pipeline, files, out, spec, split, batch_size, copies,
                    hypotheses.shard_count(row_bound(files), spec.top_k, rows_per_file))
    if not run(pipeline, options, out):
        return None
    inputs = int(read_bytes(join(out, COUNT)))
    remove(join(out, COUNT))
    if not inputs:  # nothing to decode: nothing written, as in one process
        remove(out)
        return hypotheses.settings(split, spec.beam, spec.top_k, copies, 0) | {"rows": 0, "parts": []}
    return hypotheses.write_marker(out, hypotheses.settings(split, spec.beam, spec.top_k, copies, inputs))


def described(record: dict[str, Any] | None, out: str) -> str:
    """The closing line of `decode` on Beam."""
    if record is None:
        return f"dry run: the decode job graph was built; nothing was decoded or written to {out}"
    return (f"decoded {record['inputs']:,} inputs → {record['rows']:,} hypotheses in {len(record['parts'])} file(s) "
            f"at {out} (beam {record['beam']}, top-k {record['top_k']}, on Beam; {hypotheses.MARKER} written last)")


def best_readings_on_beam(files: Sequence[object], spec: DecodeSpec, pipeline_args: Sequence[str],
                          split: str | None, batch_size: int) -> dict[int, str]:
    """The decoding half of `tnforge evaluate … -- BEAM_OPTIONS`: key → best reading of every original example
    (none: no reading), decoded on Beam into a scratch folder (under `--temp_location` when given, for workers
    elsewhere; else a local temporary folder) that is removed after."""
    import tempfile
    import uuid

    from apache_beam.options.pipeline_options import GoogleCloudOptions, PipelineOptions

    from tnforge.filesystems import read_parquet

    if "key" not in decode_columns(files):
        raise ValueError(f"{files[0]}: no 'key' column: evaluating on Beam needs the examples' keys")
    temp = PipelineOptions(list(pipeline_args)).view_as(GoogleCloudOptions).temp_location
    scratch = join(temp, f"tnforge-evaluate-{uuid.uuid4().hex[:12]}") if temp else tempfile.mkdtemp(
        prefix="tnforge-evaluate-")
    try:
        remove(scratch)  # a local temporary folder: decode_on_beam writes only into a new one
        decode_on_beam(files, scratch, replace(spec, top_k=1), pipeline_args, split, batch_size)
        readings: dict[int, str] = {}
        for part in hypotheses.complete_parts(scratch) if is_file(join(scratch, hypotheses.MARKER)) else []:
            table = read_parquet(part, columns=["key", "rank", "hypothesis"])
            readings.update(zip(table.column("key").to_pylist(), table.column("hypothesis").to_pylist(), strict=True))
        return readings
    finally:
        remove(scratch)


@dataclass(frozen=True)
class BeamDecoding:
    """The adversarial loop's decoding on Beam (`trainers.adversarial_loop.LoopDecoding`): `tnforge loop …
    -- BEAM_OPTIONS` decodes each round's top-k and its evaluation split with these pipelines, the workers
    reading each round's vocabulary filter from its run folder (on gs:// when the loop's work folder is)."""

    spec: DecodeSpec  # the model, device, threads, weight λ and beam of the loop (the filter and top-k per step)
    pipeline_args: tuple[str, ...]
    batch_size: int

    def hypotheses(self, files: Sequence[object], out: str, filter: str | None) -> None:
        spec = replace(self.spec, voc_de=filter, beam=max(self.spec.beam, self.spec.top_k))
        decode_on_beam(list(files), out, spec, self.pipeline_args, "train", self.batch_size)

    def best_readings(self, files: Sequence[object], split: str, filter: str) -> dict[int, str]:
        return best_readings_on_beam(list(files), replace(self.spec, voc_de=filter), self.pipeline_args, split,
                                     self.batch_size)


#: What `tnforge loop … -- --runner=DataflowRunner … --dry_run=True` says.
DRY_RUN = "dry run: the loop's first decode job graph was built; nothing was decoded, trained or written to {out}"


def loop_decoding(o: Options, pipeline_args: Sequence[str], train_files: Sequence[object]) -> BeamDecoding | None:
    """`tnforge loop … -- BEAM_OPTIONS`: the loop's decoding on Beam with its options `o`; None after a Dataflow
    dry run, which builds the first round's decode job graph and writes nothing. On Dataflow, a local dataset or
    work folder is refused (the workers cannot reach it)."""
    from tnforge.pipelines.runner import is_dry_run, pipeline_options, require_shared

    spec = DecodeSpec(o["model"], o["device"], o["threads"], weight=o["weight"], beam=o["beam"], top_k=o["top_k"])
    decoding = BeamDecoding(spec, tuple(pipeline_args), o["batch_size"])
    options = pipeline_options(pipeline_args)
    if is_dry_run(options):
        decoding.hypotheses(train_files, join(o["out"], "round-1", "hypotheses"), None)
        return None
    require_shared(options, {"dataset directory": o["data"], "work folder": o["out"]})
    return decoding


# --- normalize --file ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReaderSpec:
    """What a worker needs to normalize: `normalize`'s options (`tnforge.Normalizer.load`'s arguments)."""

    model: str
    tagger: str | None = None
    device: str = "auto"
    threads: int = 0
    guard: bool = True
    beam: int | None = None  # None: the defaults
    batch_size: int | None = None
    confidence: float | None = None  # None: the normalizer's
    threshold: float | None = None  # None: the normalizer's
    corpus_letters: bool = False
    punctuation: str = "drop"
    lexicon: str | None = None
    force_lexicon: bool = False


class NormalizeHandler(ModelHandler):
    """RunInference's handler for `normalize --file`: an element is (chunk index, first line, lines); the
    prediction is (chunk index, the chunk's spoken text and counts)."""

    def __init__(self, spec: ReaderSpec) -> None:
        super().__init__()
        self.spec = spec

    def load_model(self) -> Any:
        return load_reader(self.spec)

    def run_inference(self, batch: Sequence[tuple[int, int, list[str]]], model: Any,
                      inference_args: dict[str, Any] | None = None) -> Iterable[tuple[int, dict[str, Any]]]:
        index, first, texts = batch
        return [(index, normalize_chunk(model, first, texts))]

    def should_skip_batching(self) -> bool:
        return True

    def get_num_bytes(self, batch: Any) -> int:
        return sum(len(text) for text in batch[2])

    def get_metrics_namespace(self) -> str:
        return "tnforge_normalize"


def normalize_chunk(normalizer: Any, first_line: int, texts: list[str]) -> dict[str, Any]:
    """One chunk of lines read (as `tnforge.reading.streams.normalize_lines` reads a chunk): its spoken text, one
    line each, and what is counted of it (`unlicensed` with line numbers counted from `first_line`)."""
    readings = normalizer.read_batch(texts)
    return {"text": "".join(normalizer.spoken(reading) + "\n" for reading in readings),
            "sentences": len(readings), "tokens": sum(len(r.tokens) for r in readings),
            "decoded": sum(sum(r.decoded) for r in readings),
            "unlicensed": [[first_line + s, *rest] for s, *rest in normalizer.unlicensed(readings)],
            "checked": normalizer.guarded}


def line_chunks(source: str) -> Iterator[tuple[int, int, list[str]]]:
    """(chunk index, its first line's number, its lines) of a text file, CHUNK lines a chunk, read as
    `normalize --file` reads it (UTF-8; a line that is not: one error naming the file and line)."""
    import io

    from tnforge.reading.streams import text_lines

    lines = [line for line in text_lines(io.BytesIO(read_bytes(source)), source) if line is not None]
    for index, start in enumerate(range(0, len(lines), CHUNK)):
        yield index, start + 1, lines[start:start + CHUNK]


def part_path(parts: str, index: int) -> str:
    return join(parts, f"chunk-{index:06d}.json")


def write_part(parts: str, element: tuple[int, dict[str, Any]]) -> None:
    index, done = element
    write_text(part_path(parts, index), json.dumps(done))


def normalize_on_beam(source: str, out: str, spec: ReaderSpec, pipeline_args: Sequence[str]) -> Any:
    """`tnforge normalize --file SOURCE --out OUT -- BEAM_OPTIONS`: the spoken sentences of a text file (local or
    gs://) written to `out` atomically once every chunk is done, the same bytes as the single process; what was
    done, as one process says it (`tnforge.reading.streams.Normalized`; nothing after a dry run)."""
    import time

    from tnforge.pipelines.runner import make_pipeline, pipeline_options, require_shared
    from tnforge.reading.streams import Normalized

    started = time.monotonic()
    if source == "-" or out == "-":
        raise ValueError("on Beam (options after --), --file and --out are files (local or gs://), not standard "
                         "input or output")
    if not is_file(source):
        raise FileNotFoundError(f"{source}: no such file")
    options = pipeline_options(pipeline_args)
    require_shared(options, {"input file": source, "output file": out})
    parts = out + ".parts"  # scratch: one part a chunk, removed once the output is written
    remove(parts)
    pipeline = make_pipeline(options)
    _ = (pipeline | "Source" >> beam.Create([source]) | "Chunks" >> beam.FlatMap(line_chunks)
         | "Spread" >> beam.Reshuffle() | "Normalize" >> RunInference(NormalizeHandler(spec))
         | "WriteParts" >> beam.Map(lambda element: write_part(parts, element)))
    if not run(pipeline, options, parts):
        return Normalized(0, 0, 0, time.monotonic() - started)
    totals: dict[str, Any] = {"sentences": 0, "tokens": 0, "decoded": 0, "unlicensed": [], "chunks": 0,
                              "checked": True}
    with write_atomically(out) as handle:
        index = 0
        while is_file(part_path(parts, index)):
            done = json.loads(read_bytes(part_path(parts, index)))
            handle.write(done["text"].encode("utf-8"))
            for name in ("sentences", "tokens", "decoded", "unlicensed"):
                totals[name] += done[name]
            totals["checked"] = totals["checked"] and done["checked"]
            index += 1
        totals["chunks"] = index
    remove(parts)
    return Normalized(totals["sentences"], totals["tokens"], totals["decoded"], time.monotonic() - started,
                      tuple(tuple(row) for row in totals["unlicensed"]), not totals["checked"])


# --- the commands' Beam modes (`tnforge decode|evaluate|normalize … -- BEAM_OPTIONS`) ---------------------------

Options = Mapping[str, Any]  # a command's option values, as click parsed them (`click.Context.params`)


def decode_spec(o: Options, top_k: int | None = None) -> DecodeSpec:
    return DecodeSpec(o["model"], o["device"], o["threads"], o["seq_de"], o["voc_de"], o["grammar_constraint"],
                      o["weight"], o["beam"], o["top_k"] if top_k is None else top_k)


def decode_command(o: Options, pipeline_args: Sequence[str]) -> str:
    """`tnforge decode` on Beam: its closing line."""
    if o["raw"]:
        raise ValueError("--raw decodes in one process: drop the Beam options after --")
    return described(decode_on_beam(o["data"], o["out"], decode_spec(o), pipeline_args, o["split"], o["batch_size"],
                                    o["copies"], o["rows_per_file"]), o["out"])


def best_readings_command(o: Options, pipeline_args: Sequence[str], files: Sequence[object]) -> dict[int, str]:
    """The decoding half of `tnforge evaluate` on Beam (`best_readings_on_beam`)."""
    return best_readings_on_beam(files, decode_spec(o, top_k=1), pipeline_args, o["split"], o["batch_size"])


def normalize_command(o: Options, pipeline_args: Sequence[str]) -> tuple[str, int]:
    """`tnforge normalize --file` on Beam: (its summary for stderr, its exit status)."""
    spec = ReaderSpec(o["model"], o["tagger"], o["device"], o["threads"], not o["unguarded"], o["beam"],
                      o["batch_size"], o["confidence"], o["threshold"], o["corpus_letters"], o["punctuation"],
                      o["lexicon"], o["force_lexicon"])
    done = normalize_on_beam(o["source"] or "-", o["out"], spec, pipeline_args)
    return done.describe(o["out"]), int(o["fail_on_unrecoverable"] and bool(done.unchecked or done.unlicensed))
