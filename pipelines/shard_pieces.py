"""The pieces of one shard, read a column at a time: what the writer sorts and writes a shard from.

A piece is an Arrow table, a spilled Arrow file, or a spilled file's record batches (path, first, stop). Local
files are memory-mapped and read one column at a time (zero-copy: only that column's pages are read, and they
are dropped from memory before the next column), so writing a shard holds one of its columns, not all of them; remote
pieces are read whole once (one request each, not one per column).
"""

from __future__ import annotations

import mmap
from collections.abc import Iterable

import pyarrow as pa

from tnforge.filesystems import is_remote, open_arrow_file, open_seekable

#: A piece of one shard spilled to scratch: (Arrow file, its first record batch, one past its last).
SpilledPiece = tuple[str, int, int]
Piece = pa.Table | str | SpilledPiece


def load(piece: Piece) -> pa.Table:
    """A piece's rows, every column."""
    if isinstance(piece, pa.Table):
        return piece
    if isinstance(piece, str):
        return open_arrow_file(piece).read_all()
    path, first, stop = piece
    if not is_remote(path):
        reader = pa.ipc.open_file(pa.memory_map(path))
        return pa.Table.from_batches([reader.get_batch(i) for i in range(first, stop)], reader.schema)
    with open_seekable(path) as handle:  # only this shard's batches, by byte ranges
        reader = pa.ipc.open_file(handle)
        return pa.Table.from_batches([reader.get_batch(i) for i in range(first, stop)], reader.schema)


def _is_local_file(piece: Piece) -> bool:
    return not isinstance(piece, pa.Table) and not is_remote(piece if isinstance(piece, str) else piece[0])


class _MappedFile:
    """A local Arrow IPC file, memory-mapped once and read zero-copy; `drop_pages` takes its pages out of this
    process's resident memory (they are read again from the page cache if needed)."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        reader = pa.ipc.open_file(pa.BufferReader(pa.py_buffer(self._map)))
        self.batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]  # metadata read once
        self.schema = reader.schema

    def drop_pages(self) -> None:
        if hasattr(mmap, "MADV_DONTNEED"):  # Linux, macOS; a read-only file mapping: nothing is lost
            self._map.madvise(mmap.MADV_DONTNEED)


class ShardPieces:
    """A shard's pieces in a fixed order (by `digest` of each piece's `key` column and row count), served one
    column at a time (`column`), cast to the shard's schema. Each local file is mapped once; the pages of the
    column served before are dropped from memory when the next is asked for, so one column is resident."""

    def __init__(self, pieces: Iterable[Piece | None], schema: pa.Schema, digest) -> None:  # noqa: ANN001
        self._schema = schema
        self._files: dict[str, _MappedFile] = {}
        self._pieces = [p if _is_local_file(p) else load(p) for p in pieces if p is not None]
        keys = [self._read(piece, "key") for piece in self._pieces]
        order = sorted(range(len(keys)), key=lambda i: digest(pa.table({"key": keys[i]})))
        self._pieces = [self._pieces[i] for i in order]
        self.num_rows = sum(len(keys[i]) for i in order)

    def column(self, name: str) -> pa.ChunkedArray:
        """Column `name` of every piece, in their order, as the schema types it."""
        for mapped in self._files.values():
            mapped.drop_pages()
        chunks = [chunk for piece in self._pieces for chunk in self._read(piece, name).chunks]
        kind = self._schema.field(name).type
        return pa.chunked_array(chunks, chunks[0].type if chunks else kind).cast(kind)

    def _read(self, piece: Piece, name: str) -> pa.ChunkedArray:
        if isinstance(piece, pa.Table):
            return piece.column(name)
        path, first, stop = (piece, 0, None) if isinstance(piece, str) else piece
        if path not in self._files:
            self._files[path] = _MappedFile(path)
        mapped = self._files[path]  # zero-copy: only the column's pages are read
        field = mapped.schema.get_field_index(name)
        batches = mapped.batches[first:stop]
        return pa.chunked_array([batch.column(field) for batch in batches], mapped.schema.field(field).type)
