"""tnforge/manifest.py: reading, atomic writing and section updates of DIR/manifest.json."""

from __future__ import annotations

import json

import pytest

from tnforge.manifest import (
    build_config,
    has_manifest,
    manifest_path,
    read_manifest,
    update_section,
    write_manifest,
)


def test_path_local_and_remote(tmp_path):
    assert manifest_path(tmp_path) == str(tmp_path / "manifest.json")
    assert manifest_path("gs://bucket/ds/") == "gs://bucket/ds/manifest.json"


def test_missing_manifest(tmp_path):
    assert not has_manifest(tmp_path)
    assert read_manifest(tmp_path, missing_ok=True) is None
    with pytest.raises(FileNotFoundError, match="no manifest"):
        read_manifest(tmp_path)
    assert build_config(tmp_path) == {}


def test_invalid_json_names_the_file(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"manifest\.json: not valid JSON"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match=r"manifest\.json: not a JSON object"):
        read_manifest(tmp_path)


def test_write_is_atomic_and_readable(tmp_path):
    path = write_manifest(tmp_path, {"config": {"shards": 2}, "note": "café"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]  # no temporary file left
    raw = (tmp_path / "manifest.json").read_text(encoding="utf-8")
    assert raw.endswith("}\n") and "café" in raw
    assert path == manifest_path(tmp_path)
    assert read_manifest(tmp_path) == {"config": {"shards": 2}, "note": "café"}
    assert build_config(tmp_path) == {"shards": 2}


def test_update_section_keeps_the_other_sections(tmp_path):
    write_manifest(tmp_path, {"config": {"seed": 1}, "negatives": {"old": True}})
    manifest = update_section(tmp_path, "negatives", {"ratio": 3.0})
    assert manifest == {"config": {"seed": 1}, "negatives": {"ratio": 3.0}}
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert update_section(tmp_path / "fresh", "validation", {"ok": True}) == {"validation": {"ok": True}}
