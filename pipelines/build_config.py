"""The options of a dataset build, with their defaults (also settable from a TOML config file)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from tnforge.generators.sampling import SamplingOptions
from tnforge.splits import SplitRule
from tnforge.windows import DEFAULT_WIDTH

#: Rows per shard the automatic shard count aims at.
ROWS_PER_SHARD = 1_000_000


@dataclass(frozen=True)
class BuildConfig:
    """Everything that decides a build's output. Recorded in the manifest as the effective config."""

    inputs: tuple[str, ...]
    out: str
    split: str = "auto"  # auto | standard | hash | none (auto is resolved before the build runs)
    split_ratios: tuple[float, float, float] = (0.9, 0.05, 0.05)
    window: int = DEFAULT_WIDTH
    trivial_fraction: float = 0.10
    measure_min_count: int = 100
    cardinal_min_value: int = 1_000_000
    cardinal_target: int = 10_000
    seed: int = 0
    shards: int = 0  # 0 = automatic, from the input size
    max_token_chars: int = 4096
    pipeline_args: tuple[str, ...] = field(default_factory=tuple)

    @property
    def sampling(self) -> SamplingOptions:
        return SamplingOptions(
            trivial_fraction=self.trivial_fraction,
            measure_min_count=self.measure_min_count,
            cardinal_min_value=self.cardinal_min_value,
            cardinal_target=self.cardinal_target,
            seed=self.seed,
        )

    @property
    def split_rule(self) -> SplitRule:
        return SplitRule(self.split, tuple(self.split_ratios), self.seed)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["inputs"] = list(self.inputs)
        data["split_ratios"] = list(self.split_ratios)
        data["pipeline_args"] = list(self.pipeline_args)
        return data


def auto_shards(total_input_bytes: int) -> int:
    """Shard count from input size: about a million example rows (≈ 200 MB of TSV) per shard."""
    return max(1, min(1024, round(total_input_bytes / 200e6)))
