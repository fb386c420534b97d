"""Run the registry's suites on a dataset directory in one ephemeral Great Expectations context: the runner
behind `tnforge validate`. Results go to DIR/validation/*.json, Data Docs to DIR/validation/docs.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from tnforge.manifest import check_input, read_manifest
from tnforge.progress import quiet_library_logs
from tnforge.schemas import suites
from tnforge.validation import registry
from tnforge.validation.docs import finish_docs
from tnforge.validation.frames import FrameInputs
from tnforge.validation.reading import present_datasets, read_rows
from tnforge.validation.report import CheckResult, DatasetResult, ValidationReport

if TYPE_CHECKING:
    import pandas as pd

RESULTS_DIR = "validation"
#: Most offending values shown per failed expectation.
SHOWN = 3


class GXContext:
    """One ephemeral GX context; validates frames and keeps their results for the JSON files and the docs."""

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

    def validate(self, frame: registry.Frame, data: pd.DataFrame, suite: Any) -> Any:
        """Run a suite on a frame's data; the result is also kept under the frame's name."""
        gx = self.gx
        asset = self.source.add_dataframe_asset(name=frame.name)
        batch = asset.add_batch_definition_whole_dataframe(frame.name)
        suite = self.context.suites.add(suite)
        definition = self.context.validation_definitions.add(
            gx.ValidationDefinition(name=frame.name, data=batch, suite=suite))
        index = frame.index_columns(list(data.columns))
        result_format: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": SHOWN}
        if index:
            result_format["unexpected_index_column_names"] = index
        result = definition.run(batch_parameters={"dataframe": data}, result_format=result_format)
        self.results[frame.name] = result
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


def _check_frames(inputs: FrameInputs, result: DatasetResult, context: GXContext, report: ValidationReport) -> None:
    """Build each registered frame of `inputs.dataset` that applies, and run its suite (when it has one)."""
    params = inputs.params
    for frame in registry.DATASETS[inputs.dataset].frames:
        if not frame.applies(params):
            continue
        try:
            data = inputs.frames[frame.name] = frame.build(inputs)
            if frame.note is not None:
                report.notes.append(frame.note(data, params))
            suite = frame.suite(params)
            if suite.expectations:
                _collect(result, frame.name, context.validate(frame, data, suite))
        except Exception as error:  # bad data is a failed check, never a crash of the whole run
            result.checks.append(frame_error(frame.name, error))


def frame_error(frame: str, error: Exception) -> CheckResult:
    """The failed check standing for a frame that could not be built or checked from the files."""
    return CheckResult(frame=frame, expectation="frame_built", description=f"{frame} could be built and checked",
                       success=False, observed=_short(f"error: {type(error).__name__}: {error}", 400))


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
    `render_docs=False` skips the Data Docs. Great Expectations' INFO log lines are silenced meanwhile.
    """
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations  # noqa: F401 - imported before its loggers are quieted
    import great_expectations.data_context.types.base  # noqa: F401 - sets its logger to INFO on import

    with quiet_library_logs():
        return _validate_directory(root, docs_dir, only, render_docs, quiet)


def _validate_directory(root: str | os.PathLike, docs_dir: str | os.PathLike | None, only: Iterable[str] | None,
                        render_docs: bool, quiet: bool) -> ValidationReport:
    """The work of `validate_directory` (its library loggers already quiet)."""
    started = time.perf_counter()
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory")
    wanted = set(only) if only is not None else None
    unknown = sorted((wanted or set()) - set(registry.DATASETS))
    if unknown:
        raise ValueError(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(registry.DATASETS)}")
    check_input(root)
    manifest = read_manifest(root, missing_ok=True)
    params = suites.params_from_manifest(manifest)
    present = {n: f for n, f in present_datasets(root).items() if wanted is None or n in wanted}
    report = ValidationReport(root=root, results_dir=root / RESULTS_DIR)
    if not present:
        report.notes.append("no dataset found (no Parquet files in the tnforge layout)")
    docs = (Path(docs_dir) if docs_dir is not None else root / RESULTS_DIR / "docs").resolve()
    context = GXContext(docs)
    report.timings["start"] = time.perf_counter() - started
    tables: dict[str, pa.Table] = {}
    for name, files in present.items():
        _progress(f"validating {name} ({len(files)} files)…", quiet)
        clock = time.perf_counter()
        result = report.results[name] = DatasetResult(name)
        problems: list[str] = []
        try:
            tables[name] = read_rows(name, files, registry.DATASETS[name].columns, problems)
        except Exception as error:  # e.g. files whose columns cannot be combined
            tables[name] = pa.table({})
            result.checks.append(frame_error(f"{name}.rows", error))
        report.notes.extend(f"{name}: {problem}" for problem in problems)
        result.rows = tables[name].num_rows
        _check_frames(FrameInputs(root, manifest, params, name, files, tables), result, context, report)
        report.timings[name] = time.perf_counter() - clock
    if manifest is not None and (wanted is None or "manifest" in wanted):
        clock = time.perf_counter()
        result = report.results["manifest"] = DatasetResult("manifest")
        inputs = FrameInputs(root, manifest, params, "manifest", [], tables)
        _check_frames(inputs, result, context, report)
        result.rows = sum(len(frame) for frame in inputs.frames.values())
        report.timings["manifest"] = time.perf_counter() - clock
    elif manifest is None:
        report.notes.append("no manifest.json: manifest reconciliation and build targets not checked")
    report.seconds = time.perf_counter() - started
    _write_results(report, context.results)
    if render_docs:
        _progress("rendering Data Docs…", quiet)
        clock = time.perf_counter()
        context.build_docs()
        report.docs_index = finish_docs(docs, report)
        report.timings["docs"] = time.perf_counter() - clock
    report.seconds = time.perf_counter() - started
    (report.results_dir / "summary.json").write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    return report


def _write_results(report: ValidationReport, results: dict[str, Any]) -> None:
    assert report.results_dir is not None
    report.results_dir.mkdir(parents=True, exist_ok=True)
    for frame_name, result in results.items():
        path = report.results_dir / f"{frame_name}.json"
        path.write_text(json.dumps(result.to_json_dict(), indent=2, ensure_ascii=False, default=str))
