"""Data Docs that read offline: remote styles, scripts and images stripped, and the tnforge index page."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def report(bundled_build: Path, tmp_path_factory: pytest.TempPathFactory):
    """Validate the bundled sample's build and render its Data Docs."""
    from tnforge.validation import validate_directory

    return validate_directory(bundled_build, docs_dir=tmp_path_factory.mktemp("docs"))


def test_data_docs_read_offline(report) -> None:
    index = report.docs_index
    assert index is not None and index.exists()
    pages = list(index.parent.rglob("*.html"))
    assert len(pages) > 10  # the index, and a validation and a suite page per frame
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert external_references(html) == [], page
        assert "<style>" in html
    text = index.read_text(encoding="utf-8")
    assert "class within the 16 semiotic classes" in text and "validations/examples/rows/" in text


def test_index_links_every_frame_page(report) -> None:
    text = report.docs_index.read_text(encoding="utf-8")
    for result in report.results.values():
        for check in result.checks:
            dataset, kind = check.frame.split(".")
            assert f"href='validations/{dataset}/{kind}/" in text
    assert "passed" in text and "sentences shared between splits" in text
