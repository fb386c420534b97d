"""One ephemeral Great Expectations context per process: validates frames (a chunk, a partition or an
aggregate table) without keeping them, then stores the combined results and renders Data Docs from them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tnforge.schemas.suites import SuiteParams

if TYPE_CHECKING:
    import pandas as pd

    from tnforge.validation.registry import Frame


def import_gx() -> Any:
    """great_expectations, imported with its usage statistics off and its loggers set up once."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations as gx
    import great_expectations.data_context.types.base  # noqa: F401 - sets its logger to INFO on import

    return gx


class Engine:
    """The process's GX context, with one dataframe asset, suite and batch definition per frame, made once."""

    SITE = "tnforge"

    def __init__(self, params: SuiteParams) -> None:
        from great_expectations.data_context.types.base import ProgressBarsConfig
        from great_expectations.execution_engine import pandas_execution_engine

        self.gx = import_gx()
        # GX hashes every batch's whole dataframe into a batch marker (a fingerprint nothing here reads): one
        # more pass over each chunk's strings. Off, for every batch of this process.
        pandas_execution_engine.HASH_THRESHOLD = 0
        self.params = params
        self.context = self.gx.get_context(mode="ephemeral")
        self.context.variables.progress_bars = ProgressBarsConfig(globally=False)
        self._drop_default_site()
        self.source = self.context.data_sources.add_pandas("tnforge")
        self._frames: dict[str, tuple[Any, Any]] = {}  # frame name → (batch definition, suite)

    def _drop_default_site(self) -> None:
        """Remove the ephemeral context's own docs site and the empty temporary folder it made for it."""
        sites = dict(self.context.variables.data_docs_sites or {})
        for name, config in list(sites.items()):
            folder = (config.get("store_backend") or {}).get("base_directory")
            if folder and Path(folder).is_dir() and not any(Path(folder).iterdir()):
                shutil.rmtree(folder, ignore_errors=True)
            sites.pop(name)
        self.context.variables.data_docs_sites = sites

    def _prepared(self, frame: Frame) -> tuple[Any, Any]:
        if frame.name not in self._frames:
            asset = self.source.add_dataframe_asset(name=frame.name)
            batch = asset.add_batch_definition_whole_dataframe(frame.name)
            suite = self.context.suites.add(frame.suite(self.params))
            self._frames[frame.name] = (batch, suite)
        return self._frames[frame.name]

    def has_expectations(self, frame: Frame) -> bool:
        return bool(self._prepared(frame)[1].expectations)

    def validate(self, frame: Frame, data: pd.DataFrame, shown: int) -> dict[str, Any]:
        """Run a frame's suite on some data; GX's suite validation result as a JSON dict (nothing stored)."""
        batch_definition, suite = self._prepared(frame)
        index = frame.index_columns(list(data.columns))
        result_format: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": shown}
        if index:
            result_format["unexpected_index_column_names"] = index
        batch = batch_definition.get_batch(batch_parameters={"dataframe": data})
        return batch.validate(suite, result_format=result_format).to_json_dict()

    def store(self, frame: str, result: dict[str, Any], run_time: Any) -> None:
        """Keep a frame's combined result in the context's validation results store (for the Data Docs)."""
        from great_expectations.core.expectation_validation_result import (
            ExpectationSuiteValidationResultSchema,
        )
        from great_expectations.core.run_identifier import RunIdentifier
        from great_expectations.data_context.types.resource_identifiers import (
            ExpectationSuiteIdentifier,
            ValidationResultIdentifier,
        )

        loaded = ExpectationSuiteValidationResultSchema().load(result)
        run_id = RunIdentifier(run_name=frame, run_time=run_time)
        loaded.meta["run_id"] = run_id
        loaded.meta["validation_time"] = run_time
        key = ValidationResultIdentifier(expectation_suite_identifier=ExpectationSuiteIdentifier(name=frame),
                                         run_id=run_id, batch_identifier=f"tnforge-{frame}")
        self.context.validation_results_store.set(key, loaded)

    def build_docs(self, folder: Path) -> None:
        """Render the Data Docs of every stored result into a local folder."""
        self.context.add_data_docs_site(site_name=self.SITE, site_config={
            "class_name": "SiteBuilder",
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(folder)},
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        })
        self.context.build_data_docs(site_names=[self.SITE])
