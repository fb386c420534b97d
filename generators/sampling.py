"""Down-sampling of trivial tokens and up-sampling of rare MEASURE units and big CARDINALs.

Decisions are made by a stable 64-bit hash `u` of each example's key (seeded), never by a random
generator, so they are identical on every runner and worker count:

* trivial (`<self>`/`sil`) train tokens are kept when `u` is below a threshold chosen from a global
  histogram of `u`, which makes them the configured fraction of train examples to within one histogram
  bucket (≈ T / 65,536 tokens);
* each member of an up-sampled group (a MEASURE unit seen fewer than `measure_min_count` times, or the
  CARDINALs of value ≥ `cardinal_min_value`) gets ⌊target / n⌋ copies, plus one for the members whose `u`
  ranks among the first `target mod n` — so the group has exactly `target` examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tnforge.hashing import mix64
from tnforge.tokens import cardinal_value, measure_unit

HIST_BITS = 16
_HIST_SHIFT = np.uint64(64 - HIST_BITS)
KEEP_ALL = 1 << 64


@dataclass(frozen=True)
class SamplingOptions:
    """Targets for the train split; see the module docstring."""

    trivial_fraction: float = 0.10
    measure_min_count: int = 100
    cardinal_min_value: int = 1_000_000
    cardinal_target: int = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.trivial_fraction <= 1:
            raise ValueError(f"trivial fraction must be in (0, 1], not {self.trivial_fraction}")
        if self.measure_min_count < 0 or self.cardinal_target < 0:
            raise ValueError("up-sampling targets must be non-negative")


def sample_hashes(keys: np.ndarray, seed: int) -> np.ndarray:
    """The sampling hash `u` of example keys under a seed."""
    salt = np.uint64(mix64((seed + 0x51ED5EED) & ((1 << 64) - 1)))
    return mix64(np.asarray(keys, dtype=np.uint64) ^ salt)


def upsample_group(before: str, cls: str, options: SamplingOptions) -> str | None:
    """The up-sampling group a train token may belong to: 'measure:<unit>', 'cardinal:big', or None."""
    if cls == "MEASURE":
        unit = measure_unit(before)
        return f"measure:{unit}" if unit else None
    if cls == "CARDINAL":
        value = cardinal_value(before)
        if value is not None and value >= options.cardinal_min_value:
            return "cardinal:big"
    return None


@dataclass
class GroupStats:
    """Size of an up-sampling group, and the hashes of its members while it is small enough to up-sample."""

    count: int = 0
    members: list[int] | None = field(default_factory=list)

    def add(self, u: int, limit: int) -> None:
        self.count += 1
        if self.members is not None:
            if self.count >= limit:
                self.members = None
            else:
                self.members.append(u)

    def merge(self, other: GroupStats, limit: int) -> None:
        self.count += other.count
        if self.members is None or other.members is None or self.count >= limit:
            self.members = None
        else:
            self.members.extend(other.members)


@dataclass
class TrainStats:
    """Global facts about the train split that sampling needs (mergeable across files)."""

    trivial_hist: np.ndarray = field(default_factory=lambda: np.zeros(1 << HIST_BITS, dtype=np.int64))
    nontrivial: int = 0
    groups: dict[str, GroupStats] = field(default_factory=dict)

    def add_trivial(self, u: np.ndarray) -> None:
        if len(u):
            self.trivial_hist += np.bincount((u >> _HIST_SHIFT).astype(np.int64), minlength=1 << HIST_BITS)

    def add_group_member(self, group: str, u: int, options: SamplingOptions) -> None:
        self.groups.setdefault(group, GroupStats()).add(u, group_target(group, options))

    def merge(self, other: TrainStats, options: SamplingOptions) -> TrainStats:
        self.trivial_hist += other.trivial_hist
        self.nontrivial += other.nontrivial
        for name, group in other.groups.items():
            mine = self.groups.setdefault(name, GroupStats())
            mine.merge(group, group_target(name, options))
        return self


def group_target(group: str, options: SamplingOptions) -> int:
    """How many examples an up-sampled group must reach."""
    return options.cardinal_target if group == "cardinal:big" else options.measure_min_count


@dataclass
class SamplingPlan:
    """The global decisions: the trivial threshold and the copy count of each up-sampled example."""

    trivial_threshold: int
    copies: dict[int, int]  # sampling hash u -> number of examples (original + copies)
    upsampled: dict[str, dict[str, int]]  # group -> {"tokens": n, "examples": target}
    trivial_tokens: int
    trivial_kept: int
    nontrivial_examples: int

    def keep_trivial(self, u: np.ndarray) -> np.ndarray:
        """Mask of trivial train tokens to keep."""
        if self.trivial_threshold >= KEEP_ALL:
            return np.ones(len(u), dtype=bool)
        return np.asarray(u, dtype=np.uint64) < np.uint64(self.trivial_threshold)

    @property
    def keep_rate(self) -> float:
        return self.trivial_kept / self.trivial_tokens if self.trivial_tokens else 1.0

    @property
    def trivial_fraction(self) -> float:
        total = self.trivial_kept + self.nontrivial_examples
        return self.trivial_kept / total if total else 0.0


def make_plan(stats: TrainStats, options: SamplingOptions) -> SamplingPlan:
    """Turn merged train statistics into the sampling plan."""
    copies: dict[int, int] = {}
    upsampled: dict[str, dict[str, int]] = {}
    added = 0
    for name in sorted(stats.groups):
        group = stats.groups[name]
        target = group_target(name, options)
        if group.members is None or group.count >= target or group.count == 0:
            continue
        base, extra = divmod(target, group.count)
        for rank, u in enumerate(sorted(group.members)):
            copies[u] = base + (1 if rank < extra else 0)
        upsampled[name] = {"tokens": group.count, "examples": target}
        added += target - group.count
    nontrivial_examples = stats.nontrivial + added
    total_trivial = int(stats.trivial_hist.sum())
    fraction = options.trivial_fraction
    wanted = total_trivial if fraction >= 1 else round(fraction / (1 - fraction) * nontrivial_examples)
    if wanted >= total_trivial:
        return SamplingPlan(KEEP_ALL, copies, upsampled, total_trivial, total_trivial, nontrivial_examples)
    if wanted <= 0:
        return SamplingPlan(0, copies, upsampled, total_trivial, 0, nontrivial_examples)
    cumulative = np.cumsum(stats.trivial_hist)
    bucket = int(np.searchsorted(cumulative, wanted))  # cumulative[bucket] >= wanted
    if bucket > 0 and wanted - cumulative[bucket - 1] < cumulative[bucket] - wanted:
        bucket -= 1
    kept = int(cumulative[bucket])
    threshold = (bucket + 1) << (64 - HIST_BITS)
    return SamplingPlan(threshold, copies, upsampled, total_trivial, kept, nontrivial_examples)
