"""Training pairs for number-grammar induction: `number<TAB>verbalization`, one a line, checked as read."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


class InductionError(ValueError):
    """A pair file or an example the induction cannot use: one line naming the file, the line and why."""


@dataclass(frozen=True)
class Example:
    """One (number, verbalization) pair and where it came from."""

    value: int
    text: str
    where: str  # "FILE:LINE"


def parse_pairs(lines: list[str], name: str) -> list[Example]:
    """Examples from TSV lines (blank lines and `#` comments skipped); a bad line is an InductionError."""
    examples: list[Example] = []
    seen: dict[int, str] = {}
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{name}:{number}"
        fields = line.split("\t")
        if len(fields) != 2:
            raise InductionError(f"{where}: expected number<TAB>verbalization, found {len(fields)} field(s)")
        digits, text = fields[0].strip(), " ".join(fields[1].split())
        if not digits.isascii() or not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
            raise InductionError(f"{where}: {digits!r} is not a number written in digits without leading zeros")
        if not text:
            raise InductionError(f"{where}: the verbalization of {digits} is empty")
        value = int(digits)
        if value in seen:
            if seen[value] != text:
                raise InductionError(f"{where}: {digits} is verbalized twice, differently ({seen[value]!r} and {text!r})")
            continue
        seen[value] = text
        examples.append(Example(value, text, where))
    if not examples:
        raise InductionError(f"{name}: no examples")
    return examples


def read_pairs(path: str | Path) -> list[Example]:
    """Examples from a pair file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InductionError(f"{path}: cannot read the examples ({error.strerror or error})") from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InductionError(f"{path}:{line}: not UTF-8 text") from error
    return parse_pairs(text.splitlines(), str(path))


def examples_hash(examples: list[Example]) -> str:
    """A SHA-256 of the examples (sorted by value), for the grammar's manifest."""
    digest = hashlib.sha256()
    for example in sorted(examples, key=lambda e: e.value):
        digest.update(f"{example.value}\t{example.text}\n".encode())
    return digest.hexdigest()
