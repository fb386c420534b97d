"""Validate a dataset directory with Great Expectations: the runner behind `tnforge validate`.

For each dataset present, the runner reads the Parquet files with pyarrow, builds the frames that the suites
of `tnforge.schemas.suites` check (the rows themselves, plus compact aggregates computed with pyarrow for the
checks that span rows or datasets: up-sampling targets, the standard split, leakage, pair ratios, manifest
counts), runs every suite in an ephemeral GX context, writes the results as JSON to `DIR/validation/` and
renders Data Docs that read offline.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from tnforge import datasets, schemas
from tnforge.schemas import negative_kinds, suites

#: Columns each rows frame needs (a subset of the schema, to keep big datasets quick to load).
ROW_COLUMNS: dict[str, list[str]] = {
    "examples": ["key", "copy", "split", "source", "line", "class", "before", "after", "trivial", "input"],
    "sentences": ["key", "split", "n_tokens", "text_hash", "written"],
}
RESULTS_DIR = "validation"
#: Most offending values shown per failed expectation.
SHOWN = 3


@dataclass
class CheckResult:
    """One expectation's outcome."""

    frame: str
    expectation: str
    description: str
    success: bool
    observed: str
    informational: bool = False

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass
class DatasetResult:
    """All expectations run for one dataset (or for the manifest)."""

    name: str
    rows: int = 0
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(check.success for check in self.checks)

    @property
    def failed(self) -> int:
        return sum(not check.success for check in self.checks)

    @property
    def success(self) -> bool:
        return self.failed == 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.rows, "passed": self.passed, "failed": self.failed,
                "checks": [check.to_dict() for check in self.checks]}


@dataclass
class ValidationReport:
    """The outcome of validating a dataset directory: per-dataset results, notes, and where docs went."""

    root: Path
    results: dict[str, DatasetResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    results_dir: Path | None = None
    docs_index: Path | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per dataset, "docs", "start"

    @property
    def success(self) -> bool:
        return all(result.success for result in self.results.values())

    def failures(self) -> list[tuple[str, CheckResult]]:
        """(dataset, check) for every failed expectation."""
        return [(name, check) for name, result in self.results.items() for check in result.checks if not check.success]

    def format_table(self) -> str:
        """A compact table: dataset, rows, expectations passed/failed, then each failure with what was observed."""
        width = max([len("dataset"), *(len(name) for name in self.results)])
        lines = [f"{'dataset':<{width}}  {'rows':>10}  {'passed':>6}  {'failed':>6}"]
        for name, result in self.results.items():
            lines.append(f"{name:<{width}}  {result.rows:>10,}  {result.passed:>6}  {result.failed:>6}")
        failures = self.failures()
        if failures:
            lines.append("")
            lines.append("failed:")
            for _name, check in failures:
                lines.append(f"  {check.frame}: {check.description} [{check.expectation}]")
                lines.append(f"      observed: {check.observed}")
        if self.notes:
            lines.append("")
            lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"root": str(self.root), "success": self.success, "seconds": round(self.seconds, 3),
                "timings": {k: round(v, 3) for k, v in self.timings.items()},
                "notes": self.notes, "results": {name: r.to_dict() for name, r in self.results.items()}}


# --- reading -----------------------------------------------------------------------------------------


def read_manifest(root: str | os.PathLike) -> dict[str, Any] | None:
    """The build manifest of a dataset directory, or None when there is none."""
    path = Path(root) / datasets.MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from error


def dataset_files(root: str | os.PathLike, name: str) -> list[Path]:
    """The Parquet files of a dataset in a directory (datasets outside the build layout: DIR/NAME/**)."""
    if name in datasets.DATASET_DIRS:
        return datasets.dataset_files(root, name)
    return sorted((Path(root) / name).rglob("*.parquet"))


def present_datasets(root: str | os.PathLike) -> dict[str, list[Path]]:
    """Every dataset with at least one Parquet file in the directory, with its files."""
    found = {name: dataset_files(root, name) for name in schemas.SCHEMAS}
    return {name: files for name, files in found.items() if files}


def schema_frame(name: str, files: list[Path], root: Path) -> pd.DataFrame:
    """One row per expected or found column, and per metadata key, of every file: expected vs found."""
    expected = {f.name: suites.field_descriptor(f) for f in schemas.SCHEMAS[name]}
    expected_meta = suites.expected_metadata(name)
    rows = []
    for path in files:
        relative = str(path.relative_to(root))
        try:
            schema = pq.read_schema(path)
        except (OSError, pa.ArrowException) as error:
            rows.append((relative, "column", "a readable Parquet file", f"unreadable: {error}"))
            continue
        found = {f.name: suites.field_descriptor(f) for f in schema}
        for column, descriptor in expected.items():
            rows.append((relative, "column", descriptor, found.get(column, f"{column}: <missing>")))
        for column in found.keys() - expected.keys():
            rows.append((relative, "column", f"{column}: <not in schema>", found[column]))
        metadata = {k.decode(): v.decode() for k, v in (schema.metadata or {}).items()}
        for key, value in expected_meta.items():
            rows.append((relative, "metadata", f"{key}={value}", f"{key}={metadata.get(key, '<missing>')}"))
    return pd.DataFrame(rows, columns=["file", "kind", "expected", "found"])


def read_rows(name: str, files: list[Path]) -> pa.Table:
    """The rows of a dataset (the columns its suite needs that the files have), with the split folder."""
    wanted = ROW_COLUMNS.get(name, schemas.SCHEMAS[name].names)
    tables = []
    for path in files:
        try:
            names = pq.read_schema(path).names
            table = pq.read_table(path, columns=[c for c in wanted if c in names])
        except (OSError, pa.ArrowException):
            continue  # reported by the schema frame
        if name in suites.SPLIT_DATASETS:
            table = table.append_column("folder", pa.array([path.parent.name] * table.num_rows, pa.string()))
        tables.append(table)
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="permissive")


# --- frames ------------------------------------------------------------------------------------------


def _count_by(table: pa.Table, keys: list[str]) -> dict[tuple, int]:
    if not table.num_rows or any(k not in table.column_names for k in keys):
        return {}
    grouped = table.group_by(keys).aggregate([([], "count_all")])
    columns = [grouped.column(k).to_pylist() for k in keys]
    return dict(zip(zip(*columns, strict=True), grouped.column("count_all").to_pylist(), strict=True))


def upsampling_frame(rows: pa.Table, params: suites.SuiteParams, manifest: dict[str, Any] | None) -> pd.DataFrame:
    """Train examples per up-sampled MEASURE unit and in the big-CARDINAL group, against their targets."""
    from tnforge.tokens import cardinal_value, measure_unit

    config = (manifest or {}).get("config", {})
    sampling = (manifest or {}).get("sampling", {})
    out: list[tuple[str, str, int, int]] = []
    needed = {"split", "class", "before"}
    if not rows.num_rows or not needed <= set(rows.column_names):
        return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])
    train = rows.filter(pc.equal(rows.column("split"), "train"))
    by_before = _count_by(train.select(["class", "before"]), ["class", "before"])
    if params.measure_min_count is not None:
        units: dict[str, int] = {}
        for (cls, before), count in by_before.items():
            unit = measure_unit(before) if cls == "MEASURE" else None
            if unit is not None:
                units[unit] = units.get(unit, 0) + count
        listed = set(sampling.get("measure_units", {}))
        rare = {unit for unit, count in units.items() if count < params.measure_min_count}
        for unit in sorted(listed | rare):
            out.append((f"MEASURE unit {unit!r}", "measure", units.get(unit, 0), params.measure_min_count))
    if params.cardinal_target is not None:
        threshold = config.get("cardinal_min_value", 1_000_000)
        big = 0
        for (cls, before), count in by_before.items():
            value = cardinal_value(before) if cls == "CARDINAL" else None
            if value is not None and value >= threshold:
                big += count
        existed = (sampling.get("big_cardinals") or {}).get("tokens", big) > 0
        if existed:
            out.append((f"CARDINAL ≥ {threshold:,}", "cardinal", big, params.cardinal_target))
    return pd.DataFrame(out, columns=["group", "kind", "examples", "target"])


def standard_split_frame(rows: pa.Table) -> pd.DataFrame:
    """Per split and source: original rows (copy 0) and their first and last line."""
    columns = ["split", "source", "rows", "min_line", "max_line"]
    if not rows.num_rows or not {"split", "source", "line", "copy"} <= set(rows.column_names):
        return pd.DataFrame([], columns=columns)
    originals = rows.filter(pc.equal(rows.column("copy"), 0)).select(["split", "source", "line"])
    grouped = originals.group_by(["split", "source"]).aggregate([([], "count_all"), ("line", "min"), ("line", "max")])
    frame = grouped.to_pandas().rename(columns={"count_all": "rows", "line_min": "min_line", "line_max": "max_line"})
    return frame[columns]


def leakage_frame(rows: pa.Table) -> tuple[pd.DataFrame, dict[str, list[int]]]:
    """Distinct sentence text hashes shared by each split pair, and a few shared hashes per pair."""
    out, shared_examples = [], {}
    by_split = {}
    if rows.num_rows and {"split", "text_hash"} <= set(rows.column_names):
        split = rows.column("split").to_numpy(zero_copy_only=False)
        hashes = rows.column("text_hash").to_numpy(zero_copy_only=False)
        by_split = {name: np.unique(hashes[split == name]) for name in schemas.SPLITS}
    for first, second in suites.LEAK_PAIRS:
        a, b = by_split.get(first, np.zeros(0, np.uint64)), by_split.get(second, np.zeros(0, np.uint64))
        both = np.intersect1d(a, b, assume_unique=True)
        pair = f"{first}~{second}"
        out.append((pair, int(both.size), float(both.size / a.size) if a.size else 0.0))
        shared_examples[pair] = [int(h) for h in both[:SHOWN]]
    return pd.DataFrame(out, columns=["pair", "shared", "rate"]), shared_examples


def _pair_strings(before: pd.Series, reading: pd.Series) -> pd.Series:
    return before.astype(str) + "\x1f" + reading.astype(str)


def equals_positive(pairs: pd.DataFrame, positives: pd.DataFrame | None) -> pd.Series:
    """For each labelled pair: a negative whose reading is a positive reading of the same input (before).

    Positives are the corpus's (label 1 with no negative type, and the positive pairs): a generated negative
    the covering grammar licensed (label 1, its negative type kept) is acceptable only for its own class."""
    if pairs.empty or not {"label", "before", "reading"} <= set(pairs.columns):
        return pd.Series(False, index=pairs.index)
    corpus = pairs["label"] == 1
    if "negative_type" in pairs.columns:
        corpus &= pairs["negative_type"].fillna("") == ""
    known = set(_pair_strings(pairs.loc[corpus, "before"], pairs.loc[corpus, "reading"]))
    if positives is not None and not positives.empty:
        known |= set(_pair_strings(positives["before"], positives["after"]))
    negative = pairs["label"] == 0
    return negative & _pair_strings(pairs["before"], pairs["reading"]).isin(known)


def ratios_frame(pairs: pd.DataFrame, params: suites.SuiteParams) -> pd.DataFrame:
    """Negatives per positive in each split for the ratio-budgeted negative types, with the allowed range.

    The negatives generator spends `ratio` negatives per positive across its budgeted kinds together
    (round-robin over the kinds' candidate streams); top-k negatives are taken as found, so not counted.
    The range allows `RATIO_TOLERANCE` (relative) below the ratio for inputs whose candidates run out, and
    three standard errors of the stable-hash rounding of fractional ratios either side.
    """
    columns = ["split", "type", "negatives", "positives", "ratio", "min_ratio", "max_ratio"]
    ratio = params.negative_ratio
    needed = {"split", "label", "negative_type"}
    budgeted = [k for k in (params.negative_kinds or negative_kinds.DEFAULT_KINDS) if k not in negative_kinds.UNBUDGETED]
    if pairs.empty or not isinstance(ratio, (int, float)) or not needed <= set(pairs) or not budgeted:
        return pd.DataFrame([], columns=columns)
    out = []
    for split, part in pairs.groupby("split", sort=True):
        # Negatives the covering grammar licensed keep their type (label 1): they were generated as negatives.
        positives = int(((part["label"] == 1) & (part["negative_type"].fillna("") == "")).sum())
        if not positives:
            continue
        negatives = int(part["negative_type"].isin(budgeted).sum())
        slack = 3 * (0.25 / positives) ** 0.5
        out.append((split, "+".join(budgeted), negatives, positives, negatives / positives,
                    ratio * (1 - suites.RATIO_TOLERANCE) - slack, ratio + slack))
    return pd.DataFrame(out, columns=columns)


def _columns_of(root: Path, tables: dict[str, pa.Table], name: str, columns: list[str]) -> pa.Table | None:
    """Some columns of a dataset: from the rows already read when they have them, else from the files."""
    table = tables.get(name)
    if table is not None and set(columns) <= set(table.column_names):
        return table.select(columns)
    parts = []
    for path in dataset_files(root, name):
        try:
            if set(columns) <= set(pq.read_schema(path).names):
                parts.append(pq.read_table(path, columns=columns))
        except (OSError, pa.ArrowException):
            continue  # reported by the schema frame
    return pa.concat_tables(parts, promote_options="permissive") if parts else None


def manifest_counts_frame(manifest: dict[str, Any], tables: dict[str, pa.Table], root: Path) -> pd.DataFrame:
    """Every count the manifest states that the files can confirm: (what, manifest, files)."""
    out: list[tuple[str, int, int]] = []

    def rows_of(name: str, split: str | None) -> int:
        return sum(pq.ParquetFile(p).metadata.num_rows for p in datasets.dataset_files(root, name, split))

    for name, stated in (manifest.get("datasets") or {}).items():
        if name not in datasets.DATASET_DIRS:
            continue
        if isinstance(stated, dict):
            for split, count in stated.items():
                out.append((f"{name}/{split} rows", int(count), rows_of(name, split)))
        else:
            out.append((f"{name} rows", int(stated), rows_of(name, None)))
    examples = _columns_of(root, tables, "examples", ["split", "class", "trivial", "copy"])
    if examples is not None and examples.num_rows:
        by_class = _count_by(examples.select(["split", "class"]), ["split", "class"])
        trivial = _count_by(examples.filter(examples.column("trivial")).select(["split"]), ["split"])
        copies = _count_by(examples.filter(pc.greater(examples.column("copy"), 0)).select(["split"]), ["split"])
        for split, stats in (manifest.get("splits") or {}).items():
            for cls, count in (stats.get("examples") or {}).items():
                out.append((f"examples/{split} class {cls}", int(count), by_class.get((split, cls), 0)))
            if "trivial_examples" in stats:
                out.append((f"examples/{split} trivial", int(stats["trivial_examples"]), trivial.get((split,), 0)))
            if "copies" in stats:
                out.append((f"examples/{split} copies", int(stats["copies"]), copies.get((split,), 0)))
    rejects = _columns_of(root, tables, "rejects", ["reason"])
    if "rejects_by_reason" in manifest:
        by_reason = _count_by(rejects, ["reason"]) if rejects is not None else {}
        for reason in sorted(set(manifest["rejects_by_reason"]) | {r for (r,) in by_reason}):
            out.append((f"rejects reason {reason!r}", int(manifest["rejects_by_reason"].get(reason, 0)),
                        by_reason.get((reason,), 0)))
    accounting = manifest.get("accounting") or {}
    if examples is not None and "copy" in examples.column_names:
        copy = examples.column("copy")
        if "kept" in accounting:
            out.append(("accounting kept (examples with copy 0)", int(accounting["kept"]),
                        int(pc.sum(pc.equal(copy, 0)).as_py() or 0)))
        if "copies_added" in accounting:
            out.append(("accounting copies_added", int(accounting["copies_added"]),
                        int(pc.sum(pc.greater(copy, 0)).as_py() or 0)))
    if "rejected" in accounting:
        out.append(("accounting rejected (rejects rows)", int(accounting["rejected"]), rows_of("rejects", None)))
    if "reconciles" in accounting:
        out.append(("accounting reconciles (build's own check, 1 = yes)", 1, int(bool(accounting["reconciles"]))))
    pairs = _columns_of(root, tables, "pairs", ["split", "label", "negative_type"])
    counts = (manifest.get("negatives") or {}).get("counts") or {}
    if counts:
        found: dict[tuple, int] = {}
        if pairs is not None and pairs.num_rows:
            kind = pc.if_else(pc.equal(pairs.column("negative_type"), ""), "positive", pairs.column("negative_type"))
            found = _count_by(pa.table({"split": pairs.column("split"), "type": kind}), ["split", "type"])
        for split, by_type in counts.items():
            for kind, count in by_type.items():
                out.append((f"pairs/{split} {kind}", int(count), found.get((split, kind), 0)))
    return pd.DataFrame(out, columns=["what", "manifest", "files"])


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas(split_blocks=True, self_destruct=False)


# --- running -----------------------------------------------------------------------------------------


class _Runner:
    """One ephemeral GX context; validates frames and keeps their results for the docs."""

    SITE = "tnforge"

    def __init__(self, docs_dir: Path) -> None:
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        self.gx = gx
        self.context = gx.get_context(mode="ephemeral")
        self.context.variables.progress_bars = ProgressBarsConfig(globally=False)
        self._drop_default_site()
        self.context.add_data_docs_site(site_name=self.SITE, site_config={
            "class_name": "SiteBuilder",
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(docs_dir)},
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        })
        self.source = self.context.data_sources.add_pandas("tnforge")
        self.results: dict[str, Any] = {}

    def _drop_default_site(self) -> None:
        """Remove the ephemeral context's own docs site and the empty temporary folder it made for it."""
        import shutil

        sites = dict(self.context.variables.data_docs_sites or {})
        for name, config in list(sites.items()):
            folder = (config.get("store_backend") or {}).get("base_directory")
            if folder and Path(folder).is_dir() and not any(Path(folder).iterdir()):
                shutil.rmtree(folder, ignore_errors=True)
            sites.pop(name)
        self.context.variables.data_docs_sites = sites

    def validate(self, frame_name: str, frame: pd.DataFrame, suite: Any) -> Any:
        gx = self.gx
        asset = self.source.add_dataframe_asset(name=frame_name)
        batch = asset.add_batch_definition_whole_dataframe(frame_name)
        suite = self.context.suites.add(suite)
        definition = self.context.validation_definitions.add(
            gx.ValidationDefinition(name=frame_name, data=batch, suite=suite))
        index = suites.index_columns(frame_name, list(frame.columns))
        result_format: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": SHOWN}
        if index:
            result_format["unexpected_index_column_names"] = index
        result = definition.run(batch_parameters={"dataframe": frame}, result_format=result_format)
        self.results[frame_name] = result
        return result

    def build_docs(self) -> None:
        self.context.build_data_docs(site_names=[self.SITE])


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _exception_message(result: Any) -> str | None:
    info = result.exception_info or {}
    entries = [info] if "raised_exception" in info else list(info.values())
    for entry in entries:
        if isinstance(entry, dict) and entry.get("raised_exception"):
            return str(entry.get("exception_message"))
    return None


def describe_observed(result: Any) -> str:
    """What an expectation saw, in one line: the observed value, or the offending values and how many."""
    error = _exception_message(result)
    if error:
        return f"error: {error}"
    found = result.result or {}
    if "observed_value" in found:
        return _short(found["observed_value"])
    unexpected = found.get("unexpected_count") or 0
    if unexpected:
        indexed = found.get("partial_unexpected_index_list") or []
        shown = indexed if indexed and isinstance(indexed[0], dict) else found.get("partial_unexpected_list") or []
        return _short(f"{unexpected:,} of {found.get('element_count', 0):,} rows, e.g. "
                      f"{json.dumps(shown[:SHOWN], default=str, ensure_ascii=False)}", 400)
    return f"0 of {found.get('element_count', 0):,} rows unexpected"


def _collect(result: DatasetResult, frame_name: str, validation: Any) -> None:
    for item in validation.results:
        config = item.expectation_config
        result.checks.append(CheckResult(
            frame=frame_name,
            expectation=config.type,
            description=config.description or config.type,
            success=bool(item.success),
            observed=describe_observed(item),
            informational=bool((config.meta or {}).get("informational")),
        ))


def _progress(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def validate_directory(
    root: str | os.PathLike,
    docs_dir: str | os.PathLike | None = None,
    *,
    only: Iterable[str] | None = None,
    render_docs: bool = True,
    quiet: bool = True,
) -> ValidationReport:
    """Validate every dataset present in a dataset directory; write JSON results and Data Docs.

    Results go to `ROOT/validation/*.json`, Data Docs to `docs_dir` (default `ROOT/validation/docs`).
    `only` restricts the run to some datasets (names as in `tnforge.schemas.SCHEMAS`, plus "manifest");
    `render_docs=False` skips the Data Docs.
    """
    started = time.perf_counter()
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    wanted = set(only) if only is not None else None
    unknown = sorted((wanted or set()) - set(schemas.SCHEMAS) - {"manifest"})
    if unknown:
        raise ValueError(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(schemas.SCHEMAS)}, manifest")
    manifest = read_manifest(root)
    params = suites.params_from_manifest(manifest)
    present = {n: f for n, f in present_datasets(root).items() if wanted is None or n in wanted}
    report = ValidationReport(root=root, results_dir=root / RESULTS_DIR)
    if not present:
        report.notes.append("no dataset found (no Parquet files in the tnforge layout)")
    docs = (Path(docs_dir) if docs_dir is not None else root / RESULTS_DIR / "docs").resolve()
    runner = _Runner(docs)
    report.timings["start"] = time.perf_counter() - started
    tables: dict[str, pa.Table] = {}
    frames: dict[str, pd.DataFrame] = {}
    for name, files in present.items():
        _progress(f"validating {name} ({len(files)} files)…", quiet)
        clock = time.perf_counter()
        result = report.results[name] = DatasetResult(name)
        rows = tables[name] = read_rows(name, files)
        result.rows = rows.num_rows
        builders: dict[str, Callable[[], pd.DataFrame]] = {
            f"{name}.schema": lambda name=name, files=files: schema_frame(name, files, root),
            f"{name}.rows": lambda name=name, rows=rows: _rows_frame(name, rows, tables),
            "examples.upsampling": lambda rows=rows: upsampling_frame(rows, params, manifest),
            "examples.standard_split": lambda rows=rows: standard_split_frame(rows),
            "pairs.ratios": lambda: ratios_frame(frames["pairs.rows"], params),
        }
        for frame_name in suites.frame_names(name, params):
            if frame_name == "sentences.leakage":
                frame, shared = leakage_frame(rows)
                _leakage_notes(report, frame, shared, params)
            else:
                frame = builders[frame_name]()
            frames[frame_name] = frame
            suite = suites.build_suite(frame_name, params)
            if suite.expectations:
                _collect(result, frame_name, runner.validate(frame_name, frame, suite))
        if name != "pairs":  # pairs.rows feeds pairs.ratios; other row frames can go
            frames.pop(f"{name}.rows", None)
        report.timings[name] = time.perf_counter() - clock
    if manifest is not None and (wanted is None or "manifest" in wanted):
        clock = time.perf_counter()
        result = report.results["manifest"] = DatasetResult("manifest")
        frame = manifest_counts_frame(manifest, tables, root)
        result.rows = len(frame)
        _collect(result, "manifest.counts", runner.validate("manifest.counts", frame,
                                                            suites.build_suite("manifest.counts", params)))
        report.timings["manifest"] = time.perf_counter() - clock
    elif manifest is None:
        report.notes.append("no manifest.json: manifest reconciliation and build targets not checked")
    report.seconds = time.perf_counter() - started
    _write_results(report, runner.results)
    if render_docs:
        _progress("rendering Data Docs…", quiet)
        clock = time.perf_counter()
        runner.build_docs()
        report.docs_index = finish_docs(docs, report)
        report.timings["docs"] = time.perf_counter() - clock
    report.seconds = time.perf_counter() - started
    (report.results_dir / "summary.json").write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    return report


def _rows_frame(name: str, rows: pa.Table, tables: dict[str, pa.Table]) -> pd.DataFrame:
    if name == "examples" and "after" in rows.column_names:
        trivial = pc.is_in(rows.column("after"), value_set=pa.array(sorted(schemas.TRIVIAL_TARGETS)))
        rows = rows.append_column("after_is_trivial", trivial)
    frame = _to_pandas(rows)
    if name in ("pairs", "vocab_pairs") and "label" in frame:
        # A generated reading the covering grammar licenses is kept as acceptable (label 1, licensed) and
        # keeps its negative type for traceability; every other label-1 row is a corpus positive.
        licensed = frame["licensed"].fillna(False).astype(bool) if "licensed" in frame else False
        frame["corpus_positive"] = (frame["label"] == 1) & ~licensed
    if name == "pairs":
        positives = tables.get("positive_pairs")
        positive_frame = _to_pandas(positives.select(["before", "after"])) if positives is not None else None
        frame["equals_positive"] = equals_positive(frame, positive_frame)
    return frame


def _leakage_notes(report: ValidationReport, frame: pd.DataFrame, shared: dict[str, list[int]],
                   params: suites.SuiteParams) -> None:
    rates = ", ".join(f"{row.pair} {row.shared:,} ({row.rate:.1%})" for row in frame.itertuples())
    report.notes.append(f"sentences shared between splits ({params.split} split): {rates}")


def _write_results(report: ValidationReport, results: dict[str, Any]) -> None:
    assert report.results_dir is not None
    report.results_dir.mkdir(parents=True, exist_ok=True)
    for frame_name, result in results.items():
        path = report.results_dir / f"{frame_name}.json"
        path.write_text(json.dumps(result.to_json_dict(), indent=2, ensure_ascii=False, default=str))


# --- Data Docs, offline ------------------------------------------------------------------------------

#: A small stand-in for the Bootstrap and Font Awesome styles GX's pages load from CDNs.
OFFLINE_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;font-size:14px;
 color:#212529;background:#fff;margin:0;line-height:1.45}
a{color:#0b63c5;text-decoration:none} a:hover{text-decoration:underline}
.container,.container-fluid{width:100%;box-sizing:border-box;padding:0 12px;margin:0 auto}
.row{display:flex;flex-wrap:wrap;margin:0 -8px} .row>*{box-sizing:border-box;padding:0 8px}
.col-12,.col-xs-12{flex:0 0 100%;max-width:100%}
@media(min-width:768px){.col-md-2{flex:0 0 16.66%;max-width:16.66%}.col-md-10{flex:0 0 83.33%;max-width:83.33%}
 .col-md-6{flex:0 0 50%;max-width:50%}.col-md-4{flex:0 0 33.33%;max-width:33.33%}
 .col-md-8{flex:0 0 66.66%;max-width:66.66%}.col-md-3{flex:0 0 25%;max-width:25%}
 .col-md-9{flex:0 0 75%;max-width:75%}.d-md-block{display:block!important}}
.d-none{display:none} .d-flex{display:flex} .sticky-top{position:sticky;top:0}
.navbar{display:flex;align-items:center;padding:8px 12px;border-bottom:1px solid #dee2e6;background:#f8f9fa}
.nav{list-style:none;padding-left:0;margin:0} .nav-link{display:block;padding:3px 6px}
.breadcrumb{display:flex;list-style:none;padding:6px 0;margin:0;gap:6px}
.breadcrumb-item+.breadcrumb-item::before{content:"/ ";color:#6c757d}
.card{border:1px solid #dee2e6;border-radius:6px;margin:10px 0;background:#fff}
.card-header{padding:8px 12px;background:#f1f3f5;border-bottom:1px solid #dee2e6;font-weight:600}
.card-body{padding:8px 12px}
.table{width:100%;border-collapse:collapse;margin:6px 0} .table td,.table th{border:1px solid #dee2e6;
 padding:4px 8px;vertical-align:top;text-align:left} .table th{background:#f8f9fa}
.table-responsive{overflow-x:auto}
.badge{display:inline-block;padding:1px 6px;border-radius:4px;background:#e9ecef;font-size:12px}
.alert{padding:6px 10px;border-radius:4px;background:#f1f3f5;margin:4px 0}
.btn{display:inline-block;padding:3px 8px;border:1px solid #ced4da;border-radius:4px;background:#f8f9fa}
.text-success{color:#198754} .text-danger{color:#c62828} .text-muted{color:#6c757d}
.bg-light{background:#f8f9fa} .h6{font-size:14px;font-weight:600}
.fas,.fa{font-style:normal;font-weight:700} .fa-check-circle::before{content:"\\2714"}
.fa-times::before{content:"\\2718"} .fa-exclamation-triangle::before{content:"\\26A0"}
.fa-question-circle::before{content:"?"} .fa-comment::before{content:"\\1F4AC"}
.collapse{display:block} code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
table.tn td.fail{color:#c62828;font-weight:600} table.tn td.pass{color:#198754}
table.tn td.info{color:#6c757d}
"""

_REMOTE_LINK = r"<link\b[^>]*href=[\"']https?://[^>]*>"
_SCRIPT = r"<script\b[^>]*>.*?</script>"
_REMOTE_IMG = r"<img\b[^>]*src=[\"']https?://[^>]*>"
_OFFLINE_MARK = "<!-- tnforge: offline -->"
_REMOTE_HREF = r"\shref=[\"']https?://[^\"']*[\"']"


def make_offline(html: str) -> str:
    """Strip every stylesheet, script and image GX loads from the web and inline `OFFLINE_CSS` instead."""
    import re

    if _OFFLINE_MARK in html:
        return html
    html = re.sub(_SCRIPT, "", html, flags=re.S | re.I)
    html = re.sub(_REMOTE_LINK, "", html, flags=re.I)
    html = re.sub(_REMOTE_IMG, "", html, flags=re.S | re.I)
    html = re.sub(_REMOTE_HREF, "", html, flags=re.I)
    style = f"{_OFFLINE_MARK}<style>{OFFLINE_CSS}</style>"
    return html.replace("</head>", style + "</head>", 1) if "</head>" in html else style + html


def external_references(html: str) -> list[str]:
    """http(s) URLs still referenced by a page (there should be none once it is offline)."""
    import re

    return re.findall(r"(?:href|src)=[\"'](https?://[^\"']+)", html, flags=re.I)


def finish_docs(docs: Path, report: ValidationReport) -> Path:
    """Make every GX page offline-readable and write a tnforge index page linking them; returns the index."""
    pages: dict[str, str] = {}
    for path in sorted(docs.rglob("*.html")):  # run folders are timestamps: the latest run comes last
        path.write_text(make_offline(path.read_text(encoding="utf-8")), encoding="utf-8")
        relative = path.relative_to(docs).as_posix()
        if relative.startswith("validations/"):
            suite = ".".join(relative.split("/")[1:-3])
            pages[suite] = relative
    index = docs / "index.html"
    index.write_text(_index_html(report, pages), encoding="utf-8")
    return index


def _index_html(report: ValidationReport, pages: dict[str, str]) -> str:
    from html import escape

    status = "passed" if report.success else "FAILED"
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>tnforge validation</title>",
        f"<style>{OFFLINE_CSS}</style></head><body><div class='container'>",
        f"<h1>tnforge validation: {escape(str(report.root))}</h1>",
        f"<p><b class='{'text-success' if report.success else 'text-danger'}'>{status}</b>"
        f" · {sum(r.passed for r in report.results.values())} expectations passed,"
        f" {sum(r.failed for r in report.results.values())} failed · {report.seconds:.1f} s</p>",
    ]
    for note in report.notes:
        parts.append(f"<div class='alert'>{escape(note)}</div>")
    for name, result in report.results.items():
        parts.append(f"<div class='card'><div class='card-header'>{escape(name)} · {result.rows:,} rows · "
                     f"{result.passed} passed, {result.failed} failed</div><div class='card-body'>")
        parts.append("<table class='table tn'><tr><th>status</th><th>check</th><th>frame</th>"
                     "<th>expectation</th><th>observed</th></tr>")
        for check in result.checks:
            kind = "fail" if not check.success else "info" if check.informational else "pass"
            label = {"fail": "✘ failed", "info": "ⓘ reported", "pass": "✔ passed"}[kind]
            frame = escape(check.frame)
            if check.frame in pages:
                frame = f"<a href='{escape(pages[check.frame])}'>{frame}</a>"
            parts.append(f"<tr><td class='{kind}'>{label}</td><td>{escape(check.description)}</td><td>{frame}</td>"
                         f"<td><code>{escape(check.expectation)}</code></td><td><code>{escape(check.observed)}"
                         f"</code></td></tr>")
        parts.append("</table></div></div>")
    parts.append("<p class='text-muted'>Rendered by tnforge from Great Expectations validation results; "
                 "the per-frame pages are GX Data Docs made readable offline.</p></div></body></html>")
    return "\n".join(parts)
