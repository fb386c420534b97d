"""Validation shard by shard gives the same results whatever the chunk size, partition count or runner:
in this process (the default) or as a Beam pipeline (`tnforge validate DIR -- --runner=DirectRunner`).
Dataset-wide checks still see across shards and splits: a duplicate id in two split folders fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tnforge import datasets
from tnforge.cli import cli
from tnforge.validation import shards, validate_directory


def outcome(report) -> dict:
    """Everything a report says but its timings: per dataset, rows and each check with what it observed."""
    summary = report.to_dict()
    return {"notes": summary["notes"], "success": summary["success"], "results": summary["results"]}


@pytest.fixture(scope="module")
def broken(bundled_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled build with a train example copied into dev (its id twice, in two split folders), a class
    renamed, and a negative pair turned into its own input's positive reading."""
    root = tmp_path_factory.mktemp("broken") / "ds"
    shutil.copytree(bundled_build, root, ignore=shutil.ignore_patterns("validation"))
    train, dev = (datasets.dataset_files(root, "examples", s)[0] for s in ("train", "dev"))
    row = pq.read_table(train).slice(3, 1)
    table = pq.read_table(dev)
    pq.write_table(pa.concat_tables([table, row.cast(table.schema)]), dev)
    table = pq.read_table(train)
    classes = table.column("class").to_pylist()
    classes[5] = "SHOUTING"
    pq.write_table(table.set_column(table.schema.get_field_index("class"), table.schema.field("class"),
                                    pa.array(classes, pa.string())), train)
    path = datasets.dataset_files(root, "pairs", "train")[0]
    table = pq.read_table(path)
    labels, befores = table.column("label").to_pylist(), table.column("before").to_pylist()
    readings = table.column("reading").to_pylist()
    negative = labels.index(0)
    positive = next(i for i, label in enumerate(labels) if label == 1 and befores[i] == befores[negative])
    readings[negative] = readings[positive]
    pq.write_table(table.set_column(table.schema.get_field_index("reading"), table.schema.field("reading"),
                                    pa.array(readings, pa.string())), path)
    return root


def failures(report) -> dict[str, str]:
    return {check.description: check.observed for _, check in report.failures()}


def test_checks_across_shards_and_splits_fail(broken: Path) -> None:
    report = validate_directory(broken, render_docs=False)
    failed = failures(report)
    assert set(failed) >= {"ids (key, copy) unique", "class within the 16 semiotic classes",
                           "no negative equal to a positive of the same input (in any class or split)",
                           "the manifest's counts reconcile with the files"}
    assert failed["ids (key, copy) unique"].startswith("2 of ")  # both rows of the duplicated id
    key = pq.read_table(datasets.dataset_files(broken, "examples", "train")[0]).column("key")[3].as_py()
    assert failed["ids (key, copy) unique"].count(f'"key": {key}') == 2
    assert "SHOUTING" in failed["class within the 16 semiotic classes"]


def test_small_chunks_and_many_partitions_give_the_same_results(broken: Path, monkeypatch) -> None:
    default = validate_directory(broken, render_docs=False)
    monkeypatch.setattr(shards, "PARTITION_BYTES", 40_000)  # 2 to 8 key-hash partitions per dataset
    small = validate_directory(broken, render_docs=False, chunk_rows=2000)
    assert outcome(small) == outcome(default)
    assert not default.success


def test_beam_pipeline_gives_the_same_results(broken: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(shards, "PARTITION_BYTES", 60_000)
    default = validate_directory(broken, render_docs=False, chunk_rows=5000)
    on_beam = validate_directory(broken, render_docs=False, chunk_rows=5000, pipeline_args=["--runner=DirectRunner"])
    assert outcome(on_beam) == outcome(default)
    results = broken / "validation"
    assert not [p.name for p in results.iterdir() if p.name.startswith(".")]  # the pipeline's partial removed
    written = json.loads((results / "examples.ids.json").read_text())
    assert written["success"] is False and written["results"][0]["result"]["unexpected_count"] == 2


def test_command_line_runs_the_pipeline(bundled_build: Path, tmp_path: Path) -> None:
    root = tmp_path / "ds"
    shutil.copytree(bundled_build, root, ignore=shutil.ignore_patterns("validation"))
    result = CliRunner().invoke(cli, ["validate", str(root), "--no-docs", "--json", "-q", "--",
                                      "--runner=DirectRunner"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["success"] and report["results"]["examples"]["rows"] > 0
    assert (root / "validation" / "summary.json").exists()


@pytest.mark.slow
def test_portable_runner_gives_the_same_results(broken: Path, portable) -> None:
    """On Beam's portable harness (job service and SDK worker pool as separate processes, the process model
    of Dataflow Runner v2) the shards are validated in the pool's workers, with the same report."""
    portable_args, logs = portable
    default = validate_directory(broken, render_docs=False)
    on_portable = validate_directory(broken, render_docs=False, pipeline_args=portable_args)
    assert outcome(on_portable) == outcome(default)
    assert (logs / "job_service.log").read_text().count("Running job") == 1
