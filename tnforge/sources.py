"""Names of input files: what rows carry as `source`, the name keys derive from, the corpus shard index.

Every input of a build gets a distinct source name: its path relative to the inputs' common folder (for
one file or files of one folder: its file name, as always), so equal file names in other folders, or
`x.tsv` beside `x.csv`, never share keys.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_STANDARD_SHARD = re.compile(r"^output-(\d{5})-of-(\d{5})$")
#: What marks the source of an augmented sentence (`tnforge build --augment-sentences`): `SOURCE#augment-N`.
AUGMENT_MARK = "#augment-"
#: What marks the source of a synthesized example (`tnforge build --synthesize`): `SOURCE#synthesized`; of a
#: synthesized sentence: `SOURCE#synthesized-N` (copy N, as augmented sentences).
SYNTHESIZED_MARK = "#synthesized"
_COMPRESSION = (".gz", ".bz2")
_FORMATS = (".tsv", ".csv", ".txt")


def _strip(name: str, suffixes: Sequence[str]) -> str:
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def source_name(path: str) -> str:
    """The file's name without folders and compression suffix (a single input's `source`)."""
    return _strip(os.path.basename(path.rstrip("/")), _COMPRESSION)


def source_stem(path: str) -> str:
    """The source name without a .tsv/.csv/.txt extension: a single input's identity in keys."""
    return _strip(source_name(path), _FORMATS)


def augmented_source(source: str, copy: int) -> str:
    """The `source` of augmented copy number `copy` (1..N) of a file's sentences."""
    return f"{source}{AUGMENT_MARK}{copy}"


def is_augmented(source: str) -> bool:
    """Whether a row's `source` marks an augmented sentence (count them, or filter them out, by this)."""
    return AUGMENT_MARK in source


def synthesized_source(source: str, copy: int = 0) -> str:
    """The `source` of a file's synthesized examples (`copy` 0), or of its synthesized sentences' copy `copy`."""
    return source + SYNTHESIZED_MARK + (f"-{copy}" if copy else "")


def is_synthesized(source: str) -> bool:
    """Whether a row's `source` marks a synthesized example or sentence (count them, or leave them out of
    reports, by this)."""
    return SYNTHESIZED_MARK in source


def standard_shard_index(path: str) -> int | None:
    """NN for files named like the corpus shards `output-000NN-of-00100`, else None."""
    match = _STANDARD_SHARD.match(source_stem(path))
    return int(match.group(1)) if match and int(match.group(2)) == 100 else None


def file_identity(path: str) -> str:
    """What makes two names the same file: the resolved local path (links followed), or the URI."""
    return path if "://" in path else os.path.realpath(os.path.expanduser(path))


@dataclass(frozen=True)
class InputFile:
    """One input of a build: its path and size, the `source` its rows carry, the name its keys derive from."""

    path: str
    size: int
    source: str
    key_name: str


def _distinct(names: list[str], fallbacks: list[str]) -> list[str]:
    """`names`, with each name that several entries share replaced by that entry's (distinct) fallback."""
    counts = Counter(names)
    chosen = [fallback if counts[name] > 1 else name for name, fallback in zip(names, fallbacks, strict=True)]
    return chosen if len(set(chosen)) == len(chosen) else list(fallbacks)


def _relative_names(paths: Sequence[str]) -> list[str]:
    """Each path relative to the folder all of them share (the full path or URI when they share none)."""
    parts = [(p if "://" in p else os.path.abspath(os.path.expanduser(p))).split("/") for p in paths]
    common = parts[0][:-1]
    for other in parts[1:]:
        folder = other[:-1]
        n = 0
        while n < min(len(common), len(folder)) and common[n] == folder[n]:
            n += 1
        common = common[:n]
    return ["/".join(p[len(common):]) if common else "/".join(p) for p in parts]


def name_inputs(files: Sequence[tuple[str, int]]) -> list[InputFile]:
    """Distinct source names and key names of a build's (path, size) inputs, in the order given.

    The source is the path relative to the common folder without a compression suffix (the suffix kept
    where that alone tells two files apart); the key name drops a .tsv/.csv/.txt extension too, unless
    two inputs would then share it. One input keeps its file name (`source_name`/`source_stem`).
    """
    if not files:
        return []
    relative = _relative_names([path for path, _ in files])
    sources = _distinct([_strip(name, _COMPRESSION) for name in relative], relative)
    keys = _distinct([_strip(name, _FORMATS) for name in sources], sources)
    return [InputFile(path, size, source, key) for (path, size), source, key in zip(files, sources, keys, strict=True)]
