"""The options of a negatives run, with their defaults, and their checks against a dataset directory.

`resolve` turns what a user asked for into a runnable config: kinds checked against the registry, the
hypotheses file found, seed and shard count taken from the build when not given.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from tnforge.datasets import dataset_path
from tnforge.filesystems import PathError, check_path, exists, is_folder, list_files
from tnforge.generators.negative_sampling import DEFAULT_CAP
from tnforge.generators.negatives import (
    HYPOTHESES,
    GeneratorError,
    check_kinds,
    default_kinds,
    kinds,
    needing,
)
from tnforge.manifest import build_config, read_manifest, require_dataset
from tnforge.schemas import SPLITS


class NegativesOptionError(ValueError):
    """An option value that cannot work; `option` names it ("--kinds", "--topk-from", "DIR", …)."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class NegativesConfig:
    """What `tnforge negatives` generates (seed None and shards 0 mean: as the build; units 0: from the data)."""

    kinds: tuple[str, ...] = field(default_factory=default_kinds)
    ratio: float | None = 10.0  # negatives per positive; None: every candidate, up to `cap`
    cap: int = DEFAULT_CAP
    topk_from: str | None = None
    grammar: bool | None = None  # None: when pynini and the grammar are installed
    trivial: bool = True
    seed: int | None = None
    shards: int = 0
    units: int = 0  # work units; 0: from the data (one per 50k distinct inputs); the files are the same for any


def parse_kinds(value: str, required: bool = True) -> tuple[str, ...]:
    """"synthetic,random" → ("synthetic", "random"), checked against the kind registry (no kinds: an error,
    or () when not `required`)."""
    chosen = tuple(k.strip() for k in value.split(",") if k.strip())
    if not chosen and not required:
        return ()
    known = kinds()
    if not chosen or any(k not in known for k in chosen):
        raise NegativesOptionError(f"{value!r}: choose one or more of {', '.join(known)} (comma-separated)", "--kinds")
    return chosen


def positive_shards(root: str | Path) -> int:
    """Shards per split of a dataset's positive pairs (the most in any split), or 1."""
    counts = [len(list_files(dataset_path(root, "positive_pairs", split), "part-*.parquet")) for split in SPLITS]
    return max(counts, default=0) or 1


#: Output rows per shard the automatic shard count aims at (the writer sorts one shard in memory), and
#: vocabulary pairs per pair (about 5 words a reading): a 10M-token build's 170k pairs → 10 shards.
ROWS_PER_SHARD = 1_000_000
VOCAB_ROWS_PER_PAIR = 5


def output_shards(root: str | Path, ratio: float | None) -> int:
    """Shards per split for the negatives' outputs, from the positive pairs the manifest counts: the vocabulary
    pairs (the larger output) at about ROWS_PER_SHARD rows a shard, so the writer's memory stays bounded."""
    counts = (read_manifest(root, missing_ok=True) or {}).get("datasets", {}).get("positive_pairs", {})
    positives = max((int(n) for n in counts.values()), default=0) if isinstance(counts, dict) else 0
    rows = positives * (1 + (ratio if ratio is not None else 10)) * VOCAB_ROWS_PER_PAIR
    return max(1, -(-int(rows) // ROWS_PER_SHARD))


def resolve(root: str | Path, config: NegativesConfig) -> NegativesConfig:
    """The config checked for `root`: a hypotheses file implies top-k, seed and shards default to the build's."""
    chosen = tuple(config.kinds)
    if config.topk_from and not needing(HYPOTHESES, chosen):
        chosen += tuple(needing(HYPOTHESES, kinds())[:1])  # a hypotheses file implies the kind that reads it
    try:
        check_kinds(chosen, config.topk_from)
    except GeneratorError as error:
        raise NegativesOptionError(str(error), "--kinds") from error
    try:
        if config.topk_from and not exists(check_path(config.topk_from)):
            raise NegativesOptionError(f"{config.topk_from}: no such file", "--topk-from")
        if not is_folder(check_path(root)):
            raise NegativesOptionError(f"{root}: no such dataset directory", "DIR")
    except PathError as error:
        raise NegativesOptionError(str(error), "DIR" if str(error).startswith(str(root)) else "--topk-from") from error
    require_dataset(root)
    build = build_config(root)
    seed = config.seed if config.seed is not None else int(build.get("seed", 0))
    shards = config.shards or max(int(build.get("shards") or 0) or positive_shards(root),
                                  output_shards(root, config.ratio))
    return replace(config, kinds=chosen, seed=seed, shards=shards)
