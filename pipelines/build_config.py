"""The options of a dataset build, with their defaults (also settable from a TOML config file).

The CLI's `tnforge build` options read their defaults from BuildConfig; the sampling ones come from
SamplingOptions, written once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources

from tnforge.generators.sampling import SamplingOptions
from tnforge.splits import SplitRule
from tnforge.windows import DEFAULT_WIDTH

#: Rows per shard the automatic shard count aims at.
ROWS_PER_SHARD = 1_000_000
_SAMPLING = SamplingOptions()
_SPLIT = SplitRule("hash")


@dataclass(frozen=True)
class BuildConfig:
    """Everything that decides a build's output. Recorded in the manifest as the effective config."""

    inputs: tuple[str, ...]
    out: str
    split: str = "auto"  # auto | standard | hash | none (auto is resolved before the build runs)
    split_ratios: tuple[float, float, float] = _SPLIT.ratios
    window: int = DEFAULT_WIDTH
    trivial_fraction: float = _SAMPLING.trivial_fraction
    trivial_min_count: int = _SAMPLING.trivial_min_count
    measure_min_count: int = _SAMPLING.measure_min_count
    cardinal_min_value: int = _SAMPLING.cardinal_min_value
    cardinal_target: int = _SAMPLING.cardinal_target
    max_copy_share: float = _SAMPLING.max_copy_share
    max_copies_per_token: int = _SAMPLING.max_copies_per_token
    seed: int = _SAMPLING.seed
    shards: int = 0  # 0 = automatic, from the input size
    max_token_chars: int = 4096
    augment_sentences: int = 0  # extra substituted copies of each train sentence (`generators.augmentation`)
    synthesize: int = 0  # grammar-synthesized train examples per rare class (`generators.synthesis`; 0: off)
    synthesize_below: int = 100  # a class is rare below this many train tokens
    defer_to_first: bool = False  # later inputs' train tokens the first input reads otherwise left out
    restore_tokens: bool = True  # aligned text: join split pieces back into Kestrel's multi-word tokens
    input_format: str = "auto"  # auto | tsv | csv | aligned (auto: detected per file, `readers.detect_flavour`)
    allow_empty: bool = False  # commit a dataset even when no input record reached a split
    pipeline_args: tuple[str, ...] = field(default_factory=tuple)

    @property
    def sampling(self) -> SamplingOptions:
        return SamplingOptions(
            trivial_fraction=self.trivial_fraction,
            trivial_min_count=self.trivial_min_count,
            measure_min_count=self.measure_min_count,
            cardinal_min_value=self.cardinal_min_value,
            cardinal_target=self.cardinal_target,
            max_copy_share=self.max_copy_share,
            max_copies_per_token=self.max_copies_per_token,
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


#: Input bytes per output shard by default (a 10M-token corpus: 4 shards as Kaggle CSV, 2 as TSV shards). The
#: writer holds one row group and one column of a shard, not the shard, so its memory grows little with the
#: shard's size (docs/results/build.md); the count keeps files and groups of a sensible size.
INPUT_BYTES_PER_SHARD = 80e6


def auto_shards(total_input_bytes: int) -> int:
    """Shard count from input size: one shard per INPUT_BYTES_PER_SHARD (≈ 400,000 sentences), 1 to 1,024."""
    return max(1, min(1024, round(total_input_bytes / INPUT_BYTES_PER_SHARD)))


def bundled_sample() -> str:
    """Path of the sample corpus shipped with tnforge (what a build without inputs reads)."""
    return str(resources.files("tnforge") / "data" / "sample.tsv")


def parse_split_ratios(value: str | Sequence[float]) -> tuple[float, float, float]:
    """"0.9,0.05,0.05" (or three numbers) → train, dev, test shares; a ValueError unless three non-negative
    numbers summing to 1."""
    try:
        parts = [float(x) for x in (value.split(",") if isinstance(value, str) else value)]
    except ValueError as error:
        raise ValueError(f"{value!r}: give three numbers like 0.9,0.05,0.05") from error
    if len(parts) != 3 or any(p < 0 for p in parts) or abs(sum(parts) - 1) > 1e-6:
        raise ValueError(f"{value!r}: three non-negative numbers summing to 1, like 0.9,0.05,0.05")
    return (parts[0], parts[1], parts[2])
