"""Down-sampling of trivial tokens and up-sampling of rare MEASURE units and big CARDINALs.

Decisions are made by a stable 64-bit hash `u` of each example's key (seeded), never by a random
generator, so they are identical on every runner and worker count:

* trivial (`<self>`/`sil`) train tokens are kept when `u` is below a threshold chosen from a global
  histogram of `u`, which makes them the configured fraction of train examples, or `trivial_min_count`
  examples when that fraction would keep fewer (all of them when the split has fewer), to within one
  histogram bucket (≈ T / 65,536 tokens);
* each member of an up-sampled group (a MEASURE unit seen fewer than `measure_min_count` times, or the
  CARDINALs of value ≥ `cardinal_min_value`) gets ⌊target / n⌋ copies, plus one for the members whose `u`
  ranks among the first `target mod n` — so the group has exactly `target` examples.

The configured targets are the paper's absolute ones, chosen for a ~10M-token corpus (where 10% trivial
examples are ~78,000 and `trivial_min_count` never binds). Two caps scale them to the corpus at hand
(`scaled_targets`): no token gets more than `max_copies_per_token` copies (by default 20, so a small
corpus is not swamped by copies of a few tokens; 0: no cap), and when all groups' copies would exceed
`max_copy_share` of the train split's examples (trivial ones included), every group's copies are scaled
down by one factor so they fit (by default 1.0: no share cap). `max_copy_share` 1.0 and
`max_copies_per_token` 0 give the absolute targets.

The defaults are judged by the model trained on them: on a ~41,000-token train split the fraction alone
kept ~400 trivial examples and the seq2seq model mis-read many `<self>`/`sil` tokens; keeping at least
10,000 of them (about a quarter of that corpus's) lets the default training reach ~98.8% of dev tokens.
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
    trivial_min_count: int = 10_000  # trivial examples kept at least, when the fraction keeps fewer (0: none)
    measure_min_count: int = 100
    cardinal_min_value: int = 1_000_000
    cardinal_target: int = 10_000
    max_copy_share: float = 1.0  # up-sampling copies ≤ this share of train examples (1.0: no cap)
    max_copies_per_token: int = 20  # copies of one token at most (0: no cap)
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.trivial_fraction <= 1:
            raise ValueError(f"trivial fraction must be in (0, 1], not {self.trivial_fraction}")
        if self.trivial_min_count < 0:
            raise ValueError("trivial min count must be non-negative (0: the fraction alone)")
        if self.measure_min_count < 0 or self.cardinal_target < 0:
            raise ValueError("up-sampling targets must be non-negative")
        if not 0 <= self.max_copy_share <= 1:
            raise ValueError(f"max copy share must be in [0, 1], not {self.max_copy_share}")
        if self.max_copies_per_token < 0:
            raise ValueError("max copies per token must be non-negative (0: no cap)")


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
    upsampled: dict[str, dict]  # group -> {"tokens", "examples", "target", "limited_by"}
    trivial_tokens: int
    trivial_kept: int
    nontrivial_examples: int
    copy_budget: dict = field(default_factory=dict)  # what the caps allowed: see `scaled_targets`
    trivial_target: float = 0.0  # the share aimed at: `trivial_fraction`, or more to keep `trivial_min_count`

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


def trivial_target(options: SamplingOptions, nontrivial_examples: int) -> float:
    """The trivial share of train aimed at: `trivial_fraction`, or the larger share that `trivial_min_count`
    trivial examples make beside `nontrivial_examples` (reached only when the split has that many)."""
    least = options.trivial_min_count
    floor = least / (least + nontrivial_examples) if least else 0.0
    return max(options.trivial_fraction, floor)


def _trivial_threshold(hist_cumsum: np.ndarray, options: SamplingOptions, nontrivial_examples: int) -> tuple[int, int]:
    """(threshold, trivial tokens kept) making trivial examples `trivial_fraction` of train, but at least
    `trivial_min_count` of them, to within one bucket."""
    total_trivial, fraction = int(hist_cumsum[-1]), options.trivial_fraction
    wanted = total_trivial if fraction >= 1 else round(fraction / (1 - fraction) * nontrivial_examples)
    wanted = max(wanted, options.trivial_min_count)
    if wanted >= total_trivial:
        return KEEP_ALL, total_trivial
    if wanted <= 0:
        return 0, 0
    bucket = int(np.searchsorted(hist_cumsum, wanted))  # cumulative[bucket] >= wanted
    if bucket > 0 and wanted - hist_cumsum[bucket - 1] < hist_cumsum[bucket] - wanted:
        bucket -= 1
    return (bucket + 1) << (64 - HIST_BITS), int(hist_cumsum[bucket])


def scaled_targets(stats: TrainStats, options: SamplingOptions, hist_cumsum: np.ndarray) -> tuple[dict, dict]:
    """The applied target of each up-sampled group, and the copy budget that decided them.

    A group's target is first capped at `tokens × (1 + max_copies_per_token)`. Then the largest number of
    copies B that is at most `max_copy_share` of the train split it makes (non-trivial examples + B + the
    trivial examples kept for them) is found by bisection (every candidate checked exactly); when the groups
    want more than B copies, each group's copies are scaled by B / wanted (rounded down), so the cap holds."""
    groups: dict[str, dict] = {}
    for name in sorted(stats.groups):
        group = stats.groups[name]
        target = group_target(name, options)
        if group.members is None or group.count >= target or group.count == 0:
            continue
        applied, limited_by = target, None
        if options.max_copies_per_token and target > group.count * (1 + options.max_copies_per_token):
            applied, limited_by = group.count * (1 + options.max_copies_per_token), "max_copies_per_token"
        groups[name] = {"tokens": group.count, "examples": applied, "target": target, "limited_by": limited_by}
    wanted = sum(g["examples"] - g["tokens"] for g in groups.values())
    share, nontrivial = options.max_copy_share, stats.nontrivial

    def fits(copies: int) -> bool:
        kept = _trivial_threshold(hist_cumsum, options, nontrivial + copies)[1]
        return copies <= share * (nontrivial + copies + kept)

    allowed = wanted
    if share < 1 and not fits(wanted):
        low, high = 0, wanted - 1
        while low < high:
            mid = (low + high + 1) // 2
            if fits(mid):
                low = mid
            else:
                high = mid - 1
        allowed = low
        for group in groups.values():
            extra = (group["examples"] - group["tokens"]) * allowed // wanted
            group["examples"], group["limited_by"] = group["tokens"] + extra, "max_copy_share"
    budget = {"max_copy_share": share, "max_copies_per_token": options.max_copies_per_token,
              "wanted_copies": wanted, "copies": sum(g["examples"] - g["tokens"] for g in groups.values())}
    return groups, budget


def make_plan(stats: TrainStats, options: SamplingOptions) -> SamplingPlan:
    """Turn merged train statistics into the sampling plan."""
    cumulative = np.cumsum(stats.trivial_hist)
    upsampled, budget = scaled_targets(stats, options, cumulative)
    copies: dict[int, int] = {}
    for name, applied in upsampled.items():
        group = stats.groups[name]
        assert group.members is not None
        base, extra = divmod(applied["examples"], group.count)
        for rank, u in enumerate(sorted(group.members)):
            copies[u] = base + (1 if rank < extra else 0)
    nontrivial_examples = stats.nontrivial + budget["copies"]
    threshold, kept = _trivial_threshold(cumulative, options, nontrivial_examples)
    return SamplingPlan(threshold, copies, upsampled, int(cumulative[-1]), kept, nontrivial_examples, budget,
                        trivial_target=trivial_target(options, nontrivial_examples))
