"""Pass 2 hands a file's tables on in bounded pieces (pipelines/build.PendingPieces); where they are cut changes
no output byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa

from tnforge.pipelines import build as build_module
from tnforge.pipelines.build import PendingPieces
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import run_build


def _rows(start: int, n: int) -> pa.Table:
    return pa.table({"key": pa.array(range(start, start + n), pa.uint64())})


def test_pending_pieces_hand_on_every_row_once_per_key_when_the_limit_is_reached():
    pieces = PendingPieces(limit=_rows(0, 10).nbytes * 2)
    handed = [*pieces.add(("sentences", "train"), _rows(0, 10)), *pieces.add(("examples", "dev"), _rows(10, 5))]
    assert handed == []  # below the limit: held
    handed = [*pieces.add(("examples", "dev"), _rows(15, 5))]  # reaches it: everything held, in key order
    assert [(key, table.column("key").to_pylist()) for key, table in handed] == [
        (("examples", "dev"), list(range(10, 20))), (("sentences", "train"), list(range(10)))]
    assert [*pieces.flush()] == []
    handed = [*pieces.add(("examples", "dev"), _rows(20, 1)), *pieces.flush()]
    assert [(key, table.num_rows) for key, table in handed] == [(("examples", "dev"), 1)]


def _hashes(root: Path) -> dict[str, str]:
    return {f.relative_to(root).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(root.rglob("*.parquet"))}


def test_pieces_cut_at_every_table_give_the_same_files(tmp_path, bundled_tsv, monkeypatch):
    from tnforge import token_blocks

    monkeypatch.setattr(token_blocks, "BLOCK_BYTES", 4096)  # the sample read in many blocks: many tables a key
    config = {"inputs": (str(bundled_tsv),), "shards": 2}
    run_build(BuildConfig(out=str(tmp_path / "whole"), **config))
    monkeypatch.setattr(build_module, "PENDING_BYTES", 1)  # every table handed on alone
    run_build(BuildConfig(out=str(tmp_path / "cut"), **config))
    whole = _hashes(tmp_path / "whole")
    assert len(whole) == 19 and _hashes(tmp_path / "cut") == whole
