"""Half-done never looks done: a dataset directory without a complete manifest (a build killed before its last
write), or of an older layout, is refused in one line by every command that reads one; build names its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.manifest import (
    LAYOUT,
    MANIFEST,
    SCRATCH,
    IncompleteBuild,
    LayoutMismatch,
    check_input,
    require_complete,
)


def _copy(build: Path, target: Path) -> Path:
    shutil.copytree(build, target, ignore=shutil.ignore_patterns("validation"))
    return target


def _no_manifest(root: Path) -> None:
    (root / MANIFEST).unlink()


def _truncated(root: Path) -> None:  # a manifest cut off mid-write
    raw = (root / MANIFEST).read_bytes()
    (root / MANIFEST).write_bytes(raw[: len(raw) // 2])


def _unmarked(root: Path) -> None:  # parses, but the build's final write never happened
    manifest = json.loads((root / MANIFEST).read_text())
    del manifest["complete"]
    (root / MANIFEST).write_text(json.dumps(manifest))


def _layout_1(root: Path) -> None:  # as written by the tnforge before layout 2: no layout, no marker
    manifest = json.loads((root / MANIFEST).read_text())
    del manifest["layout"], manifest["complete"]
    (root / MANIFEST).write_text(json.dumps(manifest))


def _commands(root: Path, model: Path, out: Path) -> dict[str, list[str]]:
    """Every command that reads a dataset directory, with the options it needs (`--data` first)."""
    data, run = ["--data", str(root)], ["--model", str(model)]
    return {
        "negatives": ["negatives", str(root)],
        "validate": ["validate", str(root), "--no-docs"],
        "train seq2seq": ["train", "seq2seq", *data, "--out", str(out)],
        "train seq-de": ["train", "seq-de", *data, "--out", str(out)],
        "train voc-de": ["train", "voc-de", *data, "--out", str(out)],
        "decode": ["decode", *data, *run, "--out", str(out / "hyps.parquet")],
        "evaluate": ["evaluate", *data, *run],
        "compare": ["compare", *data, *run, "--report", str(out)],
        "sweep-lambda": ["sweep-lambda", *data, *run, "--seq-de", str(model), "--out", str(out)],
        "loop": ["loop", *data, *run, "--out", str(out)],
    }


def _refusals(root: Path, tmp_path: Path) -> dict[str, tuple[int, list[str]]]:
    model = tmp_path / "model.pt"
    model.write_bytes(b"not read: the dataset is refused first")
    runner = CliRunner()
    results = {}
    for name, args in _commands(root, model, tmp_path / "run").items():
        result = runner.invoke(cli, args)
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), \
            f"{name}: {result.exception!r}"
        results[name] = (result.exit_code, result.output.strip().splitlines())
    return results


@pytest.mark.parametrize("damage", [_no_manifest, _truncated, _unmarked])
def test_every_command_refuses_an_incomplete_build(bundled_build: Path, tmp_path: Path, damage) -> None:
    root = _copy(bundled_build, tmp_path / "killed")
    damage(root)
    expected = [f"Error: {root} is an incomplete build — rebuild it with --overwrite"]
    for name, (code, lines) in _refusals(root, tmp_path).items():
        assert (code, lines) == (1, expected), name
    with pytest.raises(IncompleteBuild):
        require_complete(root)


def test_every_command_refuses_an_older_layout(bundled_build: Path, tmp_path: Path) -> None:
    root = _copy(bundled_build, tmp_path / "old")
    _layout_1(root)
    expected = [f"Error: {root} has dataset layout 1; this tnforge reads layout {LAYOUT}: rebuild it with "
                "`tnforge build … --overwrite`"]
    for name, (code, lines) in _refusals(root, tmp_path).items():
        assert (code, lines) == (1, expected), name
    with pytest.raises(LayoutMismatch, match="layout 1"):
        check_input(root)


def test_a_complete_build_and_plain_parquet_inputs_pass(bundled_build: Path) -> None:
    manifest = require_complete(bundled_build)
    assert manifest["layout"] == LAYOUT and manifest["complete"] is True
    assert "negatives" in manifest  # the negatives step's section update kept the marker
    check_input(bundled_build)
    examples = bundled_build / "examples" / "dev"
    check_input(examples)  # a folder of examples Parquet files is no dataset directory
    check_input(next(examples.glob("*.parquet")))
    result = CliRunner().invoke(cli, ["validate", str(bundled_build), "--only", "rejects,manifest", "--no-docs"])
    assert result.exit_code == 0, result.output


def test_build_names_its_own_incomplete_directory(bundled_build: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    killed = _copy(bundled_build, tmp_path / "killed")
    _no_manifest(killed)
    scratch_only = tmp_path / "scratch"
    (scratch_only / SCRATCH).mkdir(parents=True)  # killed before any dataset file was written
    for root in (killed, scratch_only):
        result = runner.invoke(cli, ["build", "--out", str(root)])
        assert result.exit_code == 1
        assert result.output.strip().splitlines() == [
            f"Error: {root} holds an incomplete build; use --overwrite to replace it"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    result = runner.invoke(cli, ["build", "--out", str(other)])
    assert result.exit_code == 1 and "directory is not empty" in result.output
    result = runner.invoke(cli, ["build", "--out", str(killed), "--overwrite"])
    assert result.exit_code == 0, result.output
    assert require_complete(killed)["complete"] is True
    assert not (killed / SCRATCH).exists()  # scratch removed once the build ends
