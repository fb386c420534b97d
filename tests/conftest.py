"""Test configuration for every folder under tests/: the shared fixtures live in tests/support/."""

from tests.support.fixtures import bundled_build, bundled_tsv, gcs, shared_csv, shared_tsv  # noqa: F401
from tests.support.normalizers import safe_models  # noqa: F401
from tests.support.portable import portable  # noqa: F401
