"""Corpus readers: Google TSV shards and Kaggle CSV files, mapped to one stream of sentences.

Both flavours give `Sentence` objects whose targets are explicit (`<self>` for a token read as written,
`sil` for punctuation), and `Reject` records for every line that cannot be used, with the reason. A line
that is bad makes its whole sentence unusable (its context would be wrong); the other lines of that
sentence are rejected with reason `in_rejected_sentence`, so every input line is accounted for.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from tnforge.filesystems import open_binary
from tnforge.schemas import SELF, SEMIOTIC_CLASSES, SIL

EOS = "<eos>"
BOM = b"\xef\xbb\xbf"
CSV_HEADER = ("sentence_id", "token_id", "class", "before", "after")
RAW_LIMIT = 200
_CLASSES = frozenset(SEMIOTIC_CLASSES)
_STANDARD_SHARD = re.compile(r"^output-(\d{5})-of-(\d{5})$")
_CHUNK = 1 << 22


@dataclass(slots=True)
class Sentence:
    """One sentence of a source file: parallel lists, one entry per token."""

    source: str
    sentence_id: int
    lines: list[int]
    classes: list[str]
    befores: list[str]
    afters: list[str]


@dataclass(slots=True)
class Reject:
    """An input line that could not be used (line 0: a problem of the whole file)."""

    source: str
    line: int
    reason: str
    raw: str


@dataclass
class FileReport:
    """What reading one file found: flavour, record count, fixes applied, rejects by reason."""

    path: str
    flavour: str = ""
    records: int = 0  # token lines and bad lines (not <eos> markers)
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


def _truncate(text: str) -> str:
    return text if len(text) <= RAW_LIMIT else text[:RAW_LIMIT] + "…"


def detect_flavour(head: bytes) -> str:
    """'csv' when the first line is the Kaggle header, else 'tsv'."""
    first = head[len(BOM):] if head.startswith(BOM) else head
    first = first.split(b"\n", 1)[0].strip().replace(b'"', b"")
    return "csv" if first.startswith(b"sentence_id,token_id") else "tsv"


def trivial_target(cls: str, before: str, after: str) -> str:
    """The explicit target: `sil` for punctuation read as itself, `<self>` for other unchanged tokens."""
    if after == before:
        return SIL if cls == "PUNCT" else SELF
    return after


class _SentenceBuilder:
    """Collects the lines of the current sentence and its pending rejects."""

    __slots__ = ("source", "lines", "classes", "befores", "afters", "raws", "rejects", "report")

    def __init__(self, source: str, report: FileReport) -> None:
        self.source = source
        self.report = report
        self.reset()

    def reset(self) -> None:
        self.lines: list[int] = []
        self.classes: list[str] = []
        self.befores: list[str] = []
        self.afters: list[str] = []
        self.raws: list[str] = []
        self.rejects: list[Reject] = []

    def empty(self) -> bool:
        return not self.lines and not self.rejects

    def reject(self, line: int, reason: str, raw: str) -> None:
        self.rejects.append(Reject(self.source, line, reason, _truncate(raw)))

    def finish(self, sentence_id: int, reason_if_rejected: str = "in_rejected_sentence") -> Iterator:
        """Yield the sentence, or — if any line was bad — rejects for all its lines."""
        if self.rejects or reason_if_rejected != "in_rejected_sentence":
            rejected = list(self.rejects)
            for line, raw in zip(self.lines, self.raws, strict=True):
                rejected.append(Reject(self.source, line, reason_if_rejected, _truncate(raw)))
            rejected.sort(key=lambda r: r.line)
            for item in rejected:
                self.report.rejects[item.reason] += 1
            yield from rejected
        elif self.lines:
            yield Sentence(self.source, sentence_id, self.lines, self.classes, self.befores, self.afters)
        self.reset()


def _check_token(cls: str, before: str, after: str, max_chars: int) -> str | None:
    if not cls:
        return "empty_class"
    if cls not in _CLASSES:
        return "unknown_class"
    if not before:
        return "empty_before"
    if not after:
        return "empty_after"
    if len(before) > max_chars or len(after) > max_chars:
        return "token_too_long"
    return None


def _decoded_lines(handle: io.BufferedIOBase, report: FileReport) -> Iterator[list[str | bytes]]:
    """Blocks of lines; a line that is not valid UTF-8 comes as bytes."""
    pending = b""
    first = True
    while True:
        chunk = handle.read(_CHUNK)
        if first:
            first = False
            if chunk.startswith(BOM):
                report.bom = True
                chunk = chunk[len(BOM):]
        if not chunk:
            break
        data = pending + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
            continue
        pending, block = data[cut + 1:], data[:cut]
        yield _decode_block(block)
    if pending:
        yield _decode_block(pending)


def _decode_block(block: bytes) -> list[str | bytes]:
    try:
        return block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        out: list[str | bytes] = []
        for raw in block.split(b"\n"):
            try:
                out.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                out.append(raw)
        return out


def read_tsv(handle: io.BufferedIOBase, path: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """Sentences and rejects of a Google TSV shard (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>`)."""
    source = source_name(path)
    builder = _SentenceBuilder(source, report)
    sentence_id = 0
    lineno = 0
    records = 0
    crlf = 0
    check = _check_token
    for block in _decoded_lines(handle, report):
        for text in block:
            lineno += 1
            if type(text) is bytes:
                records += 1
                builder.reject(lineno, "invalid_utf8", text.decode("utf-8", "replace"))
                continue
            if text and text[-1] == "\r":
                crlf += 1
                text = text[:-1]
            parts = text.split("\t")
            if parts[0] == EOS:
                if all(p == EOS for p in parts) and len(parts) in (2, 3):
                    if not builder.empty():
                        yield from builder.finish(sentence_id)
                        sentence_id += 1
                    continue
                records += 1
                builder.reject(lineno, "malformed_eos", text)
                continue
            records += 1
            if len(parts) != 3:
                builder.reject(lineno, "blank_line" if not text.strip() else "wrong_field_count", text)
                continue
            cls, before, after = parts
            problem = check(cls, before, after, max_chars)
            if problem:
                builder.reject(lineno, problem, text)
                continue
            builder.lines.append(lineno)
            builder.classes.append(cls)
            builder.befores.append(before)
            builder.afters.append(after if after != before else (SIL if cls == "PUNCT" else SELF))
            builder.raws.append(text)
    if not builder.empty():
        yield from builder.finish(sentence_id, "missing_final_eos")
        sentence_id += 1
    report.records += records
    report.crlf_lines += crlf
    report.sentences = sentence_id
    if lineno == 0:
        report.rejects["empty_file"] += 1
        yield Reject(source, 0, "empty_file", "")


def read_csv(handle: io.BufferedIOBase, path: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """Sentences and rejects of a Kaggle CSV file (`sentence_id,token_id,class,before,after`)."""
    source = source_name(path)
    builder = _SentenceBuilder(source, report)
    head = handle.read(len(BOM))
    if head == BOM:
        report.bom = True
        head = b""
    text_stream = io.TextIOWrapper(
        _Prefixed(head, handle), encoding="utf-8", errors="surrogateescape", newline=""
    )
    reader = csv.reader(text_stream)
    current: int | None = None
    seen: set[int] = set()
    records = 0
    check = _check_token
    header_done = False
    for row in reader:
        lineno = reader.line_num
        if not header_done:
            header_done = True
            if tuple(c.strip().lstrip("\ufeff") for c in row) == CSV_HEADER:
                continue
        records += 1
        raw = ",".join(row)
        if not raw.isascii():
            try:
                raw.encode("utf-8")
            except UnicodeEncodeError:
                builder.reject(lineno, "invalid_utf8", raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
                continue
        if len(row) != 5:
            builder.reject(lineno, "blank_line" if not raw.strip() else "wrong_field_count", raw)
            continue
        sid_text, tid_text, cls, before, after = row
        try:
            sid, tid = int(sid_text), int(tid_text)
        except ValueError:
            builder.reject(lineno, "bad_id", raw)
            continue
        if sid != current:
            if not builder.empty():
                yield from builder.finish(current if current is not None else -1)
            if sid in seen:
                builder.reject(lineno, "duplicate_sentence_id", raw)
            seen.add(sid)
            current = sid
        expected = len(builder.lines) + len(builder.rejects)
        if tid != expected:
            builder.reject(lineno, "token_id_out_of_order", raw)
            continue
        problem = check(cls, before, after, max_chars)
        if problem:
            builder.reject(lineno, problem, raw)
            continue
        builder.lines.append(lineno)
        builder.classes.append(cls)
        builder.befores.append(before)
        builder.afters.append(after if after != before else (SIL if cls == "PUNCT" else SELF))
        builder.raws.append(raw)
    if not builder.empty():
        yield from builder.finish(current if current is not None else -1)
    report.records += records
    report.sentences = len(seen)
    if not header_done:
        report.rejects["empty_file"] += 1
        yield Reject(source, 0, "empty_file", "")


class _Prefixed(io.RawIOBase):
    """A readable stream of `prefix` followed by the rest of `handle`."""

    def __init__(self, prefix: bytes, handle: io.BufferedIOBase) -> None:
        self._prefix = prefix
        self._handle = handle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._handle.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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
) -> Iterator:
    """Sentences and rejects of one corpus file of either flavour (detected from its first line).

    With `digest` (a hashlib object), every byte of the (decompressed) content is fed to it.
    """
    report = report if report is not None else FileReport(path)
    with open_binary(path) as raw:
        source = _Digesting(raw, digest) if digest is not None else raw
        handle = source if hasattr(source, "peek") else io.BufferedReader(source, buffer_size=1 << 20)
        head = handle.peek(256)[:256]
        report.flavour = detect_flavour(head)
        reader = read_csv if report.flavour == "csv" else read_tsv
        yield from reader(handle, path, report, max_chars)
