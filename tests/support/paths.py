"""Where things are, for every test: the repository, the project's test data and the shared data beside it."""

from __future__ import annotations

from pathlib import Path

#: The repository root (the folder holding pyproject.toml).
REPO = Path(__file__).resolve().parents[2]
#: Test data kept in the project (sources and licences: tests/data/README.md).
TEST_DATA = REPO / "tests" / "data"
#: The shared data beside the checkout (../shared/data; CI has it, tests skip without it).
SHARED_DATA = REPO.parent / "shared" / "data"
