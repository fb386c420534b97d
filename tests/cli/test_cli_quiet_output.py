"""Quiet, exact output: no third-party warning a user cannot act on, a Dataflow dry run that checks what it
ships and says nothing else, Cloud Storage that cannot be reached said in one line before any retry."""

from __future__ import annotations

import subprocess
import sys
import tarfile

import pytest

from tests.support.gcs_emulator import free_port
from tests.support.paths import REPO
from tnforge.errors import RunnerOptionError

#: Imports apache_beam as set-up command 1's environment does: without the gcp extra's apitools.
WITHOUT_APITOOLS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "apitools":
            raise ImportError(name)
sys.meta_path.insert(0, Block())
{first}
import apache_beam
"""


def _stderr_of(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr


def test_beams_bigquery_warning_is_dropped_and_only_it() -> None:
    assert "apitools not found" in _stderr_of(WITHOUT_APITOOLS.format(first=""))  # what Beam says on its own
    quiet = _stderr_of(WITHOUT_APITOOLS.format(first="import tnforge") + "import logging\n"
                       "logging.warning('apitools not found, but said by another logger')\n"
                       "logging.getLogger('other').warning('apitools not found, and bigquery client libraries "
                       "are not available')\n")
    assert quiet.splitlines() == ["WARNING:root:apitools not found, but said by another logger",
                                  "WARNING:other:apitools not found, and bigquery client libraries are not available"]


DATAFLOW = ["--runner=DataflowRunner", "--project=tnforge-test", "--region=us-central1",
            "--temp_location=gs://tnforge-test/tmp"]


def test_dataflow_gets_a_package_of_the_checkout() -> None:
    pytest.importorskip("build")
    from apache_beam.options.pipeline_options import SetupOptions

    from tnforge.pipelines.runner import pipeline_options

    setup = pipeline_options(DATAFLOW).view_as(SetupOptions)
    assert setup.setup_file is None and len(setup.extra_packages) == 1
    with tarfile.open(setup.extra_packages[0]) as package:
        names = {name.split("/", 1)[-1] for name in package.getnames()}
    assert {"pyproject.toml", "pipelines/build.py", "tnforge/cli/build.py", "schemas/__init__.py"} <= names
    given = pipeline_options([*DATAFLOW, "--setup_file=./setup.py"]).view_as(SetupOptions)
    assert given.setup_file == "./setup.py" and not given.extra_packages  # named by the user: Beam builds it


def test_missing_package_tools_are_one_line(monkeypatch) -> None:
    import importlib.util

    from tnforge.pipelines import worker_package

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "build" else real(name, *a))
    worker_package.worker_package.cache_clear()
    with pytest.raises(RunnerOptionError, match=r"building it needs build: pip install -e '\.\[gcp\]'"):
        worker_package.worker_package(REPO)
    worker_package.worker_package.cache_clear()


def _tnforge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "tnforge", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def test_a_dataflow_dry_run_prints_only_its_progress(tmp_path) -> None:
    pytest.importorskip("apache_beam.runners.dataflow.dataflow_runner")
    pytest.importorskip("build")
    result = _tnforge("build", "--out", "gs://tnforge-test/out", "--", *DATAFLOW, "--dry_run=True")
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if not line.startswith("[tnforge ")] == []
    assert result.stderr.splitlines()[-1].endswith("dry run: the job graph was built and not submitted")


def test_unreachable_storage_is_one_line_before_any_retry() -> None:
    refused = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    result = _tnforge("build", "gs://tnforge-test/en/output-*", "--out", "gs://tnforge-test/out", "--", *DATAFLOW,
                      "--dry_run=True", env={"STORAGE_EMULATOR_HOST": refused})
    lines = [line for line in result.stderr.splitlines() if not line.startswith("[tnforge ")]
    assert result.returncode == 1 and lines == [
        f"Error: input gs://tnforge-test/en/output-*: not reachable (cannot connect to 127.0.0.1:"
        f"{refused.rsplit(':', 1)[1]}: Connection refused); check the network connection (or STORAGE_EMULATOR_HOST)"]


def test_the_build_summary_folds_its_measure_units(bundled_build) -> None:
    import json

    from tnforge.pipelines.manifest import summary_table

    manifest = json.loads((bundled_build / "manifest.json").read_text())
    units = manifest["sampling"]["measure_units"]
    lines = [line for line in summary_table(manifest).splitlines() if "MEASURE unit" in line]
    assert len(units) > 6 and len(lines) == 6  # the five largest, then the fold
    assert lines[-1] == f"  … and {len(units) - 5} more MEASURE units (all in manifest.json, sampling.measure_units)"
    largest = sorted(units, key=lambda unit: (-units[unit]["examples"], unit))[:5]
    assert [line.split("'")[1] for line in lines[:5]] == largest


def test_folding_shows_a_single_hidden_line_instead_of_its_fold() -> None:
    from tnforge.progress import folded

    six = [f"  line {i}" for i in range(6)]
    assert folded(six, "lines", "x") == six
    assert folded([*six, "  line 6"], "lines", "x") == [*six[:5], "  … and 2 more lines (all in x)"]


def test_the_reachability_check_dials_the_emulator_or_the_proxy_requests_go_through(monkeypatch) -> None:
    from tnforge.reachability import GCS_ENDPOINT, gcs_endpoint

    for name in ("STORAGE_EMULATOR_HOST", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert gcs_endpoint() == GCS_ENDPOINT
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert gcs_endpoint() == ("proxy.internal", 3128)
    monkeypatch.setenv("NO_PROXY", "localhost,.googleapis.com")
    assert gcs_endpoint() == GCS_ENDPOINT
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:9023")
    assert gcs_endpoint() == ("127.0.0.1", 9023)
