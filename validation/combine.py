"""Results of parts of a dataset (a chunk of a shard, a key partition) and how they add up.

A `Partial` holds what validating some part found: per frame, one outcome per expectation (counts of
unexpected values, the first offending values), per dataset the counts the aggregate frames are built
from, each file's schema rows, notes. `merge` adds two partials; it is associative and commutative
(examples are kept in the order of their tags: file, chunk, row), so any runner, worker count or merge
order gives the same result as validating the shards one after another.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: Most offending values kept per expectation (as in a single GX run with partial_unexpected_count).
SHOWN = 3
#: Most distinct offending values counted per expectation.
COUNTED = 20
_COUNT_FIELDS = ("element_count", "unexpected_count", "missing_count")

Tag = tuple[Any, ...]


def _is_map(result: dict[str, Any]) -> bool:
    return "unexpected_count" in result and "observed_value" not in result


def _raised(item: dict[str, Any]) -> bool:
    info = item.get("exception_info") or {}
    entries = [info] if "raised_exception" in info else list(info.values())
    return any(isinstance(e, dict) and e.get("raised_exception") for e in entries)


def outcome(item: dict[str, Any], tag: Tag) -> dict[str, Any]:
    """An expectation result (GX's JSON dict) of one part, with its offending values tagged by `tag`."""
    result = dict(item.get("result") or {})
    found = {"tag": tag, "config": item["expectation_config"], "success": bool(item["success"]),
             "exception_info": item.get("exception_info"), "raised": _raised(item), "meta": item.get("meta") or {}}
    if _is_map(result):
        found["counts"] = {k: int(result.get(k) or 0) for k in _COUNT_FIELDS}
        found["examples"] = [((*tag, i), v) for i, v in enumerate(result.get("partial_unexpected_list") or [])]
        found["indexed"] = [((*tag, i), v) for i, v in enumerate(result.get("partial_unexpected_index_list") or [])]
        found["values"] = {json.dumps(c["value"], sort_keys=True, default=str): [c["value"], c["count"]]
                           for c in result.get("partial_unexpected_counts") or []}
        found["index_names"] = result.get("unexpected_index_column_names")
    else:
        found["result"] = result
    return found


def merge_outcomes(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two parts' outcomes of the same expectation, as one."""
    first, second = (a, b) if a["tag"] <= b["tag"] else (b, a)
    merged = dict(first)
    merged["success"] = first["success"] and second["success"]
    if second["raised"] and not first["raised"]:
        merged["raised"], merged["exception_info"] = True, second["exception_info"]
    if "counts" in first and "counts" in second:
        merged["counts"] = {k: first["counts"][k] + second["counts"][k] for k in _COUNT_FIELDS}
        merged["examples"] = sorted(first["examples"] + second["examples"], key=lambda e: e[0])[:SHOWN]
        merged["indexed"] = sorted(first["indexed"] + second["indexed"], key=lambda e: e[0])[:SHOWN]
        values = {k: list(v) for k, v in first["values"].items()}
        for key, (value, count) in second["values"].items():
            values.setdefault(key, [value, 0])[1] += count
        merged["values"] = dict(sorted(values.items(), key=lambda kv: (-kv[1][1], kv[0]))[:COUNTED])
    elif not first["success"] or second["success"]:
        merged["result"] = first.get("result", {})
    else:
        merged["result"] = second.get("result", {})
    return merged


def to_gx(found: dict[str, Any]) -> dict[str, Any]:
    """An outcome as GX's ExpectationValidationResult JSON dict."""
    item = {"success": found["success"], "expectation_config": found["config"], "meta": found["meta"],
            "exception_info": found["exception_info"]}
    if "counts" not in found:
        item["result"] = found.get("result", {})
        return item
    counts = found["counts"]
    total, unexpected, missing = counts["element_count"], counts["unexpected_count"], counts["missing_count"]
    present = total - missing
    result: dict[str, Any] = {
        **counts,
        "unexpected_percent": 100.0 * unexpected / present if present else None,
        "partial_unexpected_list": [v for _, v in found["examples"]],
        "missing_percent": 100.0 * missing / total if total else None,
        "unexpected_percent_total": 100.0 * unexpected / total if total else None,
        "unexpected_percent_nonmissing": 100.0 * unexpected / present if present else None,
        "partial_unexpected_counts": [{"value": v, "count": c} for v, c in found["values"].values()],
    }
    if found.get("index_names"):
        result["unexpected_index_column_names"] = found["index_names"]
        result["partial_unexpected_index_list"] = [v for _, v in found["indexed"]]
    item["result"] = result
    return item


@dataclass
class Partial:
    """What validating some part of a dataset directory found; `merge` adds another part's."""

    outcomes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # frame → one per expectation
    templates: dict[str, tuple[Tag, dict[str, Any]]] = field(default_factory=dict)  # frame → GX suite result
    stats: dict[str, Counter] = field(default_factory=dict)  # name → Counter(tuple key → count)
    lows: dict[str, dict[tuple, Any]] = field(default_factory=dict)  # name → key → minimum
    highs: dict[str, dict[tuple, Any]] = field(default_factory=dict)  # name → key → maximum
    schema_rows: dict[str, list[tuple]] = field(default_factory=dict)  # dataset → (file, kind, expected, found)
    rows: Counter = field(default_factory=Counter)  # dataset → rows read and checked
    notes: list[tuple[Tag, str]] = field(default_factory=list)
    errors: dict[str, tuple[Tag, str]] = field(default_factory=dict)  # frame → first error building it

    def add_result(self, frame: str, suite_result: dict[str, Any], tag: Tag) -> None:
        """Add a GX suite validation result (JSON dict) of one part of a frame."""
        found = [outcome(item, tag) for item in suite_result["results"]]
        template = {k: v for k, v in suite_result.items() if k != "results"}
        self.merge(Partial(outcomes={frame: found}, templates={frame: (tag, template)}))

    def count(self, name: str, counts: dict[tuple, int]) -> None:
        self.stats.setdefault(name, Counter()).update({k: int(v) for k, v in counts.items() if v})

    def extremes(self, name: str, lows: dict[tuple, Any], highs: dict[tuple, Any]) -> None:
        self.merge(Partial(lows={name: lows}, highs={name: highs}))

    def note(self, tag: Tag, text: str) -> None:
        self.notes.append((tag, text))

    def error(self, frame: str, tag: Tag, text: str) -> None:
        if frame not in self.errors or tag < self.errors[frame][0]:
            self.errors[frame] = (tag, text)

    def merge(self, other: Partial) -> Partial:
        """Add `other` into this partial (returned)."""
        for frame, found in other.outcomes.items():
            mine = self.outcomes.get(frame)
            self.outcomes[frame] = found if mine is None else [merge_outcomes(a, b) for a, b in zip(mine, found,
                                                                                                   strict=True)]
        for frame, (tag, template) in other.templates.items():
            if frame not in self.templates or tag < self.templates[frame][0]:
                self.templates[frame] = (tag, template)
        for name, counts in other.stats.items():
            self.stats.setdefault(name, Counter()).update(counts)
        for target, source, pick in ((self.lows, other.lows, min), (self.highs, other.highs, max)):
            for name, values in source.items():
                mine = target.setdefault(name, {})
                for key, value in values.items():
                    mine[key] = value if key not in mine else pick(mine[key], value)
        for dataset, rows in other.schema_rows.items():
            self.schema_rows[dataset] = sorted(self.schema_rows.get(dataset, []) + rows)
        self.rows.update(other.rows)
        self.notes = sorted(self.notes + other.notes)
        for frame, (tag, text) in other.errors.items():
            self.error(frame, tag, text)
        return self

    def suite_result(self, frame: str) -> dict[str, Any] | None:
        """The GX suite validation result (JSON dict) of a frame over every part merged."""
        if frame not in self.outcomes:
            return None
        results = [to_gx(found) for found in self.outcomes[frame]]
        passed = sum(item["success"] for item in results)
        template = dict(self.templates[frame][1])
        template.update(results=results, success=passed == len(results), statistics={
            "evaluated_expectations": len(results), "successful_expectations": passed,
            "unsuccessful_expectations": len(results) - passed,
            "success_percent": 100.0 * passed / len(results) if results else None})
        return template
