"""Which split a sentence belongs to: the standard corpus split, a stable hash split, or none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tnforge.hashing import TWO_64, mix64
from tnforge.sources import standard_shard_index

EXCLUDED = "excluded"
#: The standard test set: the first 100,002 lines of shard 99.
STANDARD_TEST_SHARD = 99
STANDARD_TEST_LINES = 100_002
SPLIT_MODES = ("auto", "standard", "hash", "none")


@dataclass(frozen=True)
class SplitRule:
    """How to route sentences to splits. `mode` is 'standard', 'hash' or 'none' (resolved from 'auto')."""

    mode: str
    ratios: tuple[float, float, float] = (0.9, 0.05, 0.05)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in ("standard", "hash", "none"):
            raise ValueError(f"split mode must be standard, hash or none, not {self.mode!r}")
        if len(self.ratios) != 3 or any(r < 0 for r in self.ratios) or abs(sum(self.ratios) - 1) > 1e-6:
            raise ValueError(f"split ratios must be three non-negative numbers summing to 1, not {self.ratios}")

    def file_split(self, path: str) -> str | None:
        """The split of every sentence of a standard shard, None where it depends on the line (shard 99)."""
        index = standard_shard_index(path)
        if index is None:
            raise ValueError(f"{path}: not named like a standard shard (output-000NN-of-00100)")
        if index <= 89:
            return "train"
        if index <= 94:
            return "dev"
        return None if index == STANDARD_TEST_SHARD else EXCLUDED

    def sentence_split(self, file_split: str | None, text_hash: int, last_line: int) -> str:
        """The split of one sentence, given its file's split, the hash of its text and its last line."""
        if self.mode == "none":
            return "train"
        if self.mode == "standard":
            if file_split is not None:
                return file_split
            return "test" if last_line <= STANDARD_TEST_LINES else EXCLUDED
        u = mix64(text_hash ^ (self.seed * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF)) / TWO_64
        if u < self.ratios[0]:
            return "train"
        return "dev" if u < self.ratios[0] + self.ratios[1] else "test"


def resolve_mode(mode: str, paths: Sequence[str]) -> str:
    """'auto' becomes 'standard' when every input is named like a corpus shard, else 'hash'."""
    if mode not in SPLIT_MODES:
        raise ValueError(f"unknown split mode {mode!r}; use one of {', '.join(SPLIT_MODES)}")
    if mode != "auto":
        if mode == "standard":
            odd = [p for p in paths if standard_shard_index(p) is None]
            if odd:
                raise ValueError(f"--split standard needs files named output-000NN-of-00100; not: {odd[0]}")
        return mode
    return "standard" if paths and all(standard_shard_index(p) is not None for p in paths) else "hash"
