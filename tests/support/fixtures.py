"""Fixtures shared by every test folder: the bundled sample, the shared sample beside the checkout (skipped when
absent), a bundled build and the GCS emulator. `tests/conftest.py` makes them visible everywhere."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from tests.support.paths import SHARED_DATA


def _shared(name: str) -> Path:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"needs ../shared/data/{name} (the shared sample beside the checkout)")
    return path


@pytest.fixture(scope="session")
def bundled_tsv() -> Path:
    """The sample corpus shipped inside the package (present in every checkout)."""
    return Path(str(resources.files("tnforge") / "data" / "sample.tsv"))


@pytest.fixture(scope="session")
def shared_tsv() -> Path:
    return _shared("en_sample.tsv")


@pytest.fixture(scope="session")
def shared_csv() -> Path:
    return _shared("en_sample.csv")


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of the sample bundled with tnforge (no ../shared/data needed), with synthetic and random negatives."""
    from tnforge.cli import cli

    out = tmp_path_factory.mktemp("bundled") / "ds"
    cli.main(args=["build", "--out", str(out), "--negatives", "synthetic,random", "--ratio", "10"],
             prog_name="tnforge", standalone_mode=False)
    return out


@pytest.fixture(scope="session")
def gcs():
    """A GCS API emulator on a loopback port for the whole session (STORAGE_EMULATOR_HOST set)."""
    from tests.support.gcs_emulator import GcsEmulator

    with GcsEmulator() as emulator:
        yield emulator
