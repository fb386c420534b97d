"""The expectation lists of every validation frame (`DATASET.KIND`), built from the pyarrow schemas and the
build's manifest (`SuiteParams`). Which frames a dataset has, and how each is built: `tnforge.validation.registry`.

great_expectations is imported inside the functions only; this module imports nothing else from the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from . import (
    META_DATASET,
    META_VERSION,
    SCHEMAS,
    SEMIOTIC_CLASSES,
    SPLITS,
    TRIVIAL_TARGETS,
    schema_version,
)

#: Allowed distance (absolute share) between the train trivial share and the configured fraction.
TRIVIAL_TOLERANCE = 0.005
#: Allowed distance between a share the manifest reports and the share computed from the files.
REPORTED_TOLERANCE = 1e-6
#: How far (relative) below the configured ratio the budgeted negatives per positive may fall.
RATIO_TOLERANCE = 0.10
#: Datasets whose files sit in split folders (all but rejects and hypotheses).
SPLIT_DATASETS = frozenset({"examples", "sentences", "positive_pairs", "pairs", "vocab_pairs"})
#: The columns that identify a row of each dataset (unique across the dataset).
ID_COLUMNS: dict[str, tuple[str, ...]] = {
    "examples": ("key", "copy"), "sentences": ("key",), "positive_pairs": ("split", "key"), "rejects": ("key",),
    "pairs": ("key",), "vocab_pairs": ("split", "key"), "hypotheses": ("key", "rank"),
}
#: Split pairs checked for leakage: (later split, earlier split); the rate is relative to the first.
LEAK_PAIRS: tuple[tuple[str, str], ...] = (("dev", "train"), ("test", "train"), ("test", "dev"))


@dataclass(frozen=True)
class StandardSplit:
    """The standard split's test set: the first `test_lines` lines of `test_source`."""

    test_source: str
    test_lines: int
    test_tokens: int


@dataclass(frozen=True)
class SuiteParams:
    """What the suites need to know about a build, read from its manifest (see `params_from_manifest`)."""

    split: str = "hash"  # "hash" | "standard" | "none"
    trivial_fraction: float | None = None  # share of trivial train examples aimed at (the fraction, or more)
    trivial_sampled: bool = True  # False when the source had fewer trivial tokens than the target
    reported_trivial_share: float | None = None  # the share the manifest says train has
    source_trivial_share: dict[str, float] = field(default_factory=dict)  # per split, before sampling
    measure_min_count: int | None = None
    cardinal_target: int | None = None
    standard: StandardSplit | None = None
    negative_ratio: float | str | None = None  # negatives per positive and type, or "all"
    negative_kinds: tuple[str, ...] = ()


def params_from_manifest(manifest: dict[str, Any] | None) -> SuiteParams:
    """Suite parameters from a build's manifest.json contents (defaults when there is none)."""
    if not manifest:
        return SuiteParams()
    config = manifest.get("config", {})
    splits = manifest.get("splits", {})
    sampling = manifest.get("sampling", {})
    source_share = {}
    for split, counts in splits.items():
        tokens = sum(counts.get("tokens", {}).values())
        if tokens:
            source_share[split] = counts.get("trivial_tokens", 0) / tokens
    standard = manifest.get("standard_split")
    negatives = manifest.get("negatives") or {}
    keep_rate = sampling.get("trivial_keep_rate")
    return SuiteParams(
        split=config.get("split", "hash"),
        trivial_fraction=sampling.get("trivial_target", config.get("trivial_fraction")),
        trivial_sampled=keep_rate is None or keep_rate < 1.0,
        reported_trivial_share=sampling.get("trivial_fraction"),
        source_trivial_share=source_share,
        measure_min_count=config.get("measure_min_count"),
        cardinal_target=config.get("cardinal_target"),
        standard=StandardSplit(standard["test_source"], int(standard["test_lines"]), int(standard["test_tokens"]))
        if standard and config.get("split") == "standard"
        else None,
        negative_ratio=negatives.get("ratio"),
        negative_kinds=tuple(negatives.get("kinds", ())),
    )


def field_descriptor(item: pa.Field) -> str:
    """How a column is named in the schema frame: "name: type" plus " not null" when required."""
    return f"{item.name}: {item.type}{'' if item.nullable else ' not null'}"


def expected_metadata(name: str) -> dict[str, str]:
    """The Parquet metadata every file of a dataset must carry (key → value)."""
    schema = SCHEMAS[name]
    return {META_DATASET.decode(): name, META_VERSION.decode(): str(schema_version(schema))}


# --- helpers -----------------------------------------------------------------------------------------


def _gxe() -> Any:
    import great_expectations.expectations as gxe

    return gxe


def _col(name: str) -> Any:
    """A GX row-condition column: `_col("split") == "train"` selects the train rows."""
    from great_expectations.expectations.row_conditions import Column

    return Column(name)


def _where(condition: Any) -> dict[str, Any]:
    return {"row_condition": condition}


def _common_rows(dataset: str, nonempty: list[str]) -> list[Any]:
    gxe = _gxe()
    found = []
    for column in nonempty:
        found.append(gxe.ExpectColumnValueLengthsToBeBetween(
            column=column, min_value=1, description=f"{column} non-empty"))
    if "class" in SCHEMAS[dataset].names:
        found.append(gxe.ExpectColumnValuesToBeInSet(
            column="class", value_set=list(SEMIOTIC_CLASSES), description="class within the 16 semiotic classes"))
    if dataset in SPLIT_DATASETS:
        found.append(gxe.ExpectColumnValuesToBeInSet(
            column="split", value_set=list(SPLITS), description="split is train, dev or test"))
        found.append(gxe.ExpectColumnPairValuesToBeEqual(
            column_A="split", column_B="folder", description="split column matches the split folder"))
    return found


def _labelled(kind_column: str) -> list[Any]:
    """Checks shared by the two labelled pair datasets."""
    gxe = _gxe()
    return [
        gxe.ExpectColumnValuesToBeInSet(column="label", value_set=[0, 1], description="labels in {0, 1}"),
        gxe.ExpectColumnValueLengthsToBeBetween(
            column=kind_column, min_value=1, description="every negative has a type", **_where(_col("label") == 0)),
        gxe.ExpectColumnValuesToBeInSet(
            column=kind_column, value_set=[""], description="corpus positives have no negative type",
            **_where(_col("corpus_positive") == True)),  # noqa: E712 - a GX row condition, not a comparison
    ]


# --- suites: one function per frame, named after it (frame examples.rows → examples_rows) ------------


def unique_ids(dataset: str) -> Any:
    """The suite of frame DATASET.ids: the dataset's id columns unique (checked per key-hash partition)."""
    columns = list(ID_COLUMNS[dataset])

    def suite(params: SuiteParams) -> list[Any]:
        gxe = _gxe()
        if len(columns) == 1:
            return [gxe.ExpectColumnValuesToBeUnique(column=columns[0], description=f"{columns[0]} unique")]
        return [gxe.ExpectCompoundColumnsToBeUnique(column_list=columns, description=f"ids ({', '.join(columns)}) unique")]

    suite.__name__ = f"{dataset}_ids"
    return suite


def file_schema(params: SuiteParams) -> list[Any]:
    """Each file's columns, types and metadata equal the schema's (frame DATASET.schema)."""
    gxe = _gxe()
    return [
        gxe.ExpectColumnPairValuesToBeEqual(
            column_A="expected", column_B="found", description="columns and types match the pyarrow schema",
            **_where(_col("kind") == "column")),
        gxe.ExpectColumnPairValuesToBeEqual(
            column_A="expected", column_B="found", description="dataset name and schema version in the metadata",
            **_where(_col("kind") == "metadata")),
    ]


def examples_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    found = _common_rows("examples", ["before", "after"])
    found += [
        gxe.ExpectColumnPairValuesToBeEqual(
            column_A="trivial", column_B="after_is_trivial", description="trivial exactly when after is the self or sil marker"),
        gxe.ExpectColumnValuesToBeBetween(column="copy", min_value=0, description="copy ≥ 0"),
        gxe.ExpectColumnValuesToBeBetween(
            column="copy", max_value=0, description="dev and test never up-sampled (copy = 0)",
            **_where(_col("split") != "train")),
        gxe.ExpectColumnValuesToBeBetween(column="line", min_value=1, description="line ≥ 1"),
        gxe.ExpectColumnValuesToMatchRegex(
            column="input", regex="<norm> .+ </norm>", description="input has the token between the norm markers"),
    ]
    return found


def examples_shares(params: SuiteParams) -> list[Any]:
    """Trivial shares per split (frame examples.shares: one row per split, its share of trivial examples)."""
    gxe = _gxe()
    found: list[Any] = []
    if params.trivial_fraction is not None:
        target = params.trivial_fraction
        low = target - TRIVIAL_TOLERANCE if params.trivial_sampled else 0.0
        found.append(gxe.ExpectColumnMeanToBeBetween(
            column="share", min_value=max(low, 0.0), max_value=min(target + TRIVIAL_TOLERANCE, 1.0),
            description=f"trivial share of train within ±{TRIVIAL_TOLERANCE * 100:g} points of {target:g}"
            if params.trivial_sampled else f"trivial share of train at most {target:g} (source had fewer)",
            **_where(_col("split") == "train")))
    if params.reported_trivial_share is not None:
        share = params.reported_trivial_share
        found.append(gxe.ExpectColumnMeanToBeBetween(
            column="share", min_value=share - REPORTED_TOLERANCE, max_value=share + REPORTED_TOLERANCE,
            description=f"trivial share of train equals the manifest's {share:.6f}", **_where(_col("split") == "train")))
    for split in ("dev", "test"):
        share = params.source_trivial_share.get(split)
        if share is not None:
            found.append(gxe.ExpectColumnMeanToBeBetween(
                column="share", min_value=share - REPORTED_TOLERANCE, max_value=share + REPORTED_TOLERANCE,
                description=f"trivial share of {split} equals the source's {share:.6f} (never resampled)",
                **_where(_col("split") == split)))
    return found


def examples_upsampling(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return [
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="examples", column_B="target", or_equal=True,
            description=f"every up-sampled MEASURE unit reaches its target ({params.measure_min_count} or as capped)",
            **_where(_col("kind") == "measure")),
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="examples", column_B="target", or_equal=True,
            description=f"the big-CARDINAL group reaches its target ({params.cardinal_target} or as capped)",
            **_where(_col("kind") == "cardinal")),
    ]


def examples_standard_split(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    standard = params.standard
    assert standard is not None
    return [
        gxe.ExpectColumnValuesToBeInSet(
            column="source", value_set=[standard.test_source],
            description=f"test rows all come from {standard.test_source}", **_where(_col("split") == "test")),
        gxe.ExpectColumnValuesToBeBetween(
            column="max_line", max_value=standard.test_lines,
            description=f"test rows all within its first {standard.test_lines} lines",
            **_where(_col("split") == "test")),
        gxe.ExpectColumnSumToBeBetween(
            column="rows", min_value=standard.test_tokens, max_value=standard.test_tokens,
            description=f"test has the manifest's {standard.test_tokens} tokens", **_where(_col("split") == "test")),
        gxe.ExpectColumnValuesToBeBetween(
            column="min_line", min_value=standard.test_lines + 1,
            description=f"no train/dev row from the first {standard.test_lines} lines of {standard.test_source}",
            **_where((_col("split") != "test") & (_col("source") == standard.test_source))),
    ]


def sentences_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return _common_rows("sentences", ["written"]) + [
        gxe.ExpectColumnValuesToBeBetween(column="n_tokens", min_value=1, description="n_tokens ≥ 1"),
        gxe.ExpectColumnValuesToNotBeNull(column="text_hash", description="text_hash present"),
        gxe.ExpectColumnPairValuesToBeEqual(
            column_A="n_readings", column_B="n_tokens", description="one reading per token (the alignment)"),
    ]


def sentences_leakage(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    if params.split == "hash":
        return [gxe.ExpectColumnValuesToBeBetween(
            column="shared", max_value=0, description="hash split: no sentence text in two splits",)]
    return [
        gxe.ExpectColumnMeanToBeBetween(
            column="rate", min_value=0.0, max_value=1.0, meta={"informational": True},
            description=f"standard split: share of {first} sentences also in {second} (reported, not failed)",
            **_where(_col("pair") == f"{first}~{second}"))
        for first, second in LEAK_PAIRS
    ]


def positive_pairs_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return _common_rows("positive_pairs", ["before", "after"]) + [
        gxe.ExpectColumnValuesToNotBeInSet(
            column="after", value_set=sorted(TRIVIAL_TARGETS), description="only non-trivial readings"),
        gxe.ExpectColumnValuesToBeBetween(column="count", min_value=1, description="count ≥ 1"),
    ]


def pairs_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    found = _common_rows("pairs", ["before", "reading"]) + _labelled("negative_type")
    if params.negative_kinds:
        found.append(gxe.ExpectColumnValuesToBeInSet(
            column="negative_type", value_set=list(params.negative_kinds),
            description="negative types among the manifest's kinds", **_where(_col("label") == 0)))
    return found


def pairs_labels(params: SuiteParams) -> list[Any]:
    """Label consistency (frame pairs.labels, per partition of inputs): no (before, reading) both ways."""
    gxe = _gxe()
    return [gxe.ExpectColumnValuesToBeInSet(
        column="equals_positive", value_set=[False],
        description="no negative equal to a positive of the same input (in any class or split)")]


def pairs_ratios(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    if not isinstance(params.negative_ratio, (int, float)):
        return []
    return [
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="ratio", column_B="min_ratio", or_equal=True,
            description=f"negatives per positive, per split, not below {params.negative_ratio:g} "
            f"(−{RATIO_TOLERANCE:.0%}, sampling noise)"),
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="max_ratio", column_B="ratio", or_equal=True,
            description=f"negatives per positive, per split, not above {params.negative_ratio:g} (sampling noise)",
        ),
    ]


def vocab_pairs_rows(params: SuiteParams) -> list[Any]:
    return _common_rows("vocab_pairs", ["before", "word"]) + _labelled("negative_type")


def rejects_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return _common_rows("rejects", ["source", "reason"]) + [
        gxe.ExpectColumnValuesToBeBetween(column="line", min_value=0, description="line ≥ 0"),
    ]


def hypotheses_rows(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return _common_rows("hypotheses", ["before", "input"]) + [
        gxe.ExpectColumnValuesToBeBetween(column="rank", min_value=0, description="rank ≥ 0"),
        gxe.ExpectColumnValuesToBeBetween(
            column="score", max_value=1e-4, description="score is a log-probability (≤ 0)"),
    ]


def manifest_counts(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return [gxe.ExpectColumnPairValuesToBeEqual(
        column_A="manifest", column_B="files", description="the manifest's counts reconcile with the files",)]


def manifest_datasets(params: SuiteParams) -> list[Any]:
    gxe = _gxe()
    return [gxe.ExpectColumnPairValuesToBeEqual(
        column_A="expected", column_B="found", description="every dataset folder the manifest lists is present",)]
