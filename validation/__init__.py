"""Validate a dataset directory with Great Expectations: `validate_directory` and the report it returns.

Modules: `registry` (dataset → frames → builder and suite), `frames`, `reading`, `runner`, `docs`, `report`.
great_expectations and pandas are imported only when a validation runs.
"""

from tnforge.validation.report import CheckResult, DatasetResult, ValidationReport
from tnforge.validation.runner import validate_directory

__all__ = ["CheckResult", "DatasetResult", "ValidationReport", "validate_directory"]
