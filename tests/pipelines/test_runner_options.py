"""`--workers N` with a named Beam runner: applied to Beam's local runners, refused (one line) for the others."""

from __future__ import annotations

import pytest
from apache_beam.options.pipeline_options import DirectOptions
from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.errors import RunnerOptionError, TnforgeError
from tnforge.pipelines.runner import pipeline_options

PORTABLE = ["--runner=PortableRunner", "--job_endpoint=localhost:1", "--environment_type=EXTERNAL",
            "--environment_config=localhost:2"]


@pytest.mark.parametrize("runner", ["DataflowRunner", "PortableRunner", "FlinkRunner", "PrismRunner"])
def test_workers_with_a_remote_runner_is_refused_naming_the_runner(runner):
    with pytest.raises(RunnerOptionError) as raised:
        pipeline_options([f"--runner={runner}", "--setup_file=setup.py"], 2)
    assert isinstance(raised.value, TnforgeError)
    assert str(raised.value).startswith(f"--workers 2 applies to the local runner only; with --runner={runner} ")
    assert "--num_workers" in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("workers", [None, 1])
def test_one_worker_with_a_named_runner_is_fine(workers):
    options = pipeline_options(PORTABLE, workers)
    assert options.get_all_options()["runner"] == "PortableRunner"
    assert options.view_as(DirectOptions).direct_num_workers == 1


@pytest.mark.parametrize("runner", ["DirectRunner", "FnApiRunner", "fnapi",
                                    "apache_beam.runners.portability.fn_api_runner.FnApiRunner"])
def test_workers_with_a_named_local_runner_is_applied(runner):
    options = pipeline_options([f"--runner={runner}"], 3).view_as(DirectOptions)
    assert options.direct_num_workers == 3 and options.direct_running_mode == "multi_processing"


def test_build_refuses_it_in_one_line_before_writing(tmp_path, bundled_tsv):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["build", str(bundled_tsv), "--out", str(out), "--workers", "2", "--",
                                      "--runner=DataflowRunner", "--dry_run=True"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("[tnforge")]
    assert lines == ["Error: --workers 2 applies to the local runner only; with --runner=DataflowRunner set the "
                     "number of workers with that runner's own options (Dataflow: --num_workers / --max_num_workers)"]
    assert not out.exists()


def test_negatives_refuses_it_before_deleting_the_old_pairs(bundled_build):
    pairs = sorted(p.relative_to(bundled_build) for p in (bundled_build / "pairs").rglob("*.parquet"))
    assert pairs
    result = CliRunner().invoke(cli, ["negatives", str(bundled_build), "--workers", "2", "--", *PORTABLE])
    assert result.exit_code == 1
    assert "Error: --workers 2 applies to the local runner only; with --runner=PortableRunner " in result.output
    assert sorted(p.relative_to(bundled_build) for p in (bundled_build / "pairs").rglob("*.parquet")) == pairs
