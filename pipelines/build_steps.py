"""File-level steps of the dataset build, in plain Python over Arrow arrays (Beam calls them per file).

Pass 1 (`parse_file`) reads a corpus file once, routes each sentence to its split, counts what the
global sampling plan needs, and writes the parsed tokens to an Arrow IPC cache beside the output.
Pass 2 (`build_file`) reads that cache and, with the plan, makes the example, sentence and pair tables
with vectorised Arrow/NumPy operations: no per-token Python objects on the hot path.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge import schemas
from tnforge.class_inference import ClassInference
from tnforge.filesystems import open_arrow_file, write_atomically
from tnforge.generators.augmentation import Augmentation, AugmentedCopy, SubstitutionPool, augment
from tnforge.generators.grammar_classes import GrammarClasses
from tnforge.generators.leading_readings import Deference, LeadingReadings
from tnforge.generators.sampling import SamplingPlan, TrainStats, sample_hashes, upsample_group
from tnforge.generators.synthesis import Synthesis, chosen_forms, synthesis_keys, synthesized_sentences
from tnforge.hashing import key64, stable_hash64
from tnforge.pipelines.build_config import BuildConfig
from tnforge.readers import read_corpus_file
from tnforge.sources import InputFile, synthesized_source
from tnforge.splits import EXCLUDED
from tnforge.token_blocks import FileReport, TokenBlock

SPLIT_NAMES = ("train", "dev", "test", EXCLUDED)
SPLIT_CODES = {name: code for code, name in enumerate(SPLIT_NAMES)}
_TRIVIAL = pa.array(sorted(schemas.TRIVIAL_TARGETS), pa.string())
CACHE_SCHEMA = pa.schema([
    ("sentence_id", pa.int64()), ("token_index", pa.int32()), ("line", pa.int64()), ("split", pa.int8()),
    ("text_hash", pa.uint64()), ("class", pa.string()), ("before", pa.string()), ("after", pa.string()),
])


@dataclass
class SplitCounts:
    """Token and example counts of one split, by class."""

    tokens: Counter = field(default_factory=Counter)
    examples: Counter = field(default_factory=Counter)
    trivial_tokens: int = 0
    trivial_examples: int = 0
    sampled_out: int = 0
    copies: int = 0
    sentences: int = 0
    augmented_sentences: int = 0  # --augment-sentences: substituted copies written (train only)
    substituted: int = 0  # tokens substituted in them
    augmented_dropped: int = 0  # copies that read like a dev or test sentence, left out
    synthesized: Counter = field(default_factory=Counter)  # --synthesize: examples placed, by class (train only)
    deferred: Counter = field(default_factory=Counter)  # --defer-to-first: tokens left out, by class (train only)
    synthesized_sentences: int = 0  # --synthesize: sentences with synthesized tokens written (train only)
    synthesized_dropped: int = 0  # such sentences that read like a dev or test sentence, left out

    def merge(self, other: SplitCounts) -> SplitCounts:
        self.tokens.update(other.tokens)
        self.examples.update(other.examples)
        self.trivial_tokens += other.trivial_tokens
        self.trivial_examples += other.trivial_examples
        self.sampled_out += other.sampled_out
        self.copies += other.copies
        self.sentences += other.sentences
        self.augmented_sentences += other.augmented_sentences
        self.substituted += other.substituted
        self.augmented_dropped += other.augmented_dropped
        self.synthesized.update(other.synthesized)
        self.deferred.update(other.deferred)
        self.synthesized_sentences += other.synthesized_sentences
        self.synthesized_dropped += other.synthesized_dropped
        return self


@dataclass
class FileStats:
    """What pass 1 learns about one file."""

    path: str
    size: int
    cache: str
    index: int = 0
    source: str = ""
    key_name: str = ""
    sha256: str = ""
    report: FileReport | None = None
    splits: dict[str, SplitCounts] = field(default_factory=lambda: {s: SplitCounts() for s in schemas.SPLITS})
    excluded: int = 0
    train: TrainStats = field(default_factory=TrainStats)
    pool: SubstitutionPool | None = None  # --augment-sentences: this file's substitutes
    held_out: set[int] = field(default_factory=set)  # --augment-sentences: dev/test sentence text hashes
    readings: LeadingReadings | None = None  # --defer-to-first: the leading input's train readings


def _value_counts(values: pa.Array) -> Counter:
    counts = pc.value_counts(values)
    return Counter(dict(zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True)))


def _keys(base: int, sentence_ids: np.ndarray, token_index: np.ndarray) -> np.ndarray:
    return key64(base, sentence_ids, token_index)


def _route(block: TokenBlock, config: BuildConfig, file_split: str | None) -> tuple[list[int], np.ndarray]:
    """Text hash and split code of each sentence of a block."""
    rule = config.split_rule
    written = pc.binary_join(pa.ListArray.from_arrays(pa.array(block.offsets, pa.int32()), block.befores), " ")
    hashes = [stable_hash64(text) for text in written.to_pylist()]
    last_lines = block.lines.to_numpy()[block.offsets[1:] - 1]
    codes = np.fromiter(
        (SPLIT_CODES[rule.sentence_split(file_split, h, int(line))] for h, line in zip(hashes, last_lines, strict=True)),
        dtype=np.int8, count=len(hashes),
    )
    return hashes, codes


def parse_file(source: InputFile, cache: str, config: BuildConfig, index: int = 0,
               leading: frozenset[str] = frozenset()) -> Iterator[FileStats | pa.Table]:
    """Pass 1: yield reject tables as found, then the file's FileStats; the parsed tokens go to `cache`. A file of
    the leading input (`leading` sources, with --defer-to-first) also gathers its train readings, and alone
    gives the substitutes that augmentation and synthesis draw from (and learn conventions from)."""
    path = source.path
    report = FileReport(path)
    stats = FileStats(path, source.size, cache, index, source.source, source.key_name, report=report)
    digest = hashlib.sha256()
    base = stable_hash64(source.key_name)
    options = config.sampling
    file_split = config.split_rule.file_split(path) if config.split == "standard" else None
    follows = config.defer_to_first and source.source not in leading
    if config.augment_sentences or config.synthesize:
        stats.pool = SubstitutionPool(seed=config.seed)
    if config.defer_to_first and not follows:
        stats.readings = LeadingReadings()
    with write_atomically(cache) as handle, pa.ipc.new_file(handle, CACHE_SCHEMA) as writer:
        for item in read_corpus_file(path, report, config.max_token_chars, digest, source.source,
                                     flavour=config.input_format,
                                     infer=ClassInference(GrammarClasses(), restore=config.restore_tokens)):
            if isinstance(item, pa.Table):
                yield item
                continue
            hashes, sentence_codes = _route(item, config, file_split)
            lengths = np.diff(item.offsets)
            codes = np.repeat(sentence_codes, lengths)
            token_index = (np.arange(item.num_tokens) - np.repeat(item.offsets[:-1], lengths)).astype(np.int32)
            sentence_ids = np.repeat(item.sentence_ids, lengths)
            writer.write_batch(pa.record_batch([
                pa.array(sentence_ids, pa.int64()), pa.array(token_index, pa.int32()), item.lines,
                pa.array(codes, pa.int8()), pa.array(np.repeat(np.asarray(hashes, dtype=np.uint64), lengths)),
                item.classes, item.befores, item.afters,
            ], schema=CACHE_SCHEMA))
            trivial = pc.is_in(item.afters, value_set=_TRIVIAL).to_numpy(zero_copy_only=False)
            for name, code in SPLIT_CODES.items():
                mask = codes == code
                if not mask.any():
                    continue
                if name == EXCLUDED:
                    stats.excluded += int(mask.sum())
                    continue
                counts = stats.splits[name]
                counts.sentences += int((sentence_codes == code).sum())
                counts.tokens.update(_value_counts(item.classes.filter(pa.array(mask))))
                counts.trivial_tokens += int((mask & trivial).sum())
            train = codes == SPLIT_CODES["train"]
            if stats.pool is not None:
                held_out = np.isin(sentence_codes, [SPLIT_CODES["dev"], SPLIT_CODES["test"]])
                stats.held_out.update(np.asarray(hashes, dtype=np.uint64)[held_out].tolist())
                chosen = pa.array(train & ~trivial & (not follows))
                stats.pool.add(item.classes.filter(chosen), item.befores.filter(chosen), item.afters.filter(chosen))
            if not train.any():
                continue
            if stats.readings is not None:
                stats.readings.add(item.befores.filter(pa.array(train)), item.afters.filter(pa.array(train)))
            u = sample_hashes(_keys(base, sentence_ids, token_index), config.seed)
            stats.train.add_trivial(u[train & trivial])
            nontrivial = train & ~trivial
            stats.train.nontrivial += int(nontrivial.sum())
            candidates = nontrivial & pc.is_in(item.classes, value_set=pa.array(["MEASURE", "CARDINAL"])).to_numpy(
                zero_copy_only=False)
            for i in np.nonzero(candidates)[0]:
                group = upsample_group(item.befores[i].as_py(), item.classes[i].as_py(), options)
                if group:
                    stats.train.add_group_member(group, int(u[i]), options)
    stats.sha256 = digest.hexdigest()
    yield stats


def read_cache(cache: str) -> Iterator[pa.RecordBatch]:
    """The record batches pass 1 wrote for a file."""
    reader = open_arrow_file(cache)
    for i in range(reader.num_record_batches):
        yield reader.get_batch(i)


@dataclass
class FileOutput:
    """Counts of what pass 2 made of one file, and its positive pairs (split, class, before, after, count)."""

    splits: dict[str, SplitCounts] = field(default_factory=lambda: {s: SplitCounts() for s in schemas.SPLITS})
    pairs: pa.Table | None = None


def windows(befores: pa.Array, sentence_ids: np.ndarray, chosen: np.ndarray, width: int) -> pa.Array:
    """Window inputs of tokens `chosen` (indexes into a batch of whole sentences), vectorised.

    Same result as `tnforge.windows.window_input` on each token's sentence.
    """
    n = len(befores)
    center = pc.binary_join_element_wise(
        schemas.NORM_OPEN, befores.take(pa.array(chosen)), schemas.NORM_CLOSE, " ")
    parts = []
    for offset in [*range(-width, 0), None, *range(1, width + 1)]:
        if offset is None:
            parts.append(center)
            continue
        neighbour = chosen + offset
        inside = (neighbour >= 0) & (neighbour < n)
        clipped = np.clip(neighbour, 0, max(n - 1, 0))
        same = inside & (sentence_ids[clipped] == sentence_ids[chosen])
        parts.append(pc.if_else(pa.array(same), befores.take(pa.array(clipped)), pa.scalar(None, pa.string())))
    return pc.binary_join_element_wise(*parts, " ", null_handling="skip")


def _sides(window: str) -> tuple[str, str]:
    """A window input's text up to and including the open marker, and from the close marker on."""
    start = window.index(schemas.NORM_OPEN) + len(schemas.NORM_OPEN) + 1
    end = window.rindex(schemas.NORM_CLOSE) - 1
    return window[:start], window[end:]


def build_file(
    input_file: InputFile, cache: str, config: BuildConfig, plan: SamplingPlan,
    augmentation: Augmentation | None = None, synthesis: Synthesis | None = None, deference: Deference | None = None,
) -> Iterator[tuple[tuple[str, str], pa.Table] | FileOutput]:
    """Pass 2: yield non-empty ((dataset, split), table) pieces, then the file's FileOutput. With
    `augmentation`, the train split's sentences also get their augmented copies (sentences only); with
    `synthesis`, the train tokens of its rare classes get synthesized examples (and their positive pairs) and
    their sentences copies with the same synthesized tokens; with `deference`, train tokens the leading input
    reads otherwise are left out of examples and pairs."""
    source = input_file.source
    base = stable_hash64(input_file.key_name)
    output = FileOutput()
    copies_u = np.fromiter(plan.copies.keys(), dtype=np.uint64, count=len(plan.copies))
    pair_tables = []
    for batch in read_cache(cache):
        sentence_ids = batch.column("sentence_id").to_numpy()
        token_index = batch.column("token_index").to_numpy()
        codes = batch.column("split").to_numpy()
        classes, befores, afters = batch.column("class"), batch.column("before"), batch.column("after")
        keys = _keys(base, sentence_ids, token_index)
        u = sample_hashes(keys, config.seed)
        trivial = pc.is_in(afters, value_set=_TRIVIAL).to_numpy(zero_copy_only=False)
        train = codes == SPLIT_CODES["train"]
        deferred = train & deference.deferred(source, befores, afters) if deference else np.zeros(len(codes), bool)
        keep = (codes == SPLIT_CODES["dev"]) | (codes == SPLIT_CODES["test"]) | (train & ~trivial)
        train_trivial = np.nonzero(train & trivial)[0]
        keep[train_trivial[plan.keep_trivial(u[train_trivial])]] = True
        keep &= ~deferred
        repeat = np.ones(len(keep), dtype=np.int64)
        if len(copies_u):
            for i in np.nonzero(train & ~trivial & np.isin(u, copies_u))[0]:
                repeat[i] = plan.copies[int(u[i])]
        chosen = np.nonzero(keep & (codes != SPLIT_CODES[EXCLUDED]))[0]
        inputs = windows(befores, sentence_ids, chosen, config.window)
        rows = np.repeat(chosen, repeat[chosen])
        within = np.repeat(np.arange(len(chosen)), repeat[chosen])
        copy = np.arange(len(rows)) - np.repeat(np.cumsum(repeat[chosen]) - repeat[chosen], repeat[chosen])
        take = pa.array(rows)
        examples = pa.table({
            "key": pa.array(keys[rows], pa.uint64()),
            "split": pa.array(np.asarray(SPLIT_NAMES, dtype=object)[codes[rows]], pa.string()),
            "source": pa.array(np.full(len(rows), source, dtype=object), pa.string()),
            "line": batch.column("line").take(take),
            "sentence_id": pa.array(sentence_ids[rows], pa.int64()),
            "token_index": pa.array(token_index[rows], pa.int32()),
            "copy": pa.array(copy, pa.int32()),
            "class": classes.take(take),
            "before": befores.take(take),
            "after": afters.take(take),
            "trivial": pa.array(trivial[rows], pa.bool_()),
            "input": inputs.take(pa.array(within)),
        })
        for name in schemas.SPLITS:
            code = SPLIT_CODES[name]
            in_split = codes == code
            if not in_split.any():
                continue
            counts = output.splits[name]
            counts.sampled_out += int((in_split & ~keep & ~deferred).sum())
            counts.deferred.update(_value_counts(classes.filter(pa.array(in_split & deferred))))
            counts.copies += int((repeat[in_split & keep] - 1).sum())
            part = examples.filter(pa.array(codes[rows] == code))
            counts.examples.update(_value_counts(part.column("class")))
            counts.trivial_examples += int(trivial[rows][codes[rows] == code].sum())
            if part.num_rows:
                yield ("examples", name), part
            sentences = _sentence_table(batch, in_split, name, base, source)
            if sentences.num_rows:
                yield ("sentences", name), sentences
            if name == "train" and augmentation is not None and augmentation.copies:
                yield from _augmented(batch.filter(pa.array(in_split)), trivial[in_split], input_file,
                                      augmentation, counts)
            if name == "train" and synthesis is not None and synthesis.forms:
                skip = trivial | deferred
                for piece in _synthesized(batch, in_split & ~skip, input_file, synthesis, config.window, counts):
                    yield piece
                    if piece[0][0] == "examples":  # their pairs join the positives: negatives and DEs learn them
                        pair_tables.append(piece[1].select(["split", "class", "before", "after"]))
                yield from _copies(synthesized_sentences(batch.filter(pa.array(in_split)), skip[in_split],
                                                         input_file.key_name, input_file.source, synthesis), counts)
        pairs_mask = pa.array(~trivial & ~deferred & (codes != SPLIT_CODES[EXCLUDED]))
        pair_tables.append(pa.table({
            "split": pa.array(np.asarray(SPLIT_NAMES, dtype=object)[codes], pa.string()).filter(pairs_mask),
            "class": classes.filter(pairs_mask), "before": befores.filter(pairs_mask),
            "after": afters.filter(pairs_mask),
        }))
    if pair_tables:
        output.pairs = count_pairs(pa.concat_tables(pair_tables))
    yield output


def _augmented(tokens: pa.RecordBatch, trivial: np.ndarray, input_file: InputFile, augmentation: Augmentation,
               counts: SplitCounts) -> Iterator[tuple[tuple[str, str], pa.Table]]:
    """The augmented copies of a batch's train sentences as sentences pieces, counted in `counts`."""
    yield from _copies(augment(tokens, input_file.key_name, input_file.source, augmentation, trivial), counts,
                       augmented=True)


def _copies(copies: Iterable[AugmentedCopy], counts: SplitCounts,
            augmented: bool = False) -> Iterator[tuple[tuple[str, str], pa.Table]]:
    """Augmented (or synthesized) copies of train sentences as sentences pieces, counted in `counts`."""
    for copy in copies:
        if augmented:
            counts.augmented_dropped += copy.dropped
        else:
            counts.synthesized_dropped += copy.dropped
        if not copy.tokens.num_rows:
            continue
        table = _sentence_table(copy.tokens, np.ones(copy.tokens.num_rows, dtype=bool), "train", copy.base,
                                copy.source)
        if augmented:
            counts.augmented_sentences += table.num_rows
            counts.substituted += copy.substituted
        else:
            counts.synthesized_sentences += table.num_rows
        yield ("sentences", "train"), table


def _synthesized(batch: pa.RecordBatch, train: np.ndarray, input_file: InputFile, plan: Synthesis, width: int,
                 counts: SplitCounts) -> Iterator[tuple[tuple[str, str], pa.Table]]:
    """Synthesized examples of a batch's train tokens of the plan's rare classes: copy c (1..the class's
    `per_token`) of each such token is its window with the token replaced by the form `chosen_forms` gives it
    (its context as the sentence has it), keyed under the file's synthesized source."""
    class_list = batch.column("class").to_pylist()
    rare = [i for i in np.nonzero(train)[0].tolist() if class_list[i] in plan.forms]
    if not rare:
        return
    sentence_ids = batch.column("sentence_id").to_numpy()
    token_index = batch.column("token_index").to_numpy()
    rows = np.array(rare)
    keys = synthesis_keys(input_file.key_name, sentence_ids[rows], token_index[rows])
    sides = [_sides(window) for window in windows(batch.column("before"), sentence_ids, rows, width).to_pylist()]
    source = synthesized_source(input_file.source)
    tables = []
    for copy in range(1, max(plan.per_token[class_list[i]] for i in rare) + 1):
        chosen = [n for n, i in enumerate(rare) if plan.per_token[class_list[i]] >= copy]
        picked = [chosen_forms(plan, class_list[rare[n]], [int(keys[n])], copy)[0] for n in chosen]
        at = rows[chosen]
        tables.append(pa.table({
            "key": pa.array(keys[chosen], pa.uint64()),
            "split": pa.array(["train"] * len(chosen), pa.string()),
            "source": pa.array([source] * len(chosen), pa.string()),
            "line": batch.column("line").take(pa.array(at)),
            "sentence_id": pa.array(sentence_ids[at], pa.int64()),
            "token_index": pa.array(token_index[at], pa.int32()),
            "copy": pa.array(np.full(len(chosen), copy), pa.int32()),
            "class": pa.array([class_list[i] for i in at.tolist()], pa.string()),
            "before": pa.array([before for before, _after in picked], pa.string()),
            "after": pa.array([after for _before, after in picked], pa.string()),
            "trivial": pa.array(np.zeros(len(chosen), dtype=bool), pa.bool_()),
            "input": pa.array([sides[n][0] + before + sides[n][1] for n, (before, _after) in zip(chosen, picked,
                                                                                                 strict=True)],
                              pa.string()),
        }))
    table = pa.concat_tables(tables)
    placed = _value_counts(table.column("class"))
    counts.examples.update(placed)
    counts.synthesized.update(placed)
    counts.copies += table.num_rows  # rows made from a kept token, as up-sampling copies are (accounting)
    yield ("examples", "train"), table


def count_pairs(table: pa.Table) -> pa.Table:
    """Distinct (split, class, before, after) rows with their counts (a `count` column)."""
    if "count" not in table.column_names:
        table = table.append_column("count", pa.array(np.ones(table.num_rows, dtype=np.int64)))
    grouped = table.group_by(["split", "class", "before", "after"], use_threads=False).aggregate([("count", "sum")])
    return grouped.rename_columns(["split", "class", "before", "after", "count"])


def pair_keys(table: pa.Table) -> np.ndarray:
    """Stable keys of (class, before, after) pairs."""
    return np.fromiter(
        (stable_hash64(c, b, a) for c, b, a in zip(table.column("class").to_pylist(), table.column("before").to_pylist(),
                                                     table.column("after").to_pylist(), strict=True)),
        dtype=np.uint64, count=table.num_rows,
    )


def _sentence_table(batch: pa.RecordBatch, in_split: np.ndarray, split: str, base: int, source: str) -> pa.Table:
    tokens = batch.filter(pa.array(in_split))
    sentence_ids = tokens.column("sentence_id").to_numpy()
    starts = np.nonzero(np.concatenate([[True], sentence_ids[1:] != sentence_ids[:-1]]))[0]
    offsets = pa.array(np.concatenate([starts, [len(sentence_ids)]]), pa.int32())
    befores, afters = tokens.column("before"), tokens.column("after")
    # Spoken form: <self> reads the token, sil reads nothing, anything else its reading.
    voiced = pc.not_equal(afters, schemas.SIL)
    sentence_of = np.cumsum(np.isin(np.arange(len(sentence_ids)), starts)) - 1
    voiced_np = voiced.to_numpy(zero_copy_only=False)
    spoken_counts = np.bincount(sentence_of[voiced_np], minlength=len(starts))
    spoken_offsets = pa.array(np.concatenate([[0], np.cumsum(spoken_counts)]), pa.int32())
    # Each token's spoken form, resolved the same way (sil → ""): the token alignment sentence models train on.
    resolved = pc.if_else(pc.equal(afters, schemas.SELF), befores, afters)
    readings = pc.if_else(voiced, resolved, "")
    spoken = pc.binary_join(pa.ListArray.from_arrays(spoken_offsets, resolved.filter(voiced)), " ")
    ids = sentence_ids[starts]
    return pa.table({
        "key": pa.array(key64(base, ids, np.full(len(ids), -1)), pa.uint64()),
        "split": pa.array([split] * len(ids), pa.string()),
        "source": pa.array([source] * len(ids), pa.string()),
        "sentence_id": pa.array(ids, pa.int64()),
        "line": tokens.column("line").take(pa.array(starts)),
        "n_tokens": pa.array(np.diff(offsets.to_numpy()), pa.int32()),
        "text_hash": tokens.column("text_hash").take(pa.array(starts)),
        "written": pc.binary_join(pa.ListArray.from_arrays(offsets, befores), " "),
        "spoken": spoken,
        "tokens": pa.ListArray.from_arrays(offsets, befores),
        "classes": pa.ListArray.from_arrays(offsets, tokens.column("class")),
        "readings": pa.ListArray.from_arrays(offsets, readings),
    })
