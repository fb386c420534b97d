"""Whole folders between local disk and a remote store (gs://…): a model run trained on one machine and read by
workers elsewhere. Files are streamed in chunks and each is written atomically (`filesystems.write_atomically`),
so a copy interrupted halfway leaves no half-written file under a final name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tnforge.filesystems import is_file, is_remote, join, list_files, name_of, open_seekable, write_atomically

_CHUNK = 8 << 20


def copy_file(source: str | os.PathLike, target: str | os.PathLike) -> None:
    """Copy one file, local or remote on either side, atomically at `target`."""
    with open_seekable(source) as reader, write_atomically(str(target)) as writer:
        while chunk := reader.read(_CHUNK):
            writer.write(chunk)


def copy_folder(source: str | os.PathLike, target: str | os.PathLike) -> list[str]:
    """Copy every (non-hidden) file below `source` to the same place below `target` (either may be remote);
    the target paths, in the order written."""
    source = str(source).rstrip("/")
    written = []
    for path in list_files(source, recursive=True):
        relative = path[len(source) + 1:] if is_remote(source) else os.path.relpath(path, source)
        destination = join(target, *relative.replace(os.sep, "/").split("/"))
        copy_file(path, destination)
        written.append(destination)
    if not written:
        raise FileNotFoundError(f"{source}: no such folder, or nothing in it")
    return written


@contextlib.contextmanager
def local_copy(path: str | os.PathLike) -> Iterator[Path]:
    """A local path to read `path` from: the path itself when it is local; for a remote file or folder, a
    temporary copy, removed on leaving (what was loaded from it stays in memory)."""
    if not is_remote(str(path)):
        yield Path(path)
        return
    scratch = tempfile.mkdtemp(prefix="tnforge-copy-")
    try:
        local = Path(scratch) / name_of(path)
        if is_file(path):
            copy_file(path, local)
        else:
            copy_folder(path, local)
        yield local
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
