"""What `tnforge build --negatives … --validate` prints: input repairs, the negatives phase's progress and
summary, the Data Docs path; and no stray INFO/WARNING lines from libraries, no traceback."""

from __future__ import annotations

import logging
import subprocess
import sys

from tnforge.pipelines.build_job import repairs_line
from tnforge.progress import quiet_library_logs


def test_build_with_negatives_and_validation_reports_everything(tmp_path, bundled_tsv):
    repaired = tmp_path / "windows.tsv"
    repaired.write_bytes(b"\xef\xbb\xbfPLAIN\tHello\t<self>\r\nPUNCT\t.\tsil\r\n<eos>\t<eos>\r\n"
                         b"DATE\t1999\tnineteen ninety nine\r\n<eos>\t<eos>\r\n")
    out = tmp_path / "ds"
    result = subprocess.run(
        [sys.executable, "-m", "tnforge", "build", str(repaired), str(bundled_tsv), "--out", str(out),
         "--negatives", "synthetic,random", "--ratio", "10", "--validate"],
        capture_output=True, text=True, timeout=300, check=False)
    text = result.stdout + result.stderr
    assert result.returncode == 0, text
    assert f"{repaired}: BOM removed; 5 CRLF line ends repaired" in text
    assert "generating synthetic+random negatives at ratio 10.0" in text  # the negatives phase's progress
    assert "counting the pairs written" in text
    assert "negatives: kinds synthetic,random, ratio 10.0" in result.stdout  # … and its summary table
    assert any(line.startswith("train ") for line in result.stdout.splitlines()[-30:])
    docs = out / "validation" / "docs" / "index.html"
    assert "validation passed in" in result.stdout and f"Data Docs at {docs}" in result.stdout
    assert docs.is_file()
    for line in text.splitlines():
        assert not line.startswith(("INFO:", "WARNING:", "DEBUG:", "ERROR:")), line
        assert "Traceback" not in line, text


def test_repairs_line():
    assert repairs_line({"path": "a.tsv", "bom": True, "crlf_lines": 1234}) == \
        "a.tsv: BOM removed; 1,234 CRLF line ends repaired"
    assert repairs_line({"path": "b.tsv", "bom": False, "crlf_lines": 1}) == "b.tsv: 1 CRLF line end repaired"
    assert repairs_line({"path": "c.tsv", "bom": True, "crlf_lines": 0}) == "c.tsv: BOM removed"


def test_quiet_library_logs_raises_and_restores_levels():
    child = logging.getLogger("great_expectations.tnforge_test_child")
    child.setLevel(logging.INFO)  # what great_expectations.data_context.types.base does on import
    parent = logging.getLogger("great_expectations")
    before = parent.level
    with quiet_library_logs():
        assert not child.isEnabledFor(logging.INFO) and child.isEnabledFor(logging.WARNING)
        assert not logging.getLogger("apache_beam.tnforge_test_new").isEnabledFor(logging.INFO)
    assert child.level == logging.INFO and parent.level == before
