"""File-level steps of the dataset build, in plain Python (Beam calls them once per input file).

Pass 1 (`file_stats`) reads a file and returns what the global sampling plan needs; pass 2
(`build_file`) reads it again and turns it into Arrow tables of examples, sentences and rejects, and
counts of positive pairs. Both move whole batches of sentences, never one dict per token.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from tnforge import schemas
from tnforge.datasets import shard_of
from tnforge.generators.sampling import SamplingPlan, TrainStats, sample_hashes, upsample_group
from tnforge.hashing import key64, stable_hash64
from tnforge.pipelines.build_config import BuildConfig
from tnforge.readers import FileReport, Reject, Sentence, read_corpus_file, source_name, source_stem
from tnforge.splits import EXCLUDED
from tnforge.windows import window_input

SPLIT_CODES = {"train": 0, "dev": 1, "test": 2, EXCLUDED: 3}
BATCH_TOKENS = 100_000
_TRIVIAL = schemas.TRIVIAL_TARGETS


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

    def merge(self, other: SplitCounts) -> SplitCounts:
        self.tokens.update(other.tokens)
        self.examples.update(other.examples)
        self.trivial_tokens += other.trivial_tokens
        self.trivial_examples += other.trivial_examples
        self.sampled_out += other.sampled_out
        self.copies += other.copies
        self.sentences += other.sentences
        return self


@dataclass
class FileStats:
    """What pass 1 learns about one file."""

    path: str
    size: int
    sha256: str = ""
    report: FileReport | None = None
    splits: dict[str, SplitCounts] = field(default_factory=lambda: {s: SplitCounts() for s in schemas.SPLITS})
    excluded: int = 0
    train: TrainStats = field(default_factory=TrainStats)


@dataclass
class _Batch:
    """Sentences of one batch, flattened to parallel per-token lists."""

    sentences: list[Sentence]
    splits: list[str]
    text_hashes: list[int]


def _batches(path: str, config: BuildConfig, report: FileReport, rejects: list[Reject], digest=None) -> Iterator[_Batch]:
    rule = config.split_rule
    file_split = rule.file_split(path) if rule.mode == "standard" else None
    batch = _Batch([], [], [])
    size = 0
    for item in read_corpus_file(path, report, config.max_token_chars, digest):
        if type(item) is Reject:
            rejects.append(item)
            continue
        text_hash = stable_hash64(" ".join(item.befores))
        batch.sentences.append(item)
        batch.text_hashes.append(text_hash)
        batch.splits.append(rule.sentence_split(file_split, text_hash, item.lines[-1]))
        size += len(item.lines)
        if size >= BATCH_TOKENS:
            yield batch
            batch = _Batch([], [], [])
            size = 0
    if batch.sentences:
        yield batch


def _flat(batch: _Batch, base: int, seed: int):
    """Per-token arrays of a batch: split code, sentence position, token index, keys, sampling hashes."""
    lengths = np.fromiter((len(s.lines) for s in batch.sentences), dtype=np.int64, count=len(batch.sentences))
    codes = np.repeat(np.fromiter((SPLIT_CODES[s] for s in batch.splits), dtype=np.int8), lengths)
    positions = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    token_index = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    sentence_ids = np.repeat(np.fromiter((s.sentence_id for s in batch.sentences), dtype=np.int64), lengths)
    keys = key64(base, sentence_ids, token_index)
    return codes, positions, token_index, keys, sample_hashes(keys, seed)


def file_stats(path: str, size: int, config: BuildConfig) -> FileStats:
    """Pass 1: counts per split and class, and the train statistics sampling needs."""
    report = FileReport(path)
    stats = FileStats(path, size, report=report)
    digest = hashlib.sha256()
    rejects: list[Reject] = []
    base = stable_hash64(source_stem(path))
    options = config.sampling
    for batch in _batches(path, config, report, rejects, digest):
        codes, positions, token_index, _, u = _flat(batch, base, config.seed)
        classes = [c for s in batch.sentences for c in s.classes]
        afters = [a for s in batch.sentences for a in s.afters]
        trivial = np.fromiter((a in _TRIVIAL for a in afters), dtype=bool, count=len(afters))
        for split, code in SPLIT_CODES.items():
            mask = codes == code
            if not mask.any():
                continue
            if split == EXCLUDED:
                stats.excluded += int(mask.sum())
                continue
            counts = stats.splits[split]
            counts.sentences += sum(1 for s in batch.splits if s == split)
            counts.tokens.update(c for c, m in zip(classes, mask, strict=True) if m)
            counts.trivial_tokens += int((mask & trivial).sum())
        train = codes == 0
        stats.train.add_trivial(u[train & trivial])
        nontrivial = np.nonzero(train & ~trivial)[0]
        stats.train.nontrivial += len(nontrivial)
        for i in nontrivial:
            if classes[i] in ("MEASURE", "CARDINAL"):
                before = batch.sentences[positions[i]].befores[token_index[i]]
                group = upsample_group(before, classes[i], options)
                if group:
                    stats.train.add_group_member(group, int(u[i]), options)
        del rejects[:]
    stats.sha256 = digest.hexdigest()
    return stats


@dataclass
class FileOutput:
    """What pass 2 makes of one file: tables by (dataset, split, shard), pair counts and example counts."""

    tables: list[tuple[tuple[str, str, int], pa.Table]] = field(default_factory=list)
    pairs: Counter = field(default_factory=Counter)
    splits: dict[str, SplitCounts] = field(default_factory=lambda: {s: SplitCounts() for s in schemas.SPLITS})


def build_file(path: str, config: BuildConfig, plan: SamplingPlan, shards: int) -> Iterator:
    """Pass 2: yield ((dataset, split, shard), table) pieces, then the file's FileOutput (counts, pairs)."""
    report = FileReport(path)
    output = FileOutput()
    rejects: list[Reject] = []
    source = source_name(path)
    base = stable_hash64(source_stem(path))
    width = config.window
    copies_u = np.fromiter(plan.copies.keys(), dtype=np.uint64, count=len(plan.copies))
    for batch in _batches(path, config, report, rejects):
        codes, positions, token_index, keys, u = _flat(batch, base, config.seed)
        sentences = batch.sentences
        classes = [c for s in sentences for c in s.classes]
        befores = [b for s in sentences for b in s.befores]
        afters = [a for s in sentences for a in s.afters]
        lines = [n for s in sentences for n in s.lines]
        trivial = np.fromiter((a in _TRIVIAL for a in afters), dtype=bool, count=len(afters))
        train = codes == 0
        keep = (codes == 1) | (codes == 2) | (train & ~trivial)
        train_trivial = np.nonzero(train & trivial)[0]
        keep[train_trivial[plan.keep_trivial(u[train_trivial])]] = True
        repeat = np.ones(len(keep), dtype=np.int64)
        if len(copies_u):
            candidates = np.nonzero(train & ~trivial & np.isin(u, copies_u))[0]
            for i in candidates:
                repeat[i] = plan.copies[int(u[i])]
        for split, code in (("train", 0), ("dev", 1), ("test", 2)):
            in_split = codes == code
            if not in_split.any():
                continue
            counts = output.splits[split]
            chosen = np.nonzero(in_split & keep)[0]
            counts.sampled_out += int(in_split.sum()) - len(chosen)
            rows = np.repeat(chosen, repeat[chosen])
            copy = np.arange(len(rows)) - np.repeat(np.cumsum(repeat[chosen]) - repeat[chosen], repeat[chosen])
            counts.copies += int(len(rows) - len(chosen))
            row_classes = [classes[i] for i in rows]
            counts.examples.update(row_classes)
            row_trivial = trivial[rows]
            counts.trivial_examples += int(row_trivial.sum())
            windows = {}
            for i in chosen:
                windows[i] = window_input(sentences[positions[i]].befores, int(token_index[i]), width)
            table = pa.table({
                "key": pa.array(keys[rows], pa.uint64()),
                "split": pa.array([split] * len(rows), pa.string()),
                "source": pa.array([source] * len(rows), pa.string()),
                "line": pa.array([lines[i] for i in rows], pa.int64()),
                "sentence_id": pa.array([sentences[positions[i]].sentence_id for i in rows], pa.int64()),
                "token_index": pa.array(token_index[rows], pa.int32()),
                "copy": pa.array(copy, pa.int32()),
                "class": pa.array(row_classes, pa.string()),
                "before": pa.array([befores[i] for i in rows], pa.string()),
                "after": pa.array([afters[i] for i in rows], pa.string()),
                "trivial": pa.array(row_trivial, pa.bool_()),
                "input": pa.array([windows[i] for i in rows], pa.string()),
            })
            output.tables.extend(_sharded("examples", split, table, shards))
            for i in np.nonzero(in_split & ~trivial)[0]:
                output.pairs[(split, classes[i], befores[i], afters[i])] += 1
        for split in schemas.SPLITS:
            picked = [j for j, s in enumerate(batch.splits) if s == split]
            if picked:
                output.tables.extend(_sharded("sentences", split, _sentence_table(batch, picked, split, base), shards))
    if rejects:
        output.tables.append((("rejects", "", 0), _reject_table(rejects)))
    yield from output.tables
    output.tables = []
    yield output


def _sharded(name: str, split: str, table: pa.Table, shards: int) -> list[tuple[tuple[str, str, int], pa.Table]]:
    if not table.num_rows:
        return []
    index = shard_of(table.column("key").to_numpy(), shards)
    return [((name, split, int(s)), table.filter(pa.array(index == s))) for s in np.unique(index)]


def _sentence_table(batch: _Batch, picked: list[int], split: str, base: int) -> pa.Table:
    sentences = [batch.sentences[j] for j in picked]
    ids = np.fromiter((s.sentence_id for s in sentences), dtype=np.int64, count=len(sentences))
    spoken = [
        " ".join(b if a == schemas.SELF else a for b, a in zip(s.befores, s.afters, strict=True) if a != schemas.SIL)
        for s in sentences
    ]
    return pa.table({
        "key": pa.array(key64(base, ids, np.full(len(ids), -1)), pa.uint64()),
        "split": pa.array([split] * len(sentences), pa.string()),
        "source": pa.array([s.source for s in sentences], pa.string()),
        "sentence_id": pa.array(ids, pa.int64()),
        "line": pa.array([s.lines[0] for s in sentences], pa.int64()),
        "n_tokens": pa.array([len(s.lines) for s in sentences], pa.int32()),
        "text_hash": pa.array([batch.text_hashes[j] for j in picked], pa.uint64()),
        "written": pa.array([" ".join(s.befores) for s in sentences], pa.string()),
        "spoken": pa.array(spoken, pa.string()),
    })


def _reject_table(rejects: list[Reject]) -> pa.Table:
    return pa.table({
        "key": pa.array([stable_hash64(r.source, r.line) for r in rejects], pa.uint64()),
        "source": pa.array([r.source for r in rejects], pa.string()),
        "line": pa.array([r.line for r in rejects], pa.int64()),
        "reason": pa.array([r.reason for r in rejects], pa.string()),
        "raw": pa.array([r.raw for r in rejects], pa.string()),
    })
