"""A model family added from one folder and its registration, nothing in tnforge edited: the toy family in
tests/support/toy_family, brought in with TNFORGE_PLUGINS, trains through the engine, is listed by
`tnforge train --help`, and decodes and evaluates through `--model` like the built-in families."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.support.paths import REPO  # noqa: E402

TOY = REPO / "tests" / "support" / "toy_family"


def tnforge(*args: str, plugins: str = str(TOY)) -> subprocess.CompletedProcess:
    env = {**os.environ, "TNFORGE_PLUGINS": plugins}
    return subprocess.run([sys.executable, "-m", "tnforge", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def test_a_plugin_family_trains_is_listed_and_decodes_and_evaluates(bundled_build: Path, tmp_path: Path) -> None:
    listing = tnforge("train", "--help")
    assert listing.returncode == 0, listing.stderr
    assert "toy" in listing.stdout and "A toy GRU encoder-decoder" in listing.stdout
    options = tnforge("train", "toy", "--help")
    assert "--hidden" in options.stdout and "--embedding" in options.stdout and "--max-minutes" in options.stdout

    run = tmp_path / "toy"
    trained = tnforge("train", "toy", "--data", str(bundled_build), "--out", str(run), "--epochs", "1",
                      "--batch-size", "64", "--hidden", "24", "--threads", "1", "--no-progress", "--device", "cpu")
    assert trained.returncode == 0, trained.stderr
    assert "best dev" in trained.stdout
    record = json.loads((run / "run.json").read_text())
    assert record["format"] == "tnforge-toy" and record["config"]["model"] == {"embedding": 16, "hidden": 24}

    out = tmp_path / "predictions"
    decoded = tnforge("decode", "--model", str(run), "--data", str(bundled_build), "--split", "dev",
                      "--out", str(out), "--device", "cpu")
    assert decoded.returncode == 0, decoded.stderr
    evaluated = tnforge("evaluate", "--model", str(run), "--data", str(bundled_build), "--split", "dev",
                        "--device", "cpu")
    assert evaluated.returncode == 0, evaluated.stderr
    assert "accuracy" in evaluated.stdout.lower()

    without = subprocess.run([sys.executable, "-m", "tnforge", "evaluate", "--model", str(run), "--data",
                              str(bundled_build), "--split", "dev"], capture_output=True, text=True,
                             env={k: v for k, v in os.environ.items() if k != "TNFORGE_PLUGINS"})
    assert without.returncode != 0
    assert "'tnforge-toy' checkpoint, which this tnforge does not know" in without.stderr
    assert "Traceback" not in without.stderr


def test_a_plugin_that_cannot_be_imported_is_one_line(tmp_path: Path) -> None:
    missing = tnforge("train", "--help", plugins=str(tmp_path / "nowhere"))
    assert missing.returncode != 0
    assert missing.stderr.strip().splitlines()[-1].endswith(f"{tmp_path / 'nowhere'}: no such file or folder")
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('half written')\n")
    failed = tnforge("train", "--help", plugins=str(broken))
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert f"cannot import {broken}: RuntimeError: half written" in failed.stderr
