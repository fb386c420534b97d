"""Shared test fixtures: where the real sample data lives, and a small corpus writer."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_tsv() -> Path:
    path = SHARED_DATA / "en_sample.tsv"
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


@pytest.fixture(scope="session")
def shared_csv() -> Path:
    path = SHARED_DATA / "en_sample.csv"
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of the sample bundled with tnforge (no ../shared/data needed), with synthetic and random negatives."""
    from tnforge.cli import cli

    out = tmp_path_factory.mktemp("bundled") / "ds"
    cli.main(args=["build", "--out", str(out), "--negatives", "synthetic,random", "--ratio", "10"],
             prog_name="tnforge", standalone_mode=False)
    return out
