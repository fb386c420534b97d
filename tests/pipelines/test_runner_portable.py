"""Beam's portable worker harness — the process model of Dataflow Runner v2 — run locally and offline: a job
service and an external SDK worker pool as separate processes; `tnforge build` and `tnforge negatives`
through PortableRunner write the same Parquet bytes as on the default (in-process) runner."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from tnforge.cli import cli

pytestmark = pytest.mark.slow

def run(args: list[str]) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, f"tnforge {' '.join(args)} failed:\n{result.output}"


def parquet_hashes(directory: Path) -> dict[str, str]:
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*.parquet"))}


def test_build_and_negatives_on_the_portable_harness_write_the_same_bytes(tmp_path, bundled_tsv, portable):
    portable_args, logs = portable
    hashes: dict[str, list[dict[str, str]]] = {}
    for name, beam_args in (("default", []), ("portable", portable_args)):
        out = tmp_path / name
        tail_args = ["--", *beam_args] if beam_args else []
        run(["build", str(bundled_tsv), "--out", str(out), "--negatives", "synthetic,random", "--ratio", "3",
             *tail_args])
        after_build = parquet_hashes(out)
        run(["negatives", str(out), "--kinds", "random", "--ratio", "2", *tail_args])
        hashes[name] = [after_build, parquet_hashes(out)]
    default, portable = hashes["default"], hashes["portable"]
    for stage in (0, 1):
        assert any(name.startswith("pairs/") for name in default[stage])
        assert sorted(portable[stage]) == sorted(default[stage])
        assert portable[stage] == default[stage]
    assert default[0] != default[1]  # the second negatives run replaced the pairs
    # The three jobs (build, its negatives, negatives) ran in the services' processes, not in this one.
    assert (logs / "job_service.log").read_text().count("Running job") == 3
    assert (logs / "worker_pool.log").read_text().count("Starting worker with command") >= 3
