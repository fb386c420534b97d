"""Corpus readers: Google TSV shards and Kaggle CSV files, mapped to one columnar form.

Both flavours give `TokenBlock`s: whole sentences as Arrow arrays, with explicit targets (`<self>` for a
token read as written, `sil` for punctuation), and a table of the lines that cannot be used, with the
reason. A bad line makes its whole sentence unusable (its context would be wrong); the other lines of
that sentence are rejected with reason `in_rejected_sentence`, so every input line is accounted for.

Lines are checked with vectorised Arrow compute over blocks of about 100,000 lines, so reading costs
well under a microsecond a line.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.filesystems import open_binary
from tnforge.hashing import stable_hash64
from tnforge.schemas import SELF, SEMIOTIC_CLASSES, SIL

EOS = "<eos>"
BOM = b"\xef\xbb\xbf"
CSV_HEADER = ("sentence_id", "token_id", "class", "before", "after")
RAW_LIMIT = 200
BLOCK_BYTES = 1 << 22
BLOCK_ROWS = 100_000
_CLASSES = pa.array(SEMIOTIC_CLASSES, pa.string())
_STANDARD_SHARD = re.compile(r"^output-(\d{5})-of-(\d{5})$")

#: Reasons a line is rejected, by code (0 = good).
REASONS = (
    "", "invalid_utf8", "malformed_eos", "blank_line", "wrong_field_count", "bad_id", "duplicate_sentence_id",
    "token_id_out_of_order", "empty_class", "unknown_class", "empty_before", "empty_after", "token_too_long",
    "in_rejected_sentence", "missing_final_eos",
)
_CODE = {reason: code for code, reason in enumerate(REASONS)}
#: Reasons about a whole file (line 0), not a line: not counted as input records.
FILE_LEVEL_REASONS = frozenset({"empty_file"})


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


def source_name(path: str) -> str:
    """The file's name without folders and compression suffix (what rows carry as `source`)."""
    name = os.path.basename(path.rstrip("/"))
    for suffix in (".gz", ".bz2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def source_stem(path: str) -> str:
    """The source name without a .tsv/.csv/.txt extension: the stable identity used in keys."""
    name = source_name(path)
    for suffix in (".tsv", ".csv", ".txt"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def standard_shard_index(path: str) -> int | None:
    """NN for files named like the corpus shards `output-000NN-of-00100`, else None."""
    match = _STANDARD_SHARD.match(source_stem(path))
    return int(match.group(1)) if match and int(match.group(2)) == 100 else None


def detect_flavour(head: bytes) -> str:
    """'csv' when the first line is the Kaggle header, else 'tsv'."""
    first = head[len(BOM):] if head.startswith(BOM) else head
    first = first.split(b"\n", 1)[0].strip().replace(b'"', b"")
    return "csv" if first.startswith(b"sentence_id,token_id") else "tsv"


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


class _Assembler:
    """Turns checked lines into sentences and rejects, carrying sentence ids across blocks."""

    def __init__(self, source: str, report: FileReport, max_chars: int) -> None:
        self.source = source
        self.report = report
        self.max_chars = max_chars
        self.next_sentence = 0

    def check_tokens(self, classes: pa.Array, befores: pa.Array, afters: pa.Array, codes: np.ndarray) -> np.ndarray:
        """Add the per-token reasons (empty/unknown class, empty fields, too long) to lines still good."""
        checks = [
            ("empty_class", pc.equal(classes, "")),
            ("unknown_class", pc.invert(pc.is_in(classes, value_set=_CLASSES))),
            ("empty_before", pc.equal(befores, "")),
            ("empty_after", pc.equal(afters, "")),
            ("token_too_long", pc.or_(pc.greater(pc.utf8_length(befores), self.max_chars),
                                      pc.greater(pc.utf8_length(afters), self.max_chars))),
        ]
        for reason, mask in checks:
            hit = mask.to_numpy(zero_copy_only=False) & (codes == 0)
            codes[hit] = _CODE[reason]
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
            codes[(sentence_of == unterminated) & ~bad] = _CODE["missing_final_eos"]
            collateral &= sentence_of != unterminated
        codes[collateral] = _CODE["in_rejected_sentence"]
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


def _split_fields(lines: pa.Array, good_shape: np.ndarray, count: int) -> list[pa.Array]:
    """Fields 0..count-1 of tab-separated lines (empty strings where the shape is wrong)."""
    filler = "\t" * (count - 1)
    safe = pc.if_else(pa.array(good_shape), lines, filler)
    parts = pc.split_pattern(safe, "\t")
    return [pc.list_element(parts, i) for i in range(count)]


def _decode_lines(block: bytes) -> tuple[list[str], list[int]]:
    """Lines of a block, and the indexes of lines that are not valid UTF-8 (given as '')."""
    try:
        return block.decode("utf-8").split("\n"), []
    except UnicodeDecodeError:
        lines, invalid = [], []
        for i, raw in enumerate(block.split(b"\n")):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(raw.decode("utf-8", "replace"))
                invalid.append(i)
        return lines, invalid


def _chunks(handle: io.BufferedIOBase, report: FileReport, cut_at) -> Iterator[tuple[bytes, bool]]:
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


def _last_eos_end(data: bytes, searched: int) -> int | None:
    """Offset just after the last complete `<eos>` line of data (lines before `searched` were searched)."""
    limit = len(data)
    floor = max(0, searched - 64)
    while True:
        index = data.rfind(b"\n<eos>\t<eos>", floor, limit)
        if index < 0:
            return None
        end = data.find(b"\n", index + 1)
        if end >= 0 and data[index + 1:end].rstrip(b"\r") in (b"<eos>\t<eos>", b"<eos>\t<eos>\t<eos>"):
            return end + 1
        limit = index


def read_tsv(handle: io.BufferedIOBase, path: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """TokenBlocks and reject tables of a Google TSV shard (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>`)."""
    assembler = _Assembler(source_name(path), report, max_chars)
    next_line = 1
    saw_any = False
    for block, final in _chunks(handle, report, _last_eos_end):
        if block.endswith(b"\n"):
            block = block[:-1]
        texts, invalid = _decode_lines(block)
        saw_any = True
        n = len(texts)
        lines = np.arange(next_line, next_line + n, dtype=np.int64)
        next_line += n
        raw = pa.array(texts, pa.string())
        ends_cr = pc.ends_with(raw, "\r")
        report.crlf_lines += pc.sum(ends_cr).as_py() or 0
        text = pc.if_else(ends_cr, pc.utf8_slice_codeunits(raw, 0, -1), raw)
        parts = pc.list_value_length(pc.split_pattern(text, "\t")).to_numpy()
        is_eos = pc.match_substring_regex(text, r"^<eos>(\t<eos>){1,2}$").to_numpy(zero_copy_only=False)
        starts_eos = pc.starts_with(text, EOS).to_numpy(zero_copy_only=False)
        blank = pc.equal(pc.utf8_trim_whitespace(text), "").to_numpy(zero_copy_only=False)
        codes = np.zeros(n, dtype=np.int8)
        codes[parts != 3] = _CODE["wrong_field_count"]
        codes[blank] = _CODE["blank_line"]
        codes[starts_eos & ~is_eos] = _CODE["malformed_eos"]
        codes[invalid] = _CODE["invalid_utf8"]
        good_shape = (codes == 0) & ~is_eos
        cls, before, after = _split_fields(text, good_shape, 3)
        assembler.check_tokens(cls, before, after, codes)
        sentence_of = np.cumsum(is_eos) - is_eos
        token = ~is_eos
        report.records += int(token.sum())
        # Sentence numbers of token lines, counting only sentences that have tokens.
        has_tokens = np.bincount(sentence_of[token], minlength=int(is_eos.sum()) + 1) > 0
        renumber = np.cumsum(has_tokens) - 1
        n_sentences = int(has_tokens.sum())
        unterminated = None
        if final and not is_eos[-1] and token.any():
            unterminated = int(renumber[sentence_of[-1]])
        index = np.nonzero(token)[0]
        take = pa.array(index)
        yield from assembler.assemble(
            renumber[sentence_of[index]], n_sentences, codes[index], lines[index], cls.take(take),
            before.take(take), after.take(take), raw.take(take), unterminated=unterminated,
        )
    report.sentences = assembler.next_sentence
    if not saw_any:
        report.rejects["empty_file"] += 1
        yield reject_table(assembler.source, np.array([0]), ["empty_file"], [""])


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while making many small objects that hold no cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _last_csv_record_end(data: bytes, _searched: int) -> int | None:
    """Offset just after the last line break of data that is outside quotes."""
    cut = data.rfind(b"\n")
    while cut >= 0 and data.count(b'"', 0, cut) % 2:
        cut = data.rfind(b"\n", 0, cut)
    return cut + 1 if cut >= 0 else None


@dataclass
class _CsvRows:
    """Parsed CSV records as columns, with line numbers, reason codes so far and (if odd) raw texts."""

    columns: list[pa.Array]
    lines: np.ndarray
    codes: np.ndarray
    raw_texts: list[str] | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def slice(self, start: int, stop: int | None = None) -> _CsvRows:
        stop = len(self) if stop is None else stop
        return _CsvRows([c.slice(start, stop - start) for c in self.columns], self.lines[start:stop],
                        self.codes[start:stop], None if self.raw_texts is None else self.raw_texts[start:stop])

    def extend(self, other: _CsvRows) -> _CsvRows:
        if not len(self):
            return other
        raws = None
        if self.raw_texts is not None or other.raw_texts is not None:
            raws = (self.raw_texts or self.texts(range(len(self)))) + (other.raw_texts or other.texts(range(len(other))))
        return _CsvRows([pa.concat_arrays([a, b]) for a, b in zip(self.columns, other.columns, strict=True)],
                        np.concatenate([self.lines, other.lines]), np.concatenate([self.codes, other.codes]), raws)

    def texts(self, index) -> list[str]:
        """The records at these indexes as CSV-like text (for reject rows)."""
        if self.raw_texts is not None:
            return [self.raw_texts[i] for i in index]
        return [",".join(str(c[i]) for c in self.columns) for i in index]


def _fast_csv(data: bytes, base: int) -> _CsvRows | None:
    """Parse a chunk with pyarrow.csv; None when it holds anything odd (the exact slow path then runs)."""
    import pyarrow.csv as pacsv

    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    invalid: list[object] = []
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=list(CSV_HEADER), use_threads=False, block_size=len(data) + 64),
            parse_options=pacsv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False,
                                             invalid_row_handler=lambda row: invalid.append(row) or "skip"),
            convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in CSV_HEADER},
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None
    if invalid or table.num_rows != n_lines:
        return None
    return _CsvRows([table.column(c).combine_chunks() for c in CSV_HEADER],
                    np.arange(base + 1, base + 1 + n_lines, dtype=np.int64), np.zeros(n_lines, dtype=np.int8))


def _slow_csv(data: bytes, base: int) -> _CsvRows:
    """Parse a chunk with the csv module, marking rows of the wrong shape or with invalid UTF-8."""
    try:
        text, suspect = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, suspect = data.decode("utf-8", "surrogateescape"), True
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[list[str]] = []
    numbers: list[int] = []
    with paused_gc():
        for row in reader:
            rows.append(row)
            numbers.append(base + reader.line_num)
    codes = np.zeros(len(rows), dtype=np.int8)
    raw_texts = []
    for i, row in enumerate(rows):
        if suspect and not all(value.isascii() for value in row) and _has_surrogates(row):
            codes[i] = _CODE["invalid_utf8"]
            raw_texts.append(",".join(row).encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
            rows[i] = [""] * 5
            continue
        raw_texts.append(",".join(row))
        if len(row) != 5:
            codes[i] = _CODE["blank_line" if not "".join(row).strip() else "wrong_field_count"]
            rows[i] = [""] * 5
    columns = [pa.array(column, pa.string()) for column in zip(*rows, strict=True)] if rows else \
        [pa.array([], pa.string()) for _ in range(5)]
    return _CsvRows(columns, np.asarray(numbers, dtype=np.int64), codes, raw_texts)


def read_csv(handle: io.BufferedIOBase, path: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """TokenBlocks and reject tables of a Kaggle CSV file (`sentence_id,token_id,class,before,after`).

    Chunks are parsed by pyarrow.csv; a chunk with anything unusual (a bad row, a line break inside a
    field, invalid UTF-8) is parsed again by the csv module, which gives each record its line number.
    """
    source = source_name(path)
    assembler = _Assembler(source, report, max_chars)
    carry = _CsvRows([pa.array([], pa.string()) for _ in range(5)], np.zeros(0, np.int64), np.zeros(0, np.int8))
    seen: set[int] = set()
    saw_header = False
    lines_read = 0
    for chunk, _final in _chunks(handle, report, _last_csv_record_end):
        base, lines_read = lines_read, lines_read + chunk.count(b"\n")
        if not saw_header:
            saw_header = True
            newline = chunk.find(b"\n")
            chunk, base = (b"", base) if newline < 0 else (chunk[newline + 1:], base + 1)
            if not chunk:
                continue
        rows = carry.extend(_fast_csv(chunk, base) or _slow_csv(chunk, base))
        # Keep the last sentence's records for the next chunk: it may go on there.
        first = rows.columns[0]
        tail = len(rows)
        if tail:
            last = first[tail - 1].as_py()
            same = pc.equal(first, last).to_numpy(zero_copy_only=False) & (rows.codes == 0)
            breaks = np.nonzero(~same)[0]
            tail = int(breaks[-1]) + 1 if len(breaks) else 0
        if tail > 0:
            yield from _csv_block(rows.slice(0, tail), assembler, seen)
        carry = rows.slice(tail)
    if len(carry):
        yield from _csv_block(carry, assembler, seen)
    if not saw_header:
        report.rejects["empty_file"] += 1
        yield reject_table(source, np.array([0]), ["empty_file"], [""])
    report.sentences = len(seen)


def _csv_block(rows: _CsvRows, assembler: _Assembler, seen: set[int]) -> Iterator:
    n = len(rows)
    assembler.report.records += n
    codes = rows.codes.copy()
    sid_text, tid_text, cls, before, after = rows.columns
    numeric = pc.and_(pc.match_substring_regex(sid_text, r"^-?\d+$"), pc.match_substring_regex(tid_text, r"^\d+$"))
    codes[~numeric.to_numpy(zero_copy_only=False) & (codes == 0)] = _CODE["bad_id"]
    ok = pa.array(codes == 0)
    sid = pc.cast(pc.if_else(ok, sid_text, "-1"), pa.int64()).to_numpy()
    tid = pc.cast(pc.if_else(ok, tid_text, "-1"), pa.int64()).to_numpy()
    # A new sentence starts where the sentence id changes (bad rows stay with the sentence before them).
    valid = codes == 0
    carried = sid
    if not valid.all():
        index = np.where(valid, np.arange(n), 0)
        np.maximum.accumulate(index, out=index)
        carried = np.where(valid[index], sid[index], -1)
    starts = np.concatenate([[True], carried[1:] != carried[:-1]])
    sentence_of = np.cumsum(starts) - 1
    n_sentences = int(starts.sum())
    ids = carried[starts]
    first_rows = np.nonzero(starts)[0]
    for j, value in enumerate(ids.tolist()):
        if value in seen and value != -1 and codes[first_rows[j]] == 0:
            codes[first_rows[j]] = _CODE["duplicate_sentence_id"]
        seen.add(value)
    position = np.arange(n) - first_rows[sentence_of]
    codes[(codes == 0) & (tid != position)] = _CODE["token_id_out_of_order"]
    assembler.check_tokens(cls, before, after, codes)
    yield from assembler.assemble(sentence_of, n_sentences, codes, rows.lines, cls, before, after, rows.texts,
                                  sentence_ids=ids)


def _has_surrogates(row: list[str]) -> bool:
    try:
        for value in row:
            value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Digesting(io.RawIOBase):
    """A readable stream that feeds every byte read through a hash object."""

    def __init__(self, handle: io.BufferedIOBase, digest) -> None:
        self._handle = handle
        self._digest = digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self._handle.read(len(buffer))
        self._digest.update(data)
        buffer[: len(data)] = data
        return len(data)


def read_corpus_file(
    path: str, report: FileReport | None = None, max_chars: int = 4096, digest=None
) -> Iterator[TokenBlock | pa.Table]:
    """TokenBlocks (whole sentences) and reject tables of one corpus file of either flavour.

    The flavour is detected from the first line. With `digest` (a hashlib object), every byte of the
    (decompressed) content is fed to it.
    """
    report = report if report is not None else FileReport(path)
    with open_binary(path) as raw:
        source = _Digesting(raw, digest) if digest is not None else raw
        handle = source if hasattr(source, "peek") else io.BufferedReader(source, buffer_size=1 << 20)
        head = handle.peek(256)[:256]
        report.flavour = detect_flavour(head)
        reader = read_csv if report.flavour == "csv" else read_tsv
        for item in reader(handle, path, report, max_chars):
            if item is not None:
                yield item
