"""Paths local or remote (gs://… and any other Beam filesystem): checking, listing, reading, atomic writes.

Every operation on a user's dataset path goes through here. Local paths use the standard library; other
schemes go through Beam's FileSystems, imported only when such a path is used, so the trainers never need
Beam. Remote failures (no such bucket, no access) come back as one-line `PathError`s.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from tnforge.errors import InputError, TnforgeError

#: Prefix of the temporary names `write_atomically` writes before the final name (hidden from listings).
TEMPORARY = ".tmp-"
_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)
_COLLAPSED = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):/(?!/)")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$")
_SERVED: set[str] = set()  # schemes found served by a Beam filesystem


class PathError(TnforgeError, ValueError):
    """A path that cannot be used: a malformed URI, an unknown scheme, a bucket that is missing or refuses us."""


def is_remote(path: str | os.PathLike) -> bool:
    """True for paths with a URL scheme such as gs://."""
    return "://" in str(path)


def check_path(path: str | os.PathLike) -> str:
    """`path` as a string, or a PathError for a malformed URI: `gs://` without a bucket, a scheme no Beam
    filesystem serves, or `gs:/b/…` (one slash: it would silently become a local folder named `gs:`)."""
    path = str(path)
    found = _URI.match(path)
    if found is None:
        if collapsed := _COLLAPSED.match(path):
            raise PathError(f"{path}: not a valid URI (a slash is missing: {collapsed.group(1)}://…)")
        return path
    scheme, rest = found.group(1).lower(), found.group(2)
    if scheme == "gs":
        bucket = rest.split("/", 1)[0]
        if not bucket:
            raise PathError(f"{path}: no bucket name")
        if not _BUCKET.match(bucket):
            raise PathError(f"{path}: {bucket!r} is not a valid bucket name")
    if scheme not in _SERVED:
        try:
            _filesystems().get_filesystem(path)
        except (ImportError, ValueError) as error:
            extra = " (pip install 'tnforge[gcp]')" if scheme == "gs" else " (is its apache-beam extra installed?)"
            raise PathError(f"{path}: no filesystem serves {scheme}://{extra}") from error
        _SERVED.add(scheme)
    return path


def _filesystems() -> Any:
    from apache_beam.io.filesystems import FileSystems

    return FileSystems


@contextlib.contextmanager
def remote_errors(path: str, action: str) -> Iterator[None]:
    """Turn a remote filesystem's failure (Beam's BeamIOError, a storage client's HTTP error) into a one-line
    PathError naming `path`; a PathError or FileNotFoundError passes through. Cloud Storage that cannot be
    reached at all fails here within seconds (`reachability`), before the storage client's minutes of retries."""
    from tnforge.reachability import unreachable

    if why := unreachable(path):
        raise PathError(f"{path}: not reachable ({why}); check the network connection (or STORAGE_EMULATOR_HOST)")
    try:
        yield
    except (PathError, FileNotFoundError, IsADirectoryError):
        raise
    except Exception as error:  # noqa: BLE001 - every remote failure: unreachable, refused, missing bucket
        raise PathError(f"{path}: cannot {action} ({_reason(error)})") from error


def _reason(error: BaseException) -> str:
    """A short reason for a remote failure."""
    text = str(error)
    if "NotFound" in text or " 404" in text or "404," in text:
        return "not found: does the bucket exist?"
    if "Forbidden" in text or " 403" in text or "403," in text:
        return "access denied"
    return (text.strip().splitlines() or [type(error).__name__])[0][:200]


def expand(pattern: str) -> list[tuple[str, int]]:
    """Files matching a path or glob, with their sizes, sorted by path. Raises FileNotFoundError if none."""
    if is_remote(pattern):
        with remote_errors(check_path(pattern), "list"):
            results = _filesystems().match([pattern])[0].metadata_list
        found = sorted((m.path, m.size_in_bytes) for m in results if not _hidden(m.path))
    else:
        check_path(pattern)
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


def name_of(path: str | os.PathLike) -> str:
    """The last component of a local path or URI."""
    return str(path).rstrip("/").rsplit("/", 1)[-1]


def _hidden(path: str) -> bool:
    return name_of(path).startswith(".")


def matching(pattern: str) -> list[str]:
    """Paths matching a glob, local or remote (`**` spans folders); none is an empty list. Temporary and other
    hidden files (names starting with ".") are left out."""
    if is_remote(pattern):
        with remote_errors(check_path(pattern), "list"):
            found = [m.path for m in _filesystems().match([pattern])[0].metadata_list]
    else:
        found = glob.glob(pattern, recursive=True)
        found = [path for path in found if os.path.isfile(path)]
    return sorted(path for path in found if not _hidden(path))


def list_files(folder: str | os.PathLike, pattern: str = "*", recursive: bool = False) -> list[str]:
    """Files directly in `folder` (or below it, with `recursive`) whose names match `pattern`, sorted; hidden
    files left out; a missing folder has none."""
    folder = str(folder)
    if not is_remote(folder):
        return matching(os.path.join(folder, "**", pattern) if recursive else os.path.join(folder, pattern))
    from fnmatch import fnmatchcase

    with remote_errors(check_path(folder), "list"):
        found = matching_all(join(folder, "**" if recursive else "*"))
    start = len(folder.rstrip("/")) + 1  # hidden: any name below `folder` that starts with "." (as glob does)
    return [path for path in found if fnmatchcase(name_of(path), pattern)
            and not any(part.startswith(".") for part in path[start:].split("/"))]


#: How deep below a folder that is no dataset directory its Parquet files are looked for: in it and in its
#: sub-folders (a dataset's `examples/` with train/dev/test), never a whole tree (a folder like /tmp).
PARQUET_DEPTH = 2


def parquet_files(folder: str | os.PathLike) -> list[str]:
    """The Parquet files directly in `folder` or in its sub-folders (`PARQUET_DEPTH`), sorted; hidden ones left
    out. Deeper files are not looked for, so a big tree is refused before any of it is read."""
    folder = str(folder)
    if not is_remote(folder):
        return sorted(found for depth in range(PARQUET_DEPTH)
                      for found in matching(os.path.join(folder, *["*"] * depth, "*.parquet")))
    start = len(folder.rstrip("/")) + 1
    return [path for path in list_files(folder, "*.parquet", recursive=True)
            if path[start:].count("/") < PARQUET_DEPTH]


class NotParquet(InputError, ValueError):
    """A file read as Parquet that is none (or is damaged): named with pyarrow's reason."""

    def __init__(self, path: str | os.PathLike, error: BaseException) -> None:
        reason = str(error).split(". ")[0].strip().rstrip(".")
        super().__init__(f"{path}: not a Parquet file ({reason})")


@contextlib.contextmanager
def _parquet_errors(path: str | os.PathLike) -> Iterator[None]:
    import pyarrow as pa

    try:
        yield
    except pa.ArrowInvalid as error:
        raise NotParquet(path, error) from error


def exists(path: str | os.PathLike) -> bool:
    """Whether `path` is a file, or a folder (remote: a prefix some object lies under)."""
    path = str(path)
    if not is_remote(path):
        return os.path.exists(check_path(path))
    return is_file(path) or is_folder(path)


def is_file(path: str | os.PathLike) -> bool:
    """Whether `path` is a file (remote: an object of that exact name)."""
    path = str(path)
    if not is_remote(path):
        return os.path.isfile(path)
    with remote_errors(check_path(path), "read"):
        return bool(_filesystems().exists(path)) and not path.endswith("/")


def is_folder(path: str | os.PathLike) -> bool:
    """Whether `path` is a folder (remote: some object's name starts with `path/`)."""
    path = str(path)
    if not is_remote(path):
        return os.path.isdir(path)
    with remote_errors(check_path(path), "list"):
        return bool(_filesystems().match([path.rstrip("/") + "/**"], limits=[1])[0].metadata_list)


def has_contents(path: str | os.PathLike) -> bool:
    """Whether `path` is a folder with anything in it (hidden files and empty sub-folders count)."""
    path = str(path)
    if not is_remote(path):
        return os.path.isdir(path) and bool(os.listdir(path))
    return is_folder(path)


def make_folder(path: str | os.PathLike) -> None:
    """Create a local folder (and its parents); remote stores have no folders, so nothing to do there."""
    if not is_remote(str(path)):
        os.makedirs(check_path(path), exist_ok=True)


def remove(path: str) -> None:
    """Delete a file or a whole directory, local or remote; a missing path is no error."""
    if is_remote(path):
        with remote_errors(check_path(path), "delete"):
            found = matching_all(path.rstrip("/") + "/**")  # a folder's objects, hidden ones too
            found += [path] if _filesystems().exists(path) else []
            if found:
                _filesystems().delete(found)
    elif os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def matching_all(pattern: str) -> list[str]:
    """Every object matching a remote glob, hidden ones included."""
    return sorted(m.path for m in _filesystems().match([pattern])[0].metadata_list)


def remove_temporaries(root: str | os.PathLike) -> list[str]:
    """Delete what interrupted atomic writes left below `root` (`.tmp-…` files: a worker that died between
    writing a temporary file and renaming it); run once a pipeline has finished. The paths removed."""
    root = str(root)
    if is_remote(root):
        with remote_errors(check_path(root), "list"):
            found = [p for p in matching_all(join(root, "**")) if name_of(p).startswith(TEMPORARY)]
            if found:
                _filesystems().delete(found)
        return found
    found = [os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names
             if name.startswith(TEMPORARY)]
    for path in found:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
    return found


def open_binary(path: str) -> IO[bytes]:
    """Open a file for reading bytes, decompressing .gz/.bz2 transparently."""
    if is_remote(path):
        from apache_beam.io.filesystems import CompressionTypes

        with remote_errors(check_path(path), "read"):
            return _filesystems().open(path, compression_type=CompressionTypes.AUTO)
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    return open(path, "rb")


def open_seekable(path: str | os.PathLike) -> IO[bytes]:
    """Open a file for random-access reading of its raw bytes (Parquet footers, Arrow files); remote files
    are read in ranges as they are asked for, not downloaded whole."""
    path = str(path)
    if is_remote(path):
        from apache_beam.io.filesystems import CompressionTypes

        with remote_errors(check_path(path), "read"):
            if not _filesystems().exists(path):
                raise FileNotFoundError(f"{path}: no such file")
            return _filesystems().open(path, compression_type=CompressionTypes.UNCOMPRESSED)
    return open(path, "rb")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The whole content of a (small) file."""
    with open_seekable(path) as handle:
        return handle.read()


@contextlib.contextmanager
def write_atomically(path: str) -> Iterator[IO[bytes]]:
    """Write to a temporary name beside `path`, then rename it into place (never a half-written file under the
    final name). Remote: the temporary object is copied to `path` and deleted; a retried write uses a new
    temporary name, so two attempts never collide, and the last rename wins with the same bytes."""
    path = check_path(path)
    directory, name = (path.rsplit("/", 1) if is_remote(path) else os.path.split(path))
    temp_name = f"{TEMPORARY}{uuid.uuid4().hex[:12]}-{name}"
    temp = join(directory, temp_name) if directory else temp_name
    if is_remote(path):
        filesystems = _filesystems()
        with remote_errors(path, "write"):
            handle = filesystems.create(temp)
        try:
            yield handle
        except BaseException:
            with contextlib.suppress(Exception):
                handle.close()
                filesystems.delete([temp])
            raise
        try:
            with remote_errors(path, "write"):
                handle.close()
                filesystems.rename([temp], [path])
        except BaseException:
            with contextlib.suppress(Exception):
                filesystems.delete([temp])
            raise
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
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_bytes(path: str | os.PathLike, data: bytes) -> str:
    """Write `data` to `path` atomically (local or remote); return the path."""
    with write_atomically(str(path)) as handle:
        handle.write(data)
    return str(path)


def write_text(path: str | os.PathLike, text: str) -> str:
    """Write UTF-8 `text` to `path` atomically (local or remote); return the path."""
    return write_bytes(path, text.encode("utf-8"))


def read_parquet(path: str | os.PathLike, columns: list[str] | None = None,
                 read_dictionary: list[str] | None = None) -> Any:
    """One Parquet file as a pyarrow Table (some columns), local or remote (`NotParquet` naming a file that is
    none); `read_dictionary` columns come dictionary-encoded (cheap for repetitive strings)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if not is_remote(str(path)):
            return pq.read_table(path, columns=columns, read_dictionary=read_dictionary)
        with open_seekable(path) as handle:
            return pq.read_table(handle, columns=columns, read_dictionary=read_dictionary)
    except pa.ArrowInvalid:
        parquet_file(path)  # NotParquet when the file is none; else the error was another (a missing column)
        raise


def parquet_file(path: str | os.PathLike, download: bool = False) -> Any:
    """A `pyarrow.parquet.ParquetFile` of a local or remote file (`NotParquet` naming a file that is none).
    Remote: read in ranges as asked, or, with `download` (for reading a whole shard), fetched in one request
    into memory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with _parquet_errors(path):
        if not is_remote(str(path)):
            return pq.ParquetFile(path)
        if download:
            return pq.ParquetFile(pa.BufferReader(read_bytes(path)))
        return pq.ParquetFile(open_seekable(path))


def open_arrow_file(path: str):
    """An Arrow IPC file reader: memory-mapped for local paths, read into memory for remote ones."""
    import pyarrow as pa

    if is_remote(path):
        return pa.ipc.open_file(pa.BufferReader(read_bytes(path)))
    return pa.ipc.open_file(pa.memory_map(path))


def write_text_files(folder: str | os.PathLike, texts: Mapping[str, str]) -> list[str | Path]:
    """Write each `{name: text}` as a UTF-8 file in `folder` (local: created; or remote), atomically; the
    paths written (Paths for a local folder)."""
    written: list[str | Path] = []
    for name, text in texts.items():
        path = write_text(join(folder, name), text)
        written.append(path if is_remote(str(folder)) else Path(path))
    return written


def check_writable(folder: str | os.PathLike) -> None:
    """Create `folder` (local) and write, then delete, a probe file in it; a PathError saying why not."""
    import logging

    folder = check_path(folder)
    probe = join(folder, f".tnforge-probe-{uuid.uuid4().hex[:12]}")
    quiet = [logging.getLogger(name) for name in ("apache_beam.utils.retry", "apache_beam.internal.gcp.auth")]
    levels = [logger.level for logger in quiet]
    try:
        for logger in quiet:  # retries and credential lookups: the outcome is the one line raised
            logger.setLevel(logging.ERROR)
        make_folder(folder)
        write_bytes(probe, b"")
        remove(probe)
    except PathError as error:
        cause = error.__cause__ or error
        raise PathError(f"{folder}: not reachable ({_reason(cause)})") from error
    except OSError as error:
        raise PathError(f"{folder}: cannot create or write to it ({error.strerror or error})") from error
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)
