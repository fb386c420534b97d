"""The data contract: pyarrow schemas of every tnforge dataset, with names and versions.

This package imports nothing else from the project. Every other part reads it: the build writes these
schemas, the trainers read them, the validation suites check them.
"""

from __future__ import annotations

import pyarrow as pa

from tnforge.schemas.classes import NAMES

#: The 16 semiotic classes of the Sproat & Jaitly corpus, in the order the papers list them (the registry
#: with each class's grammar module is `tnforge.schemas.classes`).
SEMIOTIC_CLASSES: tuple[str, ...] = NAMES
#: Targets meaning "read as written" and "punctuation: silence".
SELF = "<self>"
SIL = "sil"
TRIVIAL_TARGETS: frozenset[str] = frozenset({SELF, SIL})
#: Markers around the token in an example's windowed input.
NORM_OPEN = "<norm>"
NORM_CLOSE = "</norm>"
SPLITS: tuple[str, ...] = ("train", "dev", "test")

#: Parquet key-value metadata keys that carry a file's dataset name and schema version.
META_DATASET = b"tnforge.dataset"
META_VERSION = b"tnforge.schema_version"


def _with_meta(name: str, version: int, fields: list[pa.Field]) -> pa.Schema:
    return pa.schema(fields, metadata={META_DATASET: name.encode(), META_VERSION: str(version).encode()})


#: One row per token occurrence (and per up-sampling copy) with its context window.
EXAMPLES = _with_meta("examples", 1, [
    pa.field("key", pa.uint64(), nullable=False),  # stable hash of (source, sentence_id, token_index)
    pa.field("split", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),  # input file name (basename)
    pa.field("line", pa.int64(), nullable=False),  # 1-based line of the token in its source file
    pa.field("sentence_id", pa.int64(), nullable=False),
    pa.field("token_index", pa.int32(), nullable=False),
    pa.field("copy", pa.int32(), nullable=False),  # 0 = original; 1.. = up-sampling copies
    pa.field("class", pa.string(), nullable=False),
    pa.field("before", pa.string(), nullable=False),
    pa.field("after", pa.string(), nullable=False),  # the reading, or <self> / sil
    pa.field("trivial", pa.bool_(), nullable=False),  # after in {<self>, sil}
    pa.field("input", pa.string(), nullable=False),  # left context <norm> before </norm> right context
])

#: One row per sentence: the written and the spoken form.
SENTENCES = _with_meta("sentences", 3, [
    pa.field("key", pa.uint64(), nullable=False),  # stable hash of (source, sentence_id)
    pa.field("split", pa.string(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("sentence_id", pa.int64(), nullable=False),
    pa.field("line", pa.int64(), nullable=False),  # line of the first token
    pa.field("n_tokens", pa.int32(), nullable=False),
    pa.field("text_hash", pa.uint64(), nullable=False),  # stable hash of the written text (leak checks)
    pa.field("written", pa.string(), nullable=False),  # tokens joined by single spaces
    pa.field("spoken", pa.string(), nullable=False),  # readings joined; <self> -> the token, sil -> nothing
    # v2: every gold token (before) of the sentence, in order, and each token's semiotic class. Lists are
    # declared as Parquet writes and reads them back (item field "element").
    pa.field("tokens", pa.list_(pa.field("element", pa.string())), nullable=False),
    pa.field("classes", pa.list_(pa.field("element", pa.string())), nullable=False),
    # v3: each token's spoken form, resolved as `spoken` resolves it (<self> → the token, sil → ""): the
    # token alignment of written and spoken (" ".join of the non-empty readings is `spoken`).
    pa.field("readings", pa.list_(pa.field("element", pa.string())), nullable=False),
])

#: Distinct non-trivial (class, before, after) triples with their counts, per split.
POSITIVE_PAIRS = _with_meta("positive_pairs", 1, [
    pa.field("key", pa.uint64(), nullable=False),  # stable hash of (class, before, after)
    pa.field("split", pa.string(), nullable=False),
    pa.field("class", pa.string(), nullable=False),
    pa.field("before", pa.string(), nullable=False),
    pa.field("after", pa.string(), nullable=False),
    pa.field("count", pa.int64(), nullable=False),
])

#: Input lines that could not be used, with the reason.
REJECTS = _with_meta("rejects", 1, [
    pa.field("key", pa.uint64(), nullable=False),  # stable hash of (source, line)
    pa.field("source", pa.string(), nullable=False),
    pa.field("line", pa.int64(), nullable=False),  # 1-based; 0 for a problem of the whole file
    pa.field("reason", pa.string(), nullable=False),
    pa.field("raw", pa.string(), nullable=False),  # the line as read, truncated
])

#: Labelled (input, reading) pairs for the sequence dual encoder: positives and typed negatives.
PAIRS = _with_meta("pairs", 1, [
    pa.field("key", pa.uint64(), nullable=False),  # stable hash of (split, class, before, reading, type)
    pa.field("split", pa.string(), nullable=False),
    pa.field("class", pa.string(), nullable=False),
    pa.field("before", pa.string(), nullable=False),
    pa.field("reading", pa.string(), nullable=False),
    pa.field("label", pa.int8(), nullable=False),  # 1 acceptable, 0 negative
    pa.field("negative_type", pa.string(), nullable=False),  # "" for positives
    pa.field("negative_subtype", pa.string(), nullable=False),
    pa.field("licensed", pa.bool_(), nullable=True),  # covering-grammar verdict; null when not judged
    pa.field("generator_version", pa.string(), nullable=False),
    pa.field("source_key", pa.uint64(), nullable=False),  # key of the positive pair it was made from
])

#: Labelled (input, word) pairs for the vocabulary-filter dual encoder.
VOCAB_PAIRS = _with_meta("vocab_pairs", 1, [
    pa.field("key", pa.uint64(), nullable=False),
    pa.field("split", pa.string(), nullable=False),
    pa.field("class", pa.string(), nullable=False),
    pa.field("before", pa.string(), nullable=False),
    pa.field("word", pa.string(), nullable=False),
    pa.field("label", pa.int8(), nullable=False),
    pa.field("negative_type", pa.string(), nullable=False),  # "" for positives
    pa.field("generator_version", pa.string(), nullable=False),
])

#: Model hypotheses from beam search: the top-k source for negatives.
HYPOTHESES = _with_meta("hypotheses", 1, [
    pa.field("key", pa.uint64(), nullable=False),  # key of the example decoded
    pa.field("class", pa.string(), nullable=True),
    pa.field("before", pa.string(), nullable=False),
    pa.field("input", pa.string(), nullable=False),
    pa.field("gold", pa.string(), nullable=True),  # null when unknown
    pa.field("rank", pa.int32(), nullable=False),  # 0 = best
    pa.field("hypothesis", pa.string(), nullable=False),
    pa.field("score", pa.float32(), nullable=False),  # log-probability of the hypothesis
])

#: Every dataset by its name in a dataset directory.
SCHEMAS: dict[str, pa.Schema] = {
    "examples": EXAMPLES,
    "sentences": SENTENCES,
    "positive_pairs": POSITIVE_PAIRS,
    "rejects": REJECTS,
    "pairs": PAIRS,
    "vocab_pairs": VOCAB_PAIRS,
    "hypotheses": HYPOTHESES,
}


def schema_version(schema: pa.Schema) -> int:
    """The schema version recorded in a schema's metadata."""
    return int((schema.metadata or {}).get(META_VERSION, b"0"))


def dataset_name(schema: pa.Schema) -> str | None:
    """The dataset name recorded in a schema's metadata, if any."""
    value = (schema.metadata or {}).get(META_DATASET)
    return value.decode() if value else None
