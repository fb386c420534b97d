"""The validation registry: every dataset has frames with builders and suites, and every suite builds."""

from __future__ import annotations

import pytest

from tnforge import schemas
from tnforge.schemas.suites import StandardSplit, SuiteParams
from tnforge.validation import registry

#: Parameters under which every frame applies and every suite has its optional expectations.
FULL = SuiteParams(split="standard", trivial_fraction=0.1, reported_trivial_share=0.1,
                   source_trivial_share={"dev": 0.9, "test": 0.9}, measure_min_count=20, cardinal_target=300,
                   standard=StandardSplit("output-00099-of-00100", 100, 2000), negative_ratio=2.0,
                   negative_kinds=("synthetic", "random"))
FRAMES = [frame for entry in registry.DATASETS.values() for frame in entry.frames]


def test_every_dataset_and_the_manifest_are_registered_in_schema_order() -> None:
    assert list(registry.DATASETS) == [*schemas.SCHEMAS, "manifest"]


@pytest.mark.parametrize("name", list(registry.DATASETS))
def test_each_dataset_has_frames_named_after_it(name: str) -> None:
    entry = registry.DATASETS[name]
    assert entry.frames
    assert all(frame.name.startswith(f"{name}.") for frame in entry.frames)
    if name in schemas.SCHEMAS:
        assert [f.name for f in entry.frames[:2]] == [f"{name}.schema", f"{name}.rows"]
        assert set(entry.columns or ()) <= set(schemas.SCHEMAS[name].names)
        rows = entry.frames[1]
        assert rows.index and set(rows.index) <= set(schemas.SCHEMAS[name].names)


def test_frame_names_are_unique() -> None:
    names = [frame.name for frame in FRAMES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("frame", FRAMES, ids=lambda frame: frame.name)
def test_every_suite_builds(frame: registry.Frame) -> None:
    """With default parameters where the frame applies by default, and with full parameters always."""
    defaults = SuiteParams()
    if frame.applies(defaults):
        suite = frame.suite(defaults)
        assert suite.name == frame.name
    assert frame.applies(FULL)
    suite = frame.suite(FULL)
    assert suite.name == frame.name and suite.expectations
    assert all(e.description for e in suite.expectations)


def test_conditional_frames() -> None:
    by_name = {frame.name: frame for frame in FRAMES}
    assert not by_name["examples.standard_split"].applies(SuiteParams())
    assert not by_name["sentences.leakage"].applies(SuiteParams(split="none"))
    assert by_name["sentences.leakage"].applies(SuiteParams(split="hash"))
    assert by_name["pairs.ratios"].suite(SuiteParams(negative_ratio="all")).expectations == []


def test_index_columns_name_an_offending_row() -> None:
    by_name = {frame.name: frame for frame in FRAMES}
    rows = by_name["examples.rows"]
    assert rows.index_columns(["key", "line", "split", "before"]) == ["split", "line"]
    compact = by_name["pairs.ratios"]
    assert compact.index_columns(["split", "ratio"]) == ["split", "ratio"]
