"""Names of input files: what rows carry as `source`, the stem used in keys, the standard corpus shard index."""

from __future__ import annotations

import os
import re

_STANDARD_SHARD = re.compile(r"^output-(\d{5})-of-(\d{5})$")


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


