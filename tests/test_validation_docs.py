"""Data Docs that read offline: remote styles, scripts and images stripped, and the tnforge index page."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from tnforge import datasets, schemas
from tnforge.validation.docs import external_references, make_offline

PAGE = """<html><head><link rel="stylesheet" href="https://cdn.example.org/bootstrap.css">
<script src="https://cdn.example.org/jquery.js"></script><script>var inline = 1;</script></head>
<body><img src="https://cdn.example.org/logo.png"><a href="https://greatexpectations.io">GX</a>
<a href="validations/x.html">local</a></body></html>"""


def test_make_offline_strips_remote_references() -> None:
    assert len(external_references(PAGE)) == 4
    html = make_offline(PAGE)
    assert external_references(html) == []
    assert "<script" not in html and "<style>" in html and "href=\"validations/x.html\"" in html
    assert html.index("<style>") < html.index("</head>")
    assert make_offline(html) == html  # once offline, left alone


def test_make_offline_without_a_head() -> None:
    html = make_offline("<p>results</p>")
    assert html.startswith("<!-- tnforge: offline --><style>") and html.endswith("<p>results</p>")


def test_rendered_docs_read_offline(tmp_path: Path) -> None:
    """Validate a small rejects dataset with Data Docs: every page offline, the index links each frame."""
    from tnforge.validation import validate_directory

    rows = {"key": [1, 2], "source": ["a.tsv", "a.tsv"], "line": [3, 0], "reason": ["bad class", "empty file"],
            "raw": ["x\ty", ""]}
    datasets.write_sharded(pa.table(rows), datasets.dataset_path(tmp_path, "rejects"), schemas.REJECTS)
    report = validate_directory(tmp_path, docs_dir=tmp_path / "docs")
    assert report.success, report.format_table()
    index = report.docs_index
    assert index == (tmp_path / "docs" / "index.html").resolve()
    pages = list(index.parent.rglob("*.html"))
    assert len(pages) > 3  # the index, and a validation and a suite page per frame
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert external_references(html) == [], page
        assert "<style>" in html
    text = index.read_text(encoding="utf-8")
    assert "validations/rejects/schema/" in text and "validations/rejects/rows/" in text
    assert "no manifest.json" in text and "passed" in text
