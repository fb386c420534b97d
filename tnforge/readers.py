"""Corpus readers: Google TSV shards and Kaggle CSV files of either flavour, mapped to one columnar form.

`read_corpus_file` detects the flavour and yields `TokenBlock`s (whole sentences) and reject tables; see
`tnforge.tsv_reader`, `tnforge.csv_reader` and `tnforge.token_blocks`.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pyarrow as pa

from tnforge.csv_reader import read_csv
from tnforge.filesystems import open_binary
from tnforge.token_blocks import BOM, FileReport, TokenBlock
from tnforge.tsv_reader import read_tsv


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

