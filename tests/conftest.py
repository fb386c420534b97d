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
