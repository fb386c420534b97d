"""The `written~spoken` test files under `grammars/en/tests/`: one per class, must-license and must-reject lines.

A line `written~spoken` must be licensed, `!written~spoken` must be rejected; `# ` starts a comment. The text
is split at the last `~`, so written tokens may contain one.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

CASES_DIR = Path(__file__).resolve().parent / "en" / "tests"


class Case(NamedTuple):
    cls: str
    written: str
    spoken: str
    licensed: bool
    line: int


def load_cases(path: Path) -> list[Case]:
    """The cases of one file; the class is the file name upper-cased (date.txt → DATE)."""
    cls = path.stem.upper()
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("# "):
            continue
        licensed = not line.startswith("!")
        body = line if licensed else line[1:]
        written, sep, spoken = body.rpartition("~")
        if not sep or not written or not spoken:
            raise ValueError(f"{path}:{number}: expected written~spoken or !written~spoken, got {line!r}")
        cases.append(Case(cls, written, spoken, licensed, number))
    return cases


def all_cases(directory: Path = CASES_DIR) -> list[Case]:
    """Every case of every class file."""
    return [case for path in sorted(directory.glob("*.txt")) for case in load_cases(path)]
