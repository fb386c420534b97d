"""`validate_directory`, the runner behind `tnforge validate`: shard by shard, in bounded memory.

Each file is read a chunk at a time and its rows suite run per chunk (`shards`); the dataset-wide checks
run per key-hash partition (`groups`); the aggregate frames are built from the counts every shard
contributed (`frames`). By default this runs in this process; with Beam options (`pipeline_args`) the
same per-shard work runs as a Beam pipeline (`beam_job`). Results go to DIR/validation/*.json and Data
Docs to DIR/validation/docs, local or gs:// alike.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tnforge import schemas
from tnforge.filesystems import is_remote, join, matching, write_bytes
from tnforge.manifest import check_input, has_manifest, read_manifest
from tnforge.progress import quiet_library_logs
from tnforge.schemas import suites
from tnforge.validation import registry
from tnforge.validation.combine import SHOWN, Partial
from tnforge.validation.docs import finish_docs
from tnforge.validation.engine import Engine, import_gx
from tnforge.validation.frames import FrameInputs, rows_frame
from tnforge.validation.groups import Shuffle, labels_frame, validate_group
from tnforge.validation.reading import present_datasets
from tnforge.validation.report import CheckResult, DatasetResult, ValidationReport
from tnforge.validation.shards import CHUNK_ROWS, Plan, Unit, make_plan, validate_shard

if TYPE_CHECKING:
    import pandas as pd

RESULTS_DIR = "validation"


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _exception_message(item: dict[str, Any]) -> str | None:
    info = item.get("exception_info") or {}
    entries = [info] if "raised_exception" in info else list(info.values())
    for entry in entries:
        if isinstance(entry, dict) and entry.get("raised_exception"):
            return str(entry.get("exception_message"))
    return None


def describe_observed(item: dict[str, Any]) -> str:
    """What an expectation saw, in one line: the observed value, or the offending values and how many."""
    error = _exception_message(item)
    if error:
        return f"error: {error}"
    found = item.get("result") or {}
    if "observed_value" in found:
        return _short(found["observed_value"])
    unexpected = found.get("unexpected_count") or 0
    if unexpected:
        indexed = found.get("partial_unexpected_index_list") or []
        shown = indexed if indexed and isinstance(indexed[0], dict) else found.get("partial_unexpected_list") or []
        return _short(f"{unexpected:,} of {found.get('element_count', 0):,} rows, e.g. "
                      f"{json.dumps(shown[:SHOWN], default=str, ensure_ascii=False)}", 400)
    return f"0 of {found.get('element_count', 0):,} rows unexpected"


def _collect(result: DatasetResult, frame_name: str, validation: dict[str, Any]) -> None:
    for item in validation["results"]:
        config = item["expectation_config"]
        result.checks.append(CheckResult(
            frame=frame_name, expectation=config["type"], description=config.get("description") or config["type"],
            success=bool(item["success"]), observed=describe_observed(item),
            informational=bool((config.get("meta") or {}).get("informational"))))


def frame_error(frame: str, error: Exception | str) -> CheckResult:
    """The failed check standing for a frame that could not be built or checked from the files."""
    text = error if isinstance(error, str) else f"error: {type(error).__name__}: {error}"
    return CheckResult(frame=frame, expectation="frame_built", description=f"{frame} could be built and checked",
                       success=False, observed=_short(text, 400))


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
    pipeline_args: Sequence[str] | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> ValidationReport:
    """Validate every dataset present in a dataset directory (local or gs://); write JSON results and Data Docs.

    Results go to `ROOT/validation/*.json`, Data Docs to `docs_dir` (default `ROOT/validation/docs`), both
    local or remote like ROOT. `only` restricts the run to some datasets (names as in
    `tnforge.schemas.SCHEMAS`, plus "manifest"); `render_docs=False` skips the Data Docs; `pipeline_args`
    (Beam options, e.g. ["--runner=DirectRunner"]) runs the per-shard work as a Beam pipeline.
    """
    import_gx()
    with quiet_library_logs():
        return _validate(str(root), docs_dir, only, render_docs, quiet, pipeline_args, chunk_rows)


def _exists(root: str) -> bool:
    if is_remote(root):
        return has_manifest(root) or bool(matching(root.rstrip("/") + "/**"))
    return Path(root).is_dir()


def _validate(root: str, docs_dir: str | os.PathLike | None, only: Iterable[str] | None, render_docs: bool,
              quiet: bool, pipeline_args: Sequence[str] | None, chunk_rows: int) -> ValidationReport:
    started = time.perf_counter()
    if not _exists(root):
        raise FileNotFoundError(f"{root}: not a directory")
    chosen = set(only) if only is not None else None
    unknown = sorted((chosen or set()) - set(registry.DATASETS))
    if unknown:
        raise ValueError(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(registry.DATASETS)}")
    check_input(root)
    manifest = read_manifest(root, missing_ok=True)
    params = suites.params_from_manifest(manifest)
    present = present_datasets(root)
    checked = [n for n in present if chosen is None or n in chosen]
    wanted = checked + (["manifest"] if manifest is not None and (chosen is None or "manifest" in chosen) else [])
    if not present and manifest is None:  # nothing here to check: never a "passed", never a write
        raise ValueError(f"{root}: not a dataset directory (no manifest.json and no datasets in the tnforge "
                         "layout): nothing to validate")
    if not wanted:
        raise ValueError(f"{root}: holds none of the datasets asked for ({', '.join(sorted(chosen or ()))}); "
                         f"present: {', '.join([*present, *(['manifest'] if manifest is not None else [])])}")
    results_dir = join(root, RESULTS_DIR) if is_remote(root) else Path(root) / RESULTS_DIR
    report = ValidationReport(root=root if is_remote(root) else Path(root), results_dir=results_dir)
    if not present:
        report.notes.append("no dataset found (no Parquet files in the tnforge layout)")
    engine = Engine(params)
    plan, units = make_plan(root, manifest, params, wanted, present, chunk_rows)
    report.timings["start"] = time.perf_counter() - started
    clock = time.perf_counter()
    if pipeline_args:
        from tnforge.validation.beam_job import run_pipeline

        _progress(f"validating {len(units)} files as a Beam pipeline…", quiet)
        partial = run_pipeline(plan, units, pipeline_args, str(results_dir))
    else:
        partial = _run_here(engine, plan, units, quiet)
    report.timings["shards"] = time.perf_counter() - clock
    clock = time.perf_counter()
    stored = _finish(report, engine, plan, partial, present, checked, "manifest" in wanted)
    if manifest is None:
        report.notes.append("no manifest.json: manifest reconciliation and build targets not checked")
    else:
        report.notes.extend(build_notes(manifest))
    report.timings["final"] = time.perf_counter() - clock
    report.seconds = time.perf_counter() - started
    for frame_name, result in stored.items():
        _write(join(str(results_dir), f"{frame_name}.json"), result)
    if render_docs:
        _progress("rendering Data Docs…", quiet)
        clock = time.perf_counter()
        docs = str(docs_dir) if docs_dir is not None else join(str(results_dir), "docs")
        report.docs_index = _render_docs(engine, report, docs)
        report.timings["docs"] = time.perf_counter() - clock
    report.seconds = time.perf_counter() - started
    write_bytes(join(str(results_dir), "summary.json"),
                json.dumps(report.to_dict(), indent=2, ensure_ascii=False).encode("utf-8"))
    return report


def build_notes(manifest: dict) -> list[str]:
    """What a reader of the results must know about how the build made its rows: inferred classes (aligned
    text), augmented train sentences, synthesized train examples."""
    notes = []
    inference = manifest.get("class_inference")
    if inference:
        notes.append(f"classes are INFERRED, not gold (aligned text: {', '.join(inference['sources'])}): "
                     f"{inference['grammar']:,} tokens by the covering grammar, {inference['fallback']:,} by shape "
                     "rules; per-class checks test the inferred classes")
    augmented = manifest.get("augmentation")
    if augmented:
        notes.append(f"the train sentences include {augmented['sentences']:,} augmented copies "
                     "(source SOURCE#augment-N)")
    synthesis = manifest.get("synthesis") or {}
    if synthesis.get("examples"):
        notes.append(f"the train examples include {sum(synthesis['examples'].values()):,} grammar-synthesized ones "
                     "(source SOURCE#synthesized; counted with the copies, left out of the trivial share)")
    if synthesis.get("sentences"):
        notes.append(f"the train sentences include {synthesis['sentences']:,} with grammar-synthesized tokens "
                     "(source SOURCE#synthesized-N)")
    deference = manifest.get("deference")
    if deference:
        notes.append(f"{sum(deference['deferred'].values()):,} train tokens of later inputs were left out of the "
                     f"examples and pairs: {', '.join(deference['leading'])} reads them otherwise (--defer-to-first)")
    return notes


def _run_here(engine: Engine, plan: Plan, units: list[Unit], quiet: bool) -> Partial:
    """The default run: every file in this process, then every partition (pieces grouped by `Shuffle`)."""
    partial, shuffle = Partial(), Shuffle()
    try:
        for index, unit in enumerate(units):
            if index == 0 or units[index - 1].dataset != unit.dataset:
                count = sum(u.dataset == unit.dataset for u in units)
                _progress(f"validating {unit.dataset} ({count} files)…", quiet)
            found, pieces = validate_shard(engine, plan, unit)
            partial.merge(found)
            for key, table in pieces:
                shuffle.add(key, table)
        for key, table in shuffle.groups():
            partial.merge(validate_group(engine, plan, key, table))
    finally:
        shuffle.close()
    return partial


def _finish(report: ValidationReport, engine: Engine, plan: Plan, partial: Partial, present: dict[str, list],
            checked: list[str], with_manifest: bool) -> dict[str, dict[str, Any]]:
    """Turn the combined partial into the report's checks: combined per-chunk and per-partition results,
    then the aggregate frames; the GX results of every frame (also kept in the engine for the Data Docs)."""
    run_time = datetime.now(UTC)
    stored: dict[str, dict[str, Any]] = {}
    report.notes.extend(text for _, text in partial.notes)
    for name in [*checked, *(["manifest"] if with_manifest else [])]:
        result = report.results[name] = DatasetResult(name, rows=partial.rows.get(name, 0))
        inputs = FrameInputs(plan.root, plan.manifest, plan.params, name, partial, present)
        built = 0
        for frame in registry.DATASETS[name].frames:
            if not frame.applies(plan.params):
                continue
            try:
                validation = partial.suite_result(frame.name) if frame.stage != "final" else None
                if frame.stage != "final" and validation is None and frame.name not in partial.errors:
                    validation = engine.validate(frame, empty_frame(name, frame), SHOWN)  # a dataset without rows
                if frame.stage == "final":
                    data = frame.build(inputs)
                    built += len(data)
                    if frame.note is not None:
                        report.notes.append(frame.note(data, plan.params))
                    if engine.has_expectations(frame):
                        validation = engine.validate(frame, data, SHOWN)
                if validation is not None:
                    _collect(result, frame.name, validation)
                    engine.store(frame.name, validation, run_time)
                    stored[frame.name] = validation
                if frame.name in partial.errors:
                    result.checks.append(frame_error(frame.name, partial.errors[frame.name][1]))
            except Exception as error:  # bad data is a failed check, never a crash of the whole run
                result.checks.append(frame_error(frame.name, error))
        if name == "manifest":
            result.rows = built
    return stored


def empty_frame(name: str, frame: registry.Frame) -> pd.DataFrame:
    """The frame of a dataset without rows, with the columns the frame's suite reads."""
    import pyarrow as pa

    schema = schemas.SCHEMAS[name]
    if frame.stage == "rows":
        columns = registry.DATASETS[name].columns or schema.names
        table = pa.schema([schema.field(c) for c in columns]).empty_table()
        if name in suites.SPLIT_DATASETS:
            table = table.append_column("folder", pa.array([], pa.string()))
        return rows_frame(name, table)
    if frame.name == "pairs.labels":
        return labels_frame(pa.table({c: pa.array([], pa.string()) for c in ("split", "before", "reading",
                                                                              "negative_type")}
                                     | {"label": pa.array([], pa.int64()), "positive": pa.array([], pa.bool_())}))
    return pa.schema([schema.field(c) for c in frame.index or () if c in schema.names]).empty_table().to_pandas()


def _write(path: str, result: dict[str, Any]) -> None:
    write_bytes(path, json.dumps(result, indent=2, ensure_ascii=False, default=str).encode("utf-8"))


def _render_docs(engine: Engine, report: ValidationReport, docs: str) -> str | Path:
    """Render the Data Docs into `docs` (local, or rendered in a temporary folder and copied to a remote one)."""
    if not is_remote(docs):
        folder = Path(docs).resolve()
        engine.build_docs(folder)
        return finish_docs(folder, report)
    local = Path(tempfile.mkdtemp(prefix="tnforge-docs-"))
    try:
        engine.build_docs(local)
        finish_docs(local, report)
        for path in sorted(p for p in local.rglob("*") if p.is_file()):
            write_bytes(join(docs, path.relative_to(local).as_posix()), path.read_bytes())
    finally:
        shutil.rmtree(local, ignore_errors=True)
    return join(docs, "index.html")
