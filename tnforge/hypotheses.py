"""A folder of top-k hypotheses (`tnforge decode --out FOLDER`): its shard files and its commit record.

`decode` writes `part-SSSSS-of-NNNNN.parquet` shards (rows by the stable hash of their key, each shard sorted by
key and rank: `tnforge.datasets`), then `_hypotheses.json` last, listing the parts. A folder without that file
is an unfinished decode, and nothing reads it (`complete_parts`); a folder that already holds hypotheses is
never written into (`refuse_existing`). Torch- and Beam-free: one process and the Beam pipeline share it.
"""

from __future__ import annotations

import json
from typing import Any

from tnforge.filesystems import (
    exists,
    is_folder,
    join,
    list_files,
    name_of,
    parquet_file,
    read_bytes,
    write_text,
)

#: The commit record of a hypotheses folder, written last.
MARKER = "_hypotheses.json"


def shard_count(inputs: int, top_k: int, rows_per_file: int) -> int:
    """Shards for `inputs` inputs of up to `top_k` hypotheses each, about `rows_per_file` rows a shard."""
    return max(1, -(-inputs * top_k // rows_per_file))


def settings(split: str | None, beam: int, top_k: int, copies: bool, inputs: int) -> dict[str, Any]:
    """What `_hypotheses.json` records besides its parts: the same whatever runner decoded."""
    return {"split": split, "beam": beam, "top_k": top_k, "copies": copies, "inputs": inputs}


def refuse_existing(out: str) -> None:
    """ValueError (one line) when folder `out` already holds hypotheses, complete or not."""
    if not is_folder(out):
        return
    found = list_files(out, "*.parquet", recursive=True)
    if exists(join(out, MARKER)) or found:
        what = "a complete decode" if exists(join(out, MARKER)) else f"{len(found)} part file(s) of an unfinished decode"
        raise ValueError(f"{out}: already holds hypotheses ({what}): decode into a new folder, or remove it first")


def write_marker(out: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Write `out/_hypotheses.json` (the parts now in `out`, their rows, and `settings`); returns it."""
    parts = [name_of(path) for path in list_files(out, "part-*.parquet")]
    rows = sum(parquet_file(join(out, part)).metadata.num_rows for part in parts)
    record = {"complete": True, **settings, "rows": rows, "parts": parts}
    write_text(join(out, MARKER), json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def complete_parts(folder: str) -> list[str]:
    """The part files of every complete decode below `folder` (each with its `_hypotheses.json`), sorted.
    ValueError (one line) for a Parquet file no complete decode lists: an unfinished or killed decode."""
    markers = [path for path in list_files(folder, MARKER, recursive=True)]
    listed: set[str] = set()
    for marker in markers:
        record = json.loads(read_bytes(marker))
        base = marker[: -len(MARKER)].rstrip("/\\")
        if record.get("complete"):
            listed.update(join(base, part) for part in record.get("parts", []))
    found = list_files(folder, "*.parquet", recursive=True)
    unlisted = sorted(set(found) - listed)
    if unlisted:
        where = unlisted[0].rsplit("/", 1)[0] if "/" in unlisted[0] else folder
        raise ValueError(f"{where}: hypotheses without a complete {MARKER} (an unfinished or killed decode): "
                         "decode again into a new folder")
    return sorted(listed & set(found))
