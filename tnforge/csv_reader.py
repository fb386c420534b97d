"""Kaggle CSV files (`sentence_id,token_id,class,before,after`) → TokenBlocks, with the TSV reader's checks.

A fast path parses whole blocks with pyarrow's CSV reader; blocks it cannot parse go through Python's csv.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.collector import gc_paused
from tnforge.token_blocks import (
    CODE,
    FileReport,
    SentenceAssembler,
    chunks,
    reject_table,
)

CSV_HEADER = ("sentence_id", "token_id", "class", "before", "after")


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
    with gc_paused():
        for row in reader:
            rows.append(row)
            numbers.append(base + reader.line_num)
    codes = np.zeros(len(rows), dtype=np.int8)
    raw_texts = []
    for i, row in enumerate(rows):
        if suspect and not all(value.isascii() for value in row) and _has_surrogates(row):
            codes[i] = CODE["invalid_utf8"]
            raw_texts.append(",".join(row).encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
            rows[i] = [""] * 5
            continue
        raw_texts.append(",".join(row))
        if len(row) != 5:
            codes[i] = CODE["blank_line" if not "".join(row).strip() else "wrong_field_count"]
            rows[i] = [""] * 5
    columns = [pa.array(column, pa.string()) for column in zip(*rows, strict=True)] if rows else \
        [pa.array([], pa.string()) for _ in range(5)]
    return _CsvRows(columns, np.asarray(numbers, dtype=np.int64), codes, raw_texts)


def read_csv(handle: io.BufferedIOBase, source: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """TokenBlocks and reject tables of a Kaggle CSV file (`sentence_id,token_id,class,before,after`).

    Chunks are parsed by pyarrow.csv; a chunk with anything unusual (a bad row, a line break inside a
    field, invalid UTF-8) is parsed again by the csv module, which gives each record its line number.
    Rows name the file `source`.
    """
    assembler = SentenceAssembler(source, report, max_chars)
    carry = _CsvRows([pa.array([], pa.string()) for _ in range(5)], np.zeros(0, np.int64), np.zeros(0, np.int8))
    seen: set[int] = set()
    saw_header = False
    lines_read = 0
    for chunk, _final in chunks(handle, report, _last_csv_record_end):
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


def _csv_block(rows: _CsvRows, assembler: SentenceAssembler, seen: set[int]) -> Iterator:
    n = len(rows)
    assembler.report.records += n
    codes = rows.codes.copy()
    sid_text, tid_text, cls, before, after = rows.columns
    numeric = pc.and_(pc.match_substring_regex(sid_text, r"^-?\d+$"), pc.match_substring_regex(tid_text, r"^\d+$"))
    codes[~numeric.to_numpy(zero_copy_only=False) & (codes == 0)] = CODE["bad_id"]
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
            codes[first_rows[j]] = CODE["duplicate_sentence_id"]
        seen.add(value)
    position = np.arange(n) - first_rows[sentence_of]
    codes[(codes == 0) & (tid != position)] = CODE["token_id_out_of_order"]
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


