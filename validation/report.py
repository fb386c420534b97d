"""What a validation run found: one CheckResult per expectation, grouped per dataset in a ValidationReport.

The report prints as the `tnforge validate` table and serialises to the JSON written to DIR/validation/.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class CheckResult:
    """One expectation's outcome."""

    frame: str
    expectation: str
    description: str
    success: bool
    observed: str
    informational: bool = False

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass
class DatasetResult:
    """All expectations run for one dataset (or for the manifest)."""

    name: str
    rows: int = 0
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(check.success for check in self.checks)

    @property
    def failed(self) -> int:
        return sum(not check.success for check in self.checks)

    @property
    def success(self) -> bool:
        return self.failed == 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.rows, "passed": self.passed, "failed": self.failed,
                "checks": [check.to_dict() for check in self.checks]}


@dataclass
class ValidationReport:
    """The outcome of validating a dataset directory: per-dataset results, notes, and where docs went."""

    root: Path | str  # a local folder, or a gs:// URI
    results: dict[str, DatasetResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    results_dir: Path | str | None = None
    docs_index: Path | str | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # seconds per dataset, "docs", "start"

    @property
    def success(self) -> bool:
        return all(result.success for result in self.results.values())

    def failures(self) -> list[tuple[str, CheckResult]]:
        """(dataset, check) for every failed expectation."""
        return [(name, check) for name, result in self.results.items() for check in result.checks if not check.success]

    def format_table(self) -> str:
        """A compact table: dataset, rows, expectations passed/failed, then each failure with what was observed."""
        width = max([len("dataset"), *(len(name) for name in self.results)])
        lines = [f"{'dataset':<{width}}  {'rows':>10}  {'passed':>6}  {'failed':>6}"]
        for name, result in self.results.items():
            lines.append(f"{name:<{width}}  {result.rows:>10,}  {result.passed:>6}  {result.failed:>6}")
        failures = self.failures()
        if failures:
            lines.append("")
            lines.append("failed:")
            for _name, check in failures:
                lines.append(f"  {check.frame}: {check.description} [{check.expectation}]")
                lines.append(f"      observed: {check.observed}")
        if self.notes:
            lines.append("")
            lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)

    def verdict(self) -> str:
        """One line: passed or failed (how many expectations), the time taken, where results and docs went."""
        failed = len(self.failures())
        verdict = "passed" if self.success else f"FAILED ({failed} expectation{'s' * (failed != 1)})"
        docs = f", Data Docs at {self.docs_index}" if self.docs_index else ""
        return f"validation {verdict} in {self.seconds:.1f} s; results in {self.results_dir}{docs}"

    def to_json(self) -> str:
        """The report as indented JSON (what `tnforge validate --json` prints)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        return {"root": str(self.root), "success": self.success, "seconds": round(self.seconds, 3),
                "timings": {k: round(v, 3) for k, v in self.timings.items()},
                "notes": self.notes, "results": {name: r.to_dict() for name, r in self.results.items()}}

