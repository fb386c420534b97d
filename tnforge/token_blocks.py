"""What the corpus readers produce: whole sentences as Arrow arrays (`TokenBlock`), rejects with reasons,
and the pieces both flavours share: the sentence assembler, the file chunker, the per-line reason codes.
A bad line makes its whole sentence unusable; the other lines of that sentence get `in_rejected_sentence`.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.hashing import stable_hash64
from tnforge.schemas import SELF, SEMIOTIC_CLASSES, SIL

EOS = "<eos>"
BOM = b"\xef\xbb\xbf"
RAW_LIMIT = 200
BLOCK_BYTES = 1 << 22
BLOCK_ROWS = 100_000
CLASS_NAMES = pa.array(SEMIOTIC_CLASSES, pa.string())

#: Reasons a line is rejected, by code (0 = good).
REASONS = (
    "", "invalid_utf8", "malformed_eos", "blank_line", "wrong_field_count", "bad_id", "duplicate_sentence_id",
    "token_id_out_of_order", "empty_class", "unknown_class", "empty_before", "empty_after", "token_too_long",
    "in_rejected_sentence", "missing_final_eos",
)
CODE = {reason: code for code, reason in enumerate(REASONS)}
#: Reasons about a whole file (line 0), not a line: not counted as input records. `not_text`: NUL bytes or
#: not UTF-8 at its start; `no_tokens`: text without a single token line (only `<eos>` lines, a bare header).
FILE_LEVEL_REASONS = frozenset({"empty_file", "not_text", "no_tokens"})


@dataclass
class TokenBlock:
    """Whole sentences of one file as parallel Arrow arrays (one entry per token)."""

    source: str
    sentence_ids: np.ndarray  # per sentence
    offsets: np.ndarray  # per sentence + 1: token offsets
    lines: pa.Array  # int64, 1-based line numbers
    classes: pa.Array
    befores: pa.Array
    afters: pa.Array  # explicit: <self> / sil for unchanged tokens

    @property
    def num_tokens(self) -> int:
        return len(self.lines)

    @property
    def num_sentences(self) -> int:
        return len(self.sentence_ids)


@dataclass
class FileReport:
    """What reading one file found: flavour, record count, fixes applied, rejects by reason."""

    path: str
    flavour: str = ""
    records: int = 0  # token lines and bad lines (not <eos> markers, not the CSV header)
    sentences: int = 0
    bom: bool = False
    crlf_lines: int = 0
    rejects: Counter = field(default_factory=Counter)
    inference: Counter = field(default_factory=Counter)  # aligned text: how classes were inferred (class_inference)
    class_grammar: str = ""  # aligned text: what licensed the inferred classes (grammar identity, or why none)


def reject_table(source: str, lines: np.ndarray, reasons: list[str], raws: pa.Array | list[str]) -> pa.Table:
    """Rejects as a table with the REJECTS schema's columns."""
    raws = pa.array(raws, pa.string()) if not isinstance(raws, pa.Array) else raws
    return pa.table({
        "key": pa.array([stable_hash64(source, int(line)) for line in lines], pa.uint64()),
        "source": pa.array([source] * len(lines), pa.string()),
        "line": pa.array(lines, pa.int64()),
        "reason": pa.array(reasons, pa.string()),
        "raw": pc.utf8_slice_codeunits(raws, 0, RAW_LIMIT),
    })


class SentenceAssembler:
    """Turns checked lines into sentences and rejects, carrying sentence ids across blocks."""

    def __init__(self, source: str, report: FileReport, max_chars: int) -> None:
        self.source = source
        self.report = report
        self.max_chars = max_chars
        self.next_sentence = 0

    def check_tokens(self, classes: pa.Array | None, befores: pa.Array, afters: pa.Array,
                     codes: np.ndarray) -> np.ndarray:
        """Add the per-token reasons (empty/unknown class, empty fields, too long) to lines still good; no class
        checks when `classes` is None (aligned text: classes are inferred later)."""
        checks = [] if classes is None else [
            ("empty_class", pc.equal(classes, "")),
            ("unknown_class", pc.invert(pc.is_in(classes, value_set=CLASS_NAMES))),
        ]
        checks += [
            ("empty_before", pc.equal(befores, "")),
            ("empty_after", pc.equal(afters, "")),
            ("token_too_long", pc.or_(pc.greater(pc.utf8_length(befores), self.max_chars),
                                      pc.greater(pc.utf8_length(afters), self.max_chars))),
        ]
        for reason, mask in checks:
            hit = mask.to_numpy(zero_copy_only=False) & (codes == 0)
            codes[hit] = CODE[reason]
        return codes

    def assemble(
        self, sentence_of: np.ndarray, n_sentences: int, codes: np.ndarray, lines: np.ndarray,
        classes: pa.Array, befores: pa.Array, afters: pa.Array, raws,
        sentence_ids: np.ndarray | None = None, unterminated: int | None = None,
    ) -> tuple[TokenBlock | None, pa.Table | None]:
        """Sentences whose lines are all good, and rejects for every other line.

        `sentence_of` gives each line's sentence (0..n_sentences-1); sentence `unterminated`, if given, ended
        without <eos> and is rejected whole. `raws` holds each line's text, or is a function giving the texts
        of the lines at some indexes.
        """
        bad = codes > 0
        poisoned = np.zeros(n_sentences, dtype=bool)
        poisoned[sentence_of[bad]] = True
        if unterminated is not None:
            poisoned[unterminated] = True
        collateral = ~bad & poisoned[sentence_of]
        if unterminated is not None:
            codes[(sentence_of == unterminated) & ~bad] = CODE["missing_final_eos"]
            collateral &= sentence_of != unterminated
        codes[collateral] = CODE["in_rejected_sentence"]
        rejected = codes > 0
        rejects = None
        if rejected.any():
            index = np.nonzero(rejected)[0]
            reasons = [REASONS[c] for c in codes[index]]
            self.report.rejects.update(reasons)
            texts = raws.take(pa.array(index)) if isinstance(raws, pa.Array) else raws(index)
            rejects = reject_table(self.source, lines[index], reasons, texts)
        keep = np.nonzero(~rejected)[0]
        if sentence_ids is None:
            sentence_ids = np.arange(self.next_sentence, self.next_sentence + n_sentences, dtype=np.int64)
        self.next_sentence += n_sentences
        if not len(keep):
            return None, rejects
        kept_sentences = sentence_of[keep]
        present = np.unique(kept_sentences)
        counts = np.bincount(kept_sentences, minlength=n_sentences)[present]
        take = pa.array(keep)
        cls = classes.take(take)
        before = befores.take(take)
        after = afters.take(take)
        unchanged = pc.equal(after, before)
        explicit = pc.if_else(pc.equal(cls, "PUNCT"), SIL, SELF)
        block = TokenBlock(
            source=self.source,
            sentence_ids=sentence_ids[present],
            offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
            lines=pa.array(lines[keep], pa.int64()),
            classes=cls,
            befores=before,
            afters=pc.if_else(unchanged, explicit, after),
        )
        return block, rejects


def split_fields(lines: pa.Array, good_shape: np.ndarray, count: int) -> list[pa.Array]:
    """Fields 0..count-1 of tab-separated lines (empty strings where the shape is wrong)."""
    filler = "\t" * (count - 1)
    safe = pc.if_else(pa.array(good_shape), lines, filler)
    parts = pc.split_pattern(safe, "\t")
    return [pc.list_element(parts, i) for i in range(count)]


def chunks(handle: io.BufferedIOBase, report: FileReport, cut_at) -> Iterator[tuple[bytes, bool]]:
    """Byte chunks of a file (BOM removed and reported), each ending where `cut_at(data, searched)` says.

    `cut_at` returns the offset just after the last safe boundary in data (None if there is none yet);
    the last chunk, flagged final, is whatever is left.
    """
    pending = b""
    first = True
    while True:
        chunk = handle.read(BLOCK_BYTES)
        if first:
            first = False
            if chunk.startswith(BOM):
                report.bom = True
                chunk = chunk[len(BOM):]
        if not chunk:
            break
        data = pending + chunk
        cut = cut_at(data, len(pending))
        if cut is None:
            pending = data
            continue
        block, pending = data[:cut], data[cut:]
        yield block, False
    if pending:
        yield pending, True


