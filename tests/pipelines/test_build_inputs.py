"""Inputs of `tnforge build`: a distinct source per file, each file read once, useless inputs refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pytest
from click.testing import CliRunner

from tests.support.corpus_files import tsv_to_csv, write_corpus
from tnforge.cli import cli
from tnforge.datasets import read_dataset
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import BuildError, run_build
from tnforge.sources import name_inputs

SAMPLE_RECORDS = 4_422  # token lines of the bundled sample


def build(inputs, out: Path, **options) -> dict:
    return run_build(BuildConfig(inputs=tuple(str(p) for p in inputs), out=str(out), **options))


def assert_distinct_keys(out: Path) -> None:
    for name in ("examples", "sentences"):
        table = read_dataset(out, name)
        keys = table.filter(pc.equal(table.column("copy"), 0)) if name == "examples" else table
        assert len(set(keys.column("key").to_pylist())) == keys.num_rows, name


def test_source_names_are_distinct_and_keep_single_file_names():
    def named(*paths: str) -> list[tuple[str, str]]:
        return [(f.source, f.key_name) for f in name_inputs([(p, 1) for p in paths])]

    assert named("corpus/en_sample.tsv.gz") == [("en_sample.tsv", "en_sample")]
    assert named("/d/a.tsv", "/d/b.tsv") == [("a.tsv", "a"), ("b.tsv", "b")]
    assert named("/c/a/data.tsv", "/c/b/data.tsv") == [("a/data.tsv", "a/data"), ("b/data.tsv", "b/data")]
    assert named("/d/x.tsv", "/d/x.csv") == [("x.tsv", "x.tsv"), ("x.csv", "x.csv")]
    assert named("/d/x.tsv", "/d/x.tsv.gz") == [("x.tsv", "x"), ("x.tsv.gz", "x.tsv.gz")]
    assert named("gs://b/en/output-00001-of-00100.gz") == [("output-00001-of-00100", "output-00001-of-00100")]
    assert named("gs://b/x/a.tsv", "/local/a.tsv") == [("gs://b/x/a.tsv", "gs://b/x/a"), ("/local/a.tsv", "/local/a")]


def test_same_name_in_two_folders_gives_two_sources(tmp_path, bundled_tsv):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(bundled_tsv, tmp_path / folder / "data.tsv")
    manifest = build([tmp_path / "a" / "data.tsv", tmp_path / "b" / "data.tsv"], tmp_path / "out")
    assert [f["source"] for f in manifest["inputs"]] == ["a/data.tsv", "b/data.tsv"]
    assert manifest["accounting"]["input_records"] == 2 * SAMPLE_RECORDS and manifest["accounting"]["reconciles"]
    assert set(read_dataset(tmp_path / "out", "examples").column("source").to_pylist()) == {"a/data.tsv", "b/data.tsv"}
    assert_distinct_keys(tmp_path / "out")


def test_tsv_and_csv_of_one_name_are_two_sources(tmp_path, bundled_tsv):
    shutil.copy(bundled_tsv, tmp_path / "x.tsv")
    tsv_to_csv(bundled_tsv, tmp_path / "x.csv")
    manifest = build([tmp_path / "x.tsv", tmp_path / "x.csv"], tmp_path / "out")
    assert sorted((f["source"], f["flavour"]) for f in manifest["inputs"]) == [("x.csv", "csv"), ("x.tsv", "tsv")]
    assert manifest["accounting"]["input_records"] == 2 * SAMPLE_RECORDS
    assert set(read_dataset(tmp_path / "out", "sentences").column("source").to_pylist()) == {"x.tsv", "x.csv"}
    assert_distinct_keys(tmp_path / "out")


def test_equal_content_under_two_names_is_two_sources(tmp_path, bundled_tsv):
    shutil.copy(bundled_tsv, tmp_path / "one.tsv")
    shutil.copy(bundled_tsv, tmp_path / "two.tsv")
    manifest = build([tmp_path / "one.tsv", tmp_path / "two.tsv"], tmp_path / "out")
    assert [f["source"] for f in manifest["inputs"]] == ["one.tsv", "two.tsv"]
    assert manifest["inputs"][0]["sha256"] == manifest["inputs"][1]["sha256"]
    assert manifest["accounting"]["input_records"] == 2 * SAMPLE_RECORDS
    assert_distinct_keys(tmp_path / "out")


def test_a_file_named_twice_is_read_once(tmp_path, bundled_tsv, capsys):
    shutil.copy(bundled_tsv, tmp_path / "s.tsv")
    named = [tmp_path / "s.tsv", str(tmp_path / "*.tsv"), tmp_path / "." / "s.tsv"]
    manifest = build(named, tmp_path / "out")
    assert "s.tsv: named 3 times; read once" in capsys.readouterr().err
    assert manifest["repeated_inputs"] == {str(tmp_path / "s.tsv"): 3}
    assert len(manifest["inputs"]) == 1 and manifest["inputs"][0]["source"] == "s.tsv"
    assert manifest["accounting"]["input_records"] == SAMPLE_RECORDS and manifest["accounting"]["reconciles"]
    assert_distinct_keys(tmp_path / "out")


def png_file(tmp_path: Path) -> Path:
    """A real PNG image (one of matplotlib's toolbar icons, else a minimal one)."""
    target = tmp_path / "pic.png"
    try:
        import matplotlib

        shutil.copy(Path(matplotlib.get_data_path()) / "images" / "hand.png", target)
    except ImportError:
        target.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
    return target


def test_a_non_text_file_is_rejected_whole(tmp_path, bundled_tsv):
    manifest = build([png_file(tmp_path), shutil.copy(bundled_tsv, tmp_path / "s.tsv")], tmp_path / "out")
    assert manifest["rejects_by_reason"] == {"not_text": 1}
    rejects = read_dataset(tmp_path / "out", "rejects").to_pylist()
    assert [(r["source"], r["line"], r["reason"]) for r in rejects] == [("pic.png", 0, "not_text")]
    assert manifest["accounting"]["input_records"] == SAMPLE_RECORDS and manifest["accounting"]["reconciles"]


@pytest.mark.parametrize("useless", ["png", "eos_only", "empty", "csv_header"])
def test_inputs_without_a_valid_record_fail_in_one_line(tmp_path, useless):
    path = png_file(tmp_path) if useless == "png" else tmp_path / f"{useless}.tsv"
    if useless != "png":
        path.write_bytes({"eos_only": b"<eos>\t<eos>\n" * 3, "empty": b"",
                          "csv_header": b'"sentence_id","token_id","class","before","after"\n'}[useless])
    reason = {"png": "not_text", "eos_only": "no_tokens", "empty": "empty_file", "csv_header": "no_tokens"}[useless]
    result = CliRunner().invoke(cli, ["build", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("[tnforge")]
    assert lines == [f"Error: no valid record in 1 input file(s); {tmp_path / 'out'} left incomplete "
                     "(no manifest; --allow-empty builds it anyway)", f"rejects: {reason} 1"]
    assert not (tmp_path / "out" / "manifest.json").exists()
    allowed = CliRunner().invoke(cli, ["build", str(path), "--out", str(tmp_path / "ok"), "--allow-empty"])
    assert allowed.exit_code == 0, allowed.output
    manifest = json.loads((tmp_path / "ok" / "manifest.json").read_text())
    assert manifest["rejects_by_reason"] == {reason: 1} and manifest["config"]["allow_empty"]
    assert manifest["accounting"]["input_records"] == 0 and manifest["accounting"]["reconciles"]


def test_all_excluded_by_the_standard_split_fails(tmp_path):
    shard = write_corpus(tmp_path / "output-00097-of-00100", [[("PLAIN", "A", "<self>")]])
    with pytest.raises(BuildError, match="all 1 valid records are excluded by the standard split"):
        build([shard], tmp_path / "out")
