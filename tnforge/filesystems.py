"""Paths local or remote (gs://…): opening, listing and atomic writes.

Local paths use the standard library; other schemes go through Beam's FileSystems, imported only when
such a path is used, so the trainers never need Beam.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO


def is_remote(path: str) -> bool:
    """True for paths with a URL scheme such as gs://."""
    return "://" in path


def expand(pattern: str) -> list[tuple[str, int]]:
    """Files matching a path or glob, with their sizes, sorted by path. Raises FileNotFoundError if none."""
    if is_remote(pattern):
        from apache_beam.io.filesystems import FileSystems

        results = FileSystems.match([pattern])[0].metadata_list
        found = sorted((m.path, m.size_in_bytes) for m in results)
    else:
        paths = glob.glob(os.path.expanduser(pattern)) if glob.has_magic(pattern) else [pattern]
        found = []
        for path in sorted(paths):
            if os.path.isdir(path):
                raise IsADirectoryError(f"{path}: is a directory; give the corpus files or a glob")
            if not os.path.exists(path):
                continue
            if not os.access(path, os.R_OK):
                raise PermissionError(f"{path}: not readable")
            found.append((path, os.path.getsize(path)))
    if not found:
        raise FileNotFoundError(f"{pattern}: no such file")
    return found


def join(base: str | os.PathLike, *parts: str) -> str:
    """`base`/`parts…` for a local path or a URI (gs://…), where `os.path.join` would be wrong."""
    base = str(base)
    if is_remote(base):
        return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])
    return os.path.join(base, *parts)


def matching(pattern: str) -> list[str]:
    """Paths matching a glob, local or remote; none is an empty list."""
    if is_remote(pattern):
        from apache_beam.io.filesystems import FileSystems

        return sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
    return sorted(glob.glob(pattern))


def remove(path: str) -> None:
    """Delete a file or a whole directory, local or remote; a missing path is no error."""
    if is_remote(path):
        from apache_beam.io.filesystems import FileSystems

        found = matching(path.rstrip("/") + "/**")  # a folder's objects
        found += [path] if FileSystems.exists(path) else []
        if found:
            FileSystems.delete(found)
    elif os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def open_binary(path: str) -> IO[bytes]:
    """Open a file for reading bytes, decompressing .gz/.bz2 transparently."""
    if is_remote(path):
        from apache_beam.io.filesystems import CompressionTypes, FileSystems

        return FileSystems.open(path, compression_type=CompressionTypes.AUTO)
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    return open(path, "rb")


@contextlib.contextmanager
def write_atomically(path: str) -> Iterator[IO[bytes]]:
    """Write to a temporary name beside `path`, then rename it into place (never a half-written file)."""
    directory, name = os.path.split(path)
    temp = os.path.join(directory, f".tmp-{uuid.uuid4().hex[:12]}-{name}")
    if is_remote(path):
        from apache_beam.io.filesystems import FileSystems

        handle = FileSystems.create(temp)
        try:
            yield handle
        finally:
            handle.close()
        FileSystems.rename([temp], [path])
        return
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(temp, "wb") as handle:
        try:
            yield handle
        except BaseException:
            handle.close()
            os.unlink(temp)
            raise
    os.replace(temp, path)


def open_arrow_file(path: str):
    """An Arrow IPC file reader: memory-mapped for local paths, read into memory for remote ones."""
    import pyarrow as pa

    if is_remote(path):
        with open_binary(path) as handle:
            return pa.ipc.open_file(pa.BufferReader(handle.read()))
    return pa.ipc.open_file(pa.memory_map(path))


def write_text_files(folder: str | os.PathLike, texts: Mapping[str, str]) -> list[Path]:
    """Write each `{name: text}` as a UTF-8 file in the local `folder` (created), atomically; the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        with write_atomically(str(folder / name)) as handle:
            handle.write(text.encode("utf-8"))
        written.append(folder / name)
    return written


def open_parquet(path: str):
    """A `pyarrow.parquet.ParquetFile` of a local file, or of a remote one read into memory (one shard)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if is_remote(path):
        with open_binary(path) as handle:
            return pq.ParquetFile(pa.BufferReader(handle.read()))
    return pq.ParquetFile(path)


def write_bytes(path: str, data: bytes) -> None:
    """Write `data` to a local or remote path atomically (parent folders created)."""
    with write_atomically(path) as handle:
        handle.write(data)
