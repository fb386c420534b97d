"""Corpus readers: Google TSV shards and Kaggle CSV files of either flavour, mapped to one columnar form.

`read_corpus_file` detects the flavour and yields `TokenBlock`s (whole sentences) and reject tables; see
`tnforge.tsv_reader`, `tnforge.csv_reader` and `tnforge.token_blocks`.
"""

from __future__ import annotations

import codecs
import gzip
import io
import zlib
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from tnforge.csv_reader import read_csv
from tnforge.errors import InputError
from tnforge.filesystems import open_binary
from tnforge.sources import source_name
from tnforge.token_blocks import BOM, FileReport, TokenBlock, reject_table
from tnforge.tsv_reader import read_tsv

#: Bytes at the start of a file that decide whether it is text at all.
TEXT_HEAD = 4096


def detect_flavour(head: bytes) -> str:
    """'csv' when the first line is the Kaggle header, else 'tsv'."""
    first = head[len(BOM):] if head.startswith(BOM) else head
    first = first.split(b"\n", 1)[0].strip().replace(b'"', b"")
    return "csv" if first.startswith(b"sentence_id,token_id") else "tsv"


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


def is_text(head: bytes) -> bool:
    """False for a file head with a NUL byte or with more than a tenth of it not UTF-8 (an image, an
    archive, UTF-16); a few bad bytes are left to the per-line `invalid_utf8` rejects."""
    if b"\0" in head:
        return False
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(head, final=False)
    return text.count("\ufffd") * 10 <= len(text)


def _file_reject(report: FileReport, source: str, reason: str) -> pa.Table:
    report.rejects[reason] += 1
    return reject_table(source, np.array([0]), [reason], [""])


def _read_error(path: str, error: Exception) -> InputError:
    """The one-line InputError for an error met while reading (decompressing) `path`."""
    kind = "gzip" if path.endswith(".gz") else "bz2" if path.endswith(".bz2") else ""
    if kind and isinstance(error, EOFError):
        return InputError(f"{path}: truncated {kind} stream")
    if kind and isinstance(error, (gzip.BadGzipFile, zlib.error, OSError)) and not getattr(error, "errno", None):
        return InputError(f"{path}: not a valid {kind} file ({error})")
    detail = getattr(error, "strerror", None) or str(error)
    return InputError(f"{path}: cannot be read ({detail})")


def read_corpus_file(
    path: str, report: FileReport | None = None, max_chars: int = 4096, digest=None, source: str | None = None
) -> Iterator[TokenBlock | pa.Table]:
    """TokenBlocks (whole sentences) and reject tables of one corpus file of either flavour.

    The flavour is detected from the first line. A file that is not text is rejected whole (`not_text`),
    one without any token line too (`no_tokens`; an empty one: `empty_file`). `source` names the file in
    rows (default: its file name). With `digest` (a hashlib object), every byte of the (decompressed)
    content is fed to it. A corrupt or truncated compressed file, or a read error, raises InputError.
    """
    report = report if report is not None else FileReport(path)
    source = source if source is not None else source_name(path)
    try:
        with open_binary(path) as raw:
            stream = _Digesting(raw, digest) if digest is not None else raw
            handle = stream if hasattr(stream, "peek") else io.BufferedReader(stream, buffer_size=1 << 20)
            head = handle.peek(TEXT_HEAD)[:TEXT_HEAD]
            if head and not is_text(head):
                while digest is not None and handle.read(1 << 20):
                    pass
                yield _file_reject(report, source, "not_text")
                return
            report.flavour = detect_flavour(head)
            reader = read_csv if report.flavour == "csv" else read_tsv
            for item in reader(handle, source, report, max_chars):
                if item is not None:
                    yield item
    except (EOFError, OSError, zlib.error) as error:
        raise _read_error(path, error) from error
    if report.records == 0 and not report.rejects:
        yield _file_reject(report, source, "no_tokens")

