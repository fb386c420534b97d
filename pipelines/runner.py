"""Choosing and configuring the Beam runner for tnforge pipelines.

The local default is Beam's portable in-process runner (FnApiRunner), named explicitly: the default
DirectRunner tries to download Prism, which fails offline. Any Beam pipeline option can be passed
through (`--runner=DataflowRunner --project=… --region=… --temp_location=gs://…`); on Dataflow the
package ships to the workers as a source package built from the checkout (`worker_package`, passed as an extra
package), or through a `--setup_file` given.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions, SetupOptions, StandardOptions

from tnforge.errors import RunnerOptionError


def pipeline_options(pipeline_args: Sequence[str], workers: int | None = None) -> PipelineOptions:
    """Beam options from pass-through arguments, with tnforge's local defaults filled in.

    `workers` > 1 becomes `direct_num_workers` on the local runner (the default, or one named); with any
    other runner it is refused (RunnerOptionError) rather than silently ignored."""
    args = list(pipeline_args)
    options = PipelineOptions(args)
    runner = options.view_as(StandardOptions).runner
    if workers and workers > 1:
        if runner is not None and not is_local_runner(runner):
            raise RunnerOptionError(
                f"--workers {workers} applies to the local runner only; with --runner={runner} set the number "
                "of workers with that runner's own options (Dataflow: --num_workers / --max_num_workers)"
            )
        if not any(a.startswith("--direct_num_workers") for a in args):
            args += [f"--direct_num_workers={workers}", "--direct_running_mode=multi_processing"]
            options = PipelineOptions(args)
    if is_dataflow(options):
        setup = options.view_as(SetupOptions)
        if not setup.setup_file:
            found = checkout_setup_file()
            if found is None:
                raise ValueError(
                    "DataflowRunner needs the tnforge package on its workers: pass --setup_file=PATH/setup.py "
                    "(from a tnforge checkout) or --sdk_container_image with tnforge installed"
                )
            from tnforge.pipelines.worker_package import worker_package

            setup.extra_packages = [*(setup.extra_packages or []), worker_package(found.parent)]
        options.view_as(SetupOptions).save_main_session = False
    return options


#: Beam's local runners that run `direct_num_workers` worker processes (names lower-cased, "Runner" kept).
LOCAL_RUNNERS = frozenset({"directrunner", "switchingdirectrunner", "fnapirunner"})


def is_local_runner(runner: object) -> bool:
    """True for a runner name (short, or with its module path) that `--workers` applies to."""
    name = str(runner).rsplit(".", 1)[-1].lower()
    return (name if name.endswith("runner") else name + "runner") in LOCAL_RUNNERS


def is_dataflow(options: PipelineOptions) -> bool:
    """True when the options name the Dataflow runner."""
    runner = options.view_as(StandardOptions).runner or ""
    return "dataflow" in str(runner).lower()


def require_shared(options: PipelineOptions, paths: Mapping[str, object]) -> None:
    """On Dataflow (not a dry run), every path the workers read or write must be on a filesystem they share
    (gs://): a local one is refused in one line naming it (`paths`: what it is → the path)."""
    from tnforge.filesystems import is_remote

    if not is_dataflow(options) or is_dry_run(options):
        return
    for what, path in paths.items():
        if path is not None and not is_remote(str(path)):
            raise ValueError(f"{path}: Dataflow workers cannot reach a local {what}; give its gs:// copy")


def is_dry_run(options: PipelineOptions) -> bool:
    """True for Dataflow's `--dry_run=True` (the job graph is built, nothing is submitted)."""
    return bool(options.get_all_options().get("dry_run"))


def checkout_setup_file() -> Path | None:
    """The setup.py of the source checkout tnforge is installed from (editable installs), if any."""
    import tnforge

    candidate = Path(tnforge.__file__).resolve().parents[1] / "setup.py"
    return candidate if candidate.exists() else None


def make_pipeline(options: PipelineOptions) -> beam.Pipeline:
    """A pipeline on the runner the options name, or the in-process FnApiRunner by default."""
    if options.view_as(StandardOptions).runner is None:
        from apache_beam.runners.portability.fn_api_runner import FnApiRunner

        return beam.Pipeline(runner=FnApiRunner(), options=options)
    return beam.Pipeline(options=options)


#: Loggers through which Beam logs a worker's error (with its traceback) before re-raising it.
WORKER_ERROR_LOGGERS = ("apache_beam.runners.common", "apache_beam.runners.worker.sdk_worker",
                        "apache_beam.runners.portability.local_job_service",
                        "apache_beam.runners.worker.bundle_processor")


def _below_error(record: logging.LogRecord) -> bool:
    return record.levelno < logging.ERROR


@contextlib.contextmanager
def quiet_worker_errors() -> Iterator[None]:
    """Drop Beam's ERROR log records of worker failures while a pipeline runs: the error itself is
    re-raised and reported by the caller (as one line, or as a traceback with `--debug`)."""
    loggers = [logging.getLogger(name) for name in WORKER_ERROR_LOGGERS]
    for logger in loggers:
        logger.addFilter(_below_error)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(_below_error)
