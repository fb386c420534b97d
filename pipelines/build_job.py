"""Run a whole dataset build: check inputs and output, run the Beam pipeline, write the manifest; then, as
`tnforge build` asks, the negatives and the validation."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import replace

from tnforge.datasets import DATASET_DIRS
from tnforge.filesystems import expand, is_remote
from tnforge.manifest import (
    MANIFEST,
    SCRATCH,
    IncompleteBuild,
    LayoutMismatch,
    is_dataset_directory,
    require_complete,
    write_manifest,
)
from tnforge.pipelines.build_config import BuildConfig, auto_shards
from tnforge.pipelines.manifest import make_manifest, summary_table
from tnforge.pipelines.negatives_config import NegativesConfig
from tnforge.progress import log
from tnforge.splits import resolve_mode


class BuildError(Exception):
    """A build that cannot start (bad inputs, an output directory in the way, bad options) or whose result
    is unusable (counts that do not reconcile, failed negatives or validation)."""


def resolve_inputs(patterns: list[str]) -> list[tuple[str, int]]:
    """Expand paths and globs to (path, size), sorted and de-duplicated; a clear error for a bad path."""
    files: dict[str, int] = {}
    for pattern in patterns:
        try:
            for path, size in expand(pattern):
                files[path] = size
        except (FileNotFoundError, PermissionError, IsADirectoryError) as error:
            raise BuildError(f"input {error}") from error
    for path in files:
        if not is_remote(path):
            try:
                with open(path, "rb"):
                    pass
            except OSError as error:
                raise BuildError(f"input {path}: cannot be read ({error.strerror})") from error
    return sorted(files.items())


def prepare_output(out: str, overwrite: bool) -> None:
    """Refuse a non-empty output directory unless overwrite; with overwrite, clear what a build writes."""
    if is_remote(out):
        return
    if os.path.exists(out) and not os.path.isdir(out):
        raise BuildError(f"--out {out}: exists and is not a directory")
    if os.path.isdir(out) and os.listdir(out):
        if not overwrite:
            if is_dataset_directory(out) and not _complete(out):
                raise BuildError(f"{out} holds an incomplete build; use --overwrite to replace it")
            raise BuildError(f"--out {out}: directory is not empty (use --overwrite to replace its contents)")
        for name in [MANIFEST, SCRATCH, "validation", *{d.split("/")[0] for d in DATASET_DIRS.values()}]:
            path = os.path.join(out, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif os.path.exists(path):
                os.remove(path)
    os.makedirs(out, exist_ok=True)


def _complete(root: str) -> bool:
    """Whether `root` holds a finished build (of any layout)."""
    try:
        require_complete(root)
    except LayoutMismatch:
        return True
    except IncompleteBuild:
        return False
    return True


def run_build(config: BuildConfig, workers: int | None = None, overwrite: bool = False) -> dict | None:
    """Build a dataset directory; return the manifest (None for a Dataflow dry run)."""
    from tnforge.pipelines.build import run_pipeline

    start = time.monotonic()
    files = resolve_inputs(list(config.inputs))
    try:
        mode = resolve_mode(config.split, [p for p, _ in files])
        config = replace(config, split=mode, inputs=tuple(p for p, _ in files))
        config.split_rule  # noqa: B018 - validates ratios and mode early
        config.sampling  # noqa: B018
    except ValueError as error:
        raise BuildError(str(error)) from error
    prepare_output(config.out, overwrite)
    shards = config.shards or auto_shards(sum(size for _, size in files))
    log(f"building {config.out} from {len(files)} file(s), {sum(s for _, s in files) / 1e6:.1f} MB; "
        f"split {mode}, {shards} shard(s)")
    state = run_pipeline(config, files, shards, workers)
    if state is None:
        log("dry run: the job graph was built and not submitted")
        return None
    manifest = make_manifest(config, shards, state, time.monotonic() - start)
    write_manifest(config.out, manifest)
    log(f"wrote {config.out}/manifest.json in {manifest['wall_time_s']:.1f}s")
    return manifest


def build_dataset(config: BuildConfig, negatives: NegativesConfig | None = None, validate: bool = False,
                  workers: int | None = None, overwrite: bool = False, echo: Callable[[str], None] = print) -> None:
    """`run_build`, its summary table passed to `echo`, then negative pairs (when `negatives`) and a
    validation (its table to `echo`); a BuildError when any step fails."""
    manifest = run_build(config, workers=workers, overwrite=overwrite)
    if manifest is None:
        return
    echo(summary_table(manifest))
    if not manifest["accounting"]["reconciles"]:
        raise BuildError("the counts do not reconcile: see accounting in manifest.json")
    if negatives is not None:
        from tnforge.pipelines.negatives_job import run_negatives_job

        try:
            run_negatives_job(config.out, negatives, config.pipeline_args)
        except (ValueError, FileNotFoundError, RuntimeError) as error:
            raise BuildError(str(error)) from error
    if validate:
        from tnforge.validation import validate_directory

        report = validate_directory(config.out)
        echo(report.format_table())
        if not report.success:
            raise BuildError(f"validation failed: see {config.out}/validation/")
