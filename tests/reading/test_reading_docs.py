"""The Python examples run as written: every Python block of `docs/python.md` and the README, in a folder whose
`runs/` holds a real normalizer, model run and tagger run (`tests/support/normalizers.py`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support.paths import REPO

PAGES = (REPO / "docs" / "python.md", REPO / "README.md")


def _blocks() -> list[str]:
    return [block for page in PAGES
            for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)]


def test_the_pages_have_examples():
    blocks = _blocks()
    assert len(blocks) >= 6 and all("from tnforge import Normalizer" in block for block in blocks)


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_each_python_example_runs_as_written(index, safe_models, tmp_path):
    run, tagger, normalizer = safe_models
    (tmp_path / "runs").mkdir()
    for name, target in (("s2s", run), ("tagger", tagger), ("normalizer", normalizer)):
        os.symlink(target, tmp_path / "runs" / name)
    block = _blocks()[index]
    done = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "print(" not in block or done.stdout.strip()
