"""`tnforge --debug` (or TNFORGE_DEBUG=1) shows the traceback behind any command's refusal, click's too;
without it a refusal is one line and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tnforge.cli import cli


def _refusals(tmp: Path) -> dict[str, list[str]]:
    """Refusals of several kinds: a library error turned into a click error, a tnforge error, a bad option."""
    return {
        "train on junk": ["train", "seq2seq", "--data", str(tmp / "loose"), "--out", str(tmp / "o"), "--device", "cpu"],
        "decode an empty run": ["decode", "--model", str(tmp / "empty"), "--data", str(tmp / "loose"), "--out",
                                str(tmp / "o"), "--device", "cpu"],
        "validate an empty folder": ["validate", str(tmp / "empty")],
        "a missing model": ["normalize", "--model", str(tmp / "missing"), "a"],
    }


@pytest.mark.parametrize("refusal", list(_refusals(Path("T"))))
def test_debug_shows_the_traceback_of_any_refusal(tmp_path: Path, refusal: str) -> None:
    pytest.importorskip("torch")
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "junk.parquet").write_bytes(b"not Parquet\n")
    (tmp_path / "empty").mkdir()
    args = _refusals(tmp_path)[refusal]
    quiet = CliRunner().invoke(cli, args)
    lines = [line for line in quiet.output.splitlines() if line.strip()]
    assert quiet.exit_code in (1, 2) and "Traceback" not in quiet.output, quiet.output
    assert lines[-1].startswith("Error: ") and (quiet.exit_code == 2 or len(lines) == 1), lines
    for debug_args, env in ((["--debug"], None), ([], {"TNFORGE_DEBUG": "1"})):
        loud = CliRunner().invoke(cli, [*debug_args, *args], env=env)
        assert loud.exit_code == quiet.exit_code
        assert "Traceback (most recent call last)" in loud.output, loud.output
        assert loud.output.rstrip().endswith(lines[-1]), loud.output
