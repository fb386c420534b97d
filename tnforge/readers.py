"""Corpus readers: Google TSV shards, Kaggle CSV files and aligned text without classes, mapped to one
columnar form.

`read_corpus_file` detects the flavour (or takes the one given) and yields `TokenBlock`s (whole sentences)
and reject tables; see `tnforge.tsv_reader`, `tnforge.csv_reader`, `tnforge.token_blocks`, and
`tnforge.class_inference` for the classes of aligned text.
"""

from __future__ import annotations

import codecs
import gzip
import io
import zlib
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from tnforge.class_inference import ClassInference
from tnforge.csv_reader import read_csv
from tnforge.errors import InputError
from tnforge.filesystems import open_binary
from tnforge.sources import source_name
from tnforge.token_blocks import BOM, FileReport, TokenBlock, reject_table
from tnforge.tsv_reader import FIELDS, read_aligned, read_tsv

#: Bytes at the start of a file that decide whether it is text at all.
TEXT_HEAD = 4096
#: The input flavours (`--input-format`; "auto" detects each file's).
FLAVOURS = ("auto", "tsv", "csv", "aligned")
_READERS = {"tsv": read_tsv, "csv": read_csv, "aligned": read_aligned}


def detect_flavour(head: bytes) -> str:
    """'csv' when the first line is the Kaggle header; 'aligned' when most token lines of the head have two
    tab-separated fields (`before<TAB>after`), else 'tsv' (`CLASS<TAB>before<TAB>after`)."""
    first = head[len(BOM):] if head.startswith(BOM) else head
    lines = first.split(b"\n")
    if lines[0].strip().replace(b'"', b"").startswith(b"sentence_id,token_id"):
        return "csv"
    complete = lines[:-1] if len(lines) > 1 else lines
    fields = [line.rstrip(b"\r").count(b"\t") + 1 for line in complete
              if line.strip() and not line.startswith(b"<eos>")]
    two = sum(n == FIELDS["aligned"] for n in fields)
    return "aligned" if fields and two * 2 > len(fields) else "tsv"


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
    path: str, report: FileReport | None = None, max_chars: int = 4096, digest=None, source: str | None = None,
    flavour: str = "auto", infer: ClassInference | None = None,
) -> Iterator[TokenBlock | pa.Table]:
    """TokenBlocks (whole sentences) and reject tables of one corpus file of any flavour.

    The flavour is detected from the file's head (`detect_flavour`) unless given. Aligned text gets its
    classes from `infer` (default: `ClassInference` by shape rules alone; the build passes one with the
    covering grammar), counted in `report.inference`. A file that is not text is rejected whole
    (`not_text`), one without any token line too (`no_tokens`; an empty one: `empty_file`). `source` names
    the file in rows (default: its file name). With `digest` (a hashlib object), every byte of the
    (decompressed) content is fed to it. A corrupt or truncated compressed file, or a read error, raises
    InputError.
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
            report.flavour = detect_flavour(head) if flavour == "auto" else flavour
            if report.flavour == "aligned" and infer is None:
                infer = ClassInference()
            for item in _READERS[report.flavour](handle, source, report, max_chars):
                if isinstance(item, TokenBlock) and report.flavour == "aligned":
                    item = infer(item, report)
                if item is not None:
                    yield item
    except (EOFError, OSError, zlib.error) as error:
        raise _read_error(path, error) from error
    if report.records == 0 and not report.rejects:
        yield _file_reject(report, source, "no_tokens")

