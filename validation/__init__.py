"""Validate a dataset directory (local or gs://) with Great Expectations, shard by shard in bounded memory:
`validate_directory` and the report it returns.

Modules: `registry` (dataset → frames → stage, builder and suite), `reading`, `shards` (per-shard work),
`groups` (per key-hash partition), `stats`, `combine` (adding partial results), `frames`, `engine` (GX),
`runner`, `beam_job` (as a Beam pipeline), `docs`, `report`. great_expectations, pandas and Beam are
imported only when a validation runs.
"""

from tnforge.validation.report import CheckResult, DatasetResult, ValidationReport
from tnforge.validation.runner import validate_directory

__all__ = ["CheckResult", "DatasetResult", "ValidationReport", "validate_directory"]
