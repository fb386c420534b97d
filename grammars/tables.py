"""The grammars' data tables: small tab-separated files under `grammars/en/data/`, reviewed by hand.

Each non-blank line that does not start with `# ` (hash, space) is one row; columns are separated by tabs. Tables are read
from a directory that tests (and users with their own reviewed lexicons) may replace.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

#: Where the shipped tables live.
DEFAULT_TABLE_DIR = Path(__file__).resolve().parent / "en" / "data"

#: Every table and its (minimum, maximum) number of columns.
TABLE_COLUMNS: dict[str, tuple[int, int]] = {
    "numbers": (3, 4),
    "digit_words": (2, 2),
    "months": (3, 3),
    "weekdays": (2, 2),
    "units": (3, 3),
    "si_prefixes": (2, 2),
    "si_units": (3, 3),
    "currencies": (5, 5),
    "money_scales": (2, 2),
    "symbols": (2, 2),
    "plain": (2, 2),
}


class TableError(ValueError):
    """A table file is missing or has a malformed line (the message names file and line)."""


@dataclass(frozen=True)
class Tables:
    """All tables of one table directory, as tuples of rows, with a digest of their bytes."""

    directory: Path
    rows: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    digest: str = ""

    def __getitem__(self, name: str) -> tuple[tuple[str, ...], ...]:
        return self.rows[name]


def read_table(path: Path, columns: tuple[int, int]) -> tuple[tuple[str, ...], ...]:
    """Rows of one table file, checking the number of columns of every line."""
    rows = []
    low, high = columns
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise TableError(f"{path}: table file not found") from error
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("# "):
            continue
        parts = tuple(line.split("\t"))
        if not low <= len(parts) <= high or any(not p for p in parts[:low]):
            raise TableError(f"{path}:{number}: expected {low}-{high} non-empty tab-separated columns, got {line!r}")
        rows.append(parts)
    return tuple(rows)


def load_tables(directory: str | os.PathLike | None = None) -> Tables:
    """Read every table of a directory (the shipped one by default)."""
    root = Path(directory) if directory is not None else DEFAULT_TABLE_DIR
    hasher = hashlib.sha256()
    rows = {}
    for name, columns in sorted(TABLE_COLUMNS.items()):
        path = root / f"{name}.tsv"
        rows[name] = read_table(path, columns)
        hasher.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return Tables(directory=root, rows=rows, digest=hasher.hexdigest())
