"""Run a whole dataset build: check inputs and output, run the Beam pipeline, write the manifest; then, as
`tnforge build` asks, the negatives and the validation."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from tnforge import filesystems
from tnforge.datasets import DATASET_DIRS
from tnforge.errors import Interrupted, OutputError, TnforgeError, interrupt_says, interrupted
from tnforge.filesystems import PathError, expand, is_remote, join
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
from tnforge.pipelines.manifest import make_manifest, rejects_line, summary_table
from tnforge.pipelines.negatives_config import NegativesConfig
from tnforge.progress import log, quiet_library_logs
from tnforge.sources import file_identity, name_inputs
from tnforge.splits import resolve_mode


class BuildError(TnforgeError):
    """A build that cannot start (bad inputs, an output directory in the way, bad options), that found nothing
    to build, or whose result is unusable (counts that do not reconcile, failed negatives or validation)."""


def resolve_inputs(patterns: list[str]) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """Expand paths and globs to (path, size), sorted, each file once; and {path: times named} of the files
    named more than once (the same resolved path or URI, also through overlapping globs)."""
    files: dict[str, tuple[str, int]] = {}
    named: Counter[str] = Counter()
    for pattern in patterns:
        try:
            for path, size in expand(pattern):
                identity = file_identity(path)
                files.setdefault(identity, (path, size))
                named[identity] += 1
        except (FileNotFoundError, PermissionError, IsADirectoryError, PathError) as error:
            raise BuildError(f"input {error}") from error
    for path, _ in files.values():
        if not is_remote(path):
            try:
                with open(path, "rb"):
                    pass
            except OSError as error:
                raise BuildError(f"input {path}: cannot be read ({error.strerror})") from error
    repeated = {files[identity][0]: n for identity, n in sorted(named.items()) if n > 1}
    return sorted(files.values()), repeated


def check_writable(out: str) -> None:
    """Create `out` and write (then delete) a probe file in it; an OutputError saying why not."""
    try:
        filesystems.check_writable(out)
    except PathError as error:
        raise OutputError(f"--out {error}") from error


def prepare_output(out: str, overwrite: bool, probe: bool = True) -> None:
    """Refuse a non-empty output directory (local or remote) unless overwrite; with overwrite, clear what a
    build writes. Then check (unless `probe` is false) that `out` can be created and written to."""
    try:
        filesystems.check_path(out)
    except PathError as error:
        raise OutputError(f"--out {error}") from error
    if is_remote(out):
        if not probe:  # a dry run builds the job graph offline: no request to the store
            return
        check_writable(out)  # first: an unreachable bucket says so, not that it cannot be listed
    try:
        if filesystems.is_file(out):
            raise BuildError(f"--out {out}: exists and is not a directory")
        if filesystems.has_contents(out):
            if not overwrite:
                if is_dataset_directory(out) and not _complete(out):
                    raise BuildError(f"{out} holds an incomplete build; use --overwrite to replace it")
                raise BuildError(f"--out {out}: directory is not empty (use --overwrite to replace its contents)")
            for name in [MANIFEST, SCRATCH, "validation", *sorted({d.split("/")[0] for d in DATASET_DIRS.values()})]:
                filesystems.remove(join(out, name))
    except PathError as error:
        raise OutputError(f"--out {error}") from error
    if probe and not is_remote(out):
        check_writable(out)


def check_not_empty(manifest: dict, out: str, files: int) -> None:
    """A BuildError when no record of the inputs reached a split: a reason and the rejects."""
    accounting = manifest["accounting"]
    valid = accounting["input_records"] - accounting["rejected"]
    if valid and valid > accounting["excluded"]:
        return
    reason = (f"no valid record in {files} input file(s)" if not valid else
              f"all {valid:,} valid records are excluded by the standard split")
    raise BuildError(f"{reason}; {out} left incomplete (no manifest; --allow-empty builds it anyway)\n"
                     f"{rejects_line(manifest) or 'rejects: none'}")


def repairs_line(entry: dict) -> str:
    """"FILE: BOM removed; N CRLF line ends repaired" for a manifest's input entry."""
    repairs = (["BOM removed"] if entry.get("bom") else []) + (
        [f"{entry['crlf_lines']:,} CRLF line end{'s' * (entry['crlf_lines'] != 1)} repaired"]
        if entry.get("crlf_lines") else [])
    return f"{entry['path']}: {'; '.join(repairs)}"


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
    from tnforge.pipelines.runner import is_dry_run, pipeline_options

    start = time.monotonic()
    files, repeated = resolve_inputs(list(config.inputs))
    first = {file_identity(path) for path, _ in expand(config.inputs[0])} if config.defer_to_first else set()
    if config.defer_to_first and all(file_identity(path) in first for path, _ in files):
        raise BuildError(f"--defer-to-first: every input file is the first input's ({config.inputs[0]}); name another "
                         "input to defer to it")
    for path, times in repeated.items():
        log(f"{path}: named {times} times; read once")
    try:
        mode = resolve_mode(config.split, [p for p, _ in files])
        config = replace(config, split=mode, inputs=tuple(p for p, _ in files))
        config.split_rule  # noqa: B018 - validates ratios and mode early
        config.sampling  # noqa: B018
        dry_run = is_dry_run(pipeline_options(config.pipeline_args, workers))
    except ValueError as error:
        raise BuildError(str(error)) from error
    prepare_output(config.out, overwrite, probe=not dry_run)
    shards = config.shards or auto_shards(sum(size for _, size in files))
    log(f"building {config.out} from {len(files)} file(s), {sum(s for _, s in files) / 1e6:.1f} MB; "
        f"split {mode}, {shards} shard(s)")
    try:
        with quiet_library_logs():
            named = name_inputs(files)
            leading = frozenset(f.source for f in named if file_identity(f.path) in first)
            state = run_pipeline(config, named, shards, workers, leading)
    except BaseException as error:
        if interrupted(error):
            raise Interrupted(f"interrupted; {config.out} left incomplete") from error
        raise
    if state is None:
        log("dry run: the job graph was built and not submitted")
        return None
    manifest = make_manifest(config, shards, state, time.monotonic() - start)
    manifest["repeated_inputs"] = repeated
    for entry in manifest["inputs"]:
        if entry.get("bom") or entry.get("crlf_lines"):
            log(repairs_line(entry))
    if not config.allow_empty:
        check_not_empty(manifest, config.out, len(files))
    write_manifest(config.out, manifest)
    log(f"wrote {config.out}/manifest.json in {manifest['wall_time_s']:.1f}s")
    return manifest


def build_dataset(config: BuildConfig, negatives: NegativesConfig | None = None, validate: bool = False,
                  workers: int | None = None, overwrite: bool = False, echo: Callable[[str], None] = print) -> None:
    """`run_build`, its summary table passed to `echo`, then negative pairs (when `negatives`) and a
    validation (its table to `echo`); a BuildError when any step fails. `workers` applies to both the build and
    the negatives; None: the build in this process, the negatives with their automatic count (`auto_workers`)."""
    if config.synthesize:
        from tnforge.grammars import adapter

        if (reason := adapter.unavailable_reason()) is not None:
            raise BuildError(f"--synthesize draws and reads its examples with the covering grammar: {reason}")
    manifest = run_build(config, workers=workers, overwrite=overwrite)
    if manifest is None:
        return
    echo(summary_table(manifest))
    if not manifest["accounting"]["reconciles"]:
        raise BuildError("the counts do not reconcile: see accounting in manifest.json")
    if negatives is not None:
        from tnforge.pipelines.negatives_job import run_negatives_job
        from tnforge.pipelines.negatives_job import summary_table as negatives_table

        try:
            with interrupt_says(f"interrupted during the negatives; {config.out} holds a complete dataset "
                                f"(manifest.json written) without negatives: `tnforge negatives {config.out}` "
                                "makes them", replace=True):
                section = run_negatives_job(config.out, negatives, config.pipeline_args,
                                            0 if workers is None else workers, progress=log)
        except (ValueError, FileNotFoundError, RuntimeError) as error:
            raise BuildError(str(error)) from error
        echo("\n" + negatives_table(section))
    if validate:
        from tnforge.validation import validate_directory

        log(f"validating {config.out}")
        # On the runner the build ran on (shard by shard; in this process when no Beam option was given).
        with interrupt_says(f"interrupted during validation; {config.out} holds a complete dataset"
                            f"{' with its negatives' if negatives is not None else ''}, not validated: "
                            f"`tnforge validate {config.out}` checks it", replace=True):
            report = validate_directory(config.out, pipeline_args=list(config.pipeline_args) or None)
        echo("\n" + report.format_table())
        echo(report.verdict())
        if not report.success:
            raise BuildError(f"validation failed: see {config.out}/validation/")
