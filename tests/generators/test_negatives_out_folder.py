"""`tnforge negatives DIR --out OUT`: the pairs of a dataset written into a folder of their own, DIR only read
(a dataset shared with others, and the adversarial loop's pairs folder); the same bytes as in DIR itself."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tnforge.cli import cli

OPTIONS = ("--kinds", "synthetic,random", "--ratio", "3", "--no-grammar")


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def tnforge(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_pairs_written_beside_a_dataset_that_is_only_read(bundled_build, tmp_path):
    source = tmp_path / "shared"
    shutil.copytree(bundled_build, source)
    before = digests(source)
    out = tmp_path / "pairs"
    tnforge("negatives", str(source), *OPTIONS, "--out", str(out))
    assert digests(source) == before  # the dataset is only read

    in_place = tmp_path / "in-place"
    shutil.copytree(bundled_build, in_place)
    tnforge("negatives", str(in_place), *OPTIONS)
    for name in ("pairs", "vocab_pairs"):
        written = digests(out / name)
        assert written and written == digests(in_place / name)
    manifest = json.loads((out / "manifest.json").read_text())
    built = json.loads((source / "manifest.json").read_text())
    assert manifest["pairs_of"] == str(source) and manifest["config"] == built["config"]
    assert "datasets" not in manifest and "accounting" not in manifest  # they count files kept in the dataset
    assert manifest["negatives"] == json.loads((in_place / "manifest.json").read_text())["negatives"]
    assert not (out / "examples").exists() and not (out / ".tnforge-cache").exists()
    validated = CliRunner().invoke(cli, ["validate", str(out), "--no-docs"])
    assert validated.exit_code == 0 and "validation passed" in validated.output, validated.output

    tnforge("train", "voc-de", "--data", str(out), "--out", str(tmp_path / "voc"), "--epochs", "1", "--threads", "1",
            "--device", "cpu", "--no-progress")
    assert (tmp_path / "voc" / "best.pt").is_file()


def test_a_dataset_as_the_pairs_folder_is_refused_in_one_line(bundled_build, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(bundled_build, other)
    before = digests(other)
    result = CliRunner().invoke(cli, ["negatives", str(bundled_build), *OPTIONS, "--out", str(other)])
    assert result.exit_code == 1
    assert f"{other}: holds a dataset of its own (examples/)" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert digests(other) == before
