"""A run-time lexicon: written → reading overrides for a loaded normalizer (a product name, a house
abbreviation, a code read one way).

The file is UTF-8 TSV, one entry a line: `written<TAB>reading` or `written<TAB>reading<TAB>CLASS`; blank lines
and lines starting with `#` are skipped. `written` is one token as `tnforge.tokenizer` cuts raw text (an entry
the tokenizer would split is refused: it could never match); `reading` is the spoken words the way the corpus
writes them ("i triple e", "three kilograms"). With the covering grammar, every entry's reading must be one the
grammar licenses for its class (any covered class when none is given): an entry it does not license is refused
at load in one line naming file and line, unless forced — forced entries are read all the same and listed as
"lexicon, forced" in `Normalizer.explain`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tnforge.schemas.classes import COVERED, NAMES

Judge = Callable[[Sequence[tuple[str, str, str | None]]], list[bool | None]]


@dataclass(frozen=True)
class Entry:
    """One lexicon entry: its reading, the class it was given (or licensed in), and whether it was forced."""

    reading: str
    cls: str | None
    forced: bool
    line: int


def read_lexicon(path: str | os.PathLike, judge: Judge | None, force: bool = False) -> dict[str, Entry]:
    """The entries of a lexicon file by written form. ValueError (one line: file, line, reason) for a line
    that is not `written<TAB>reading[<TAB>CLASS]`, an unknown class, a written form of several tokens, a
    written form given twice, or — with the grammar's `judge` and without `force` — a reading the grammar
    licenses for none of the entry's classes. Without a judge nothing can be checked: every entry is forced."""
    from tnforge.tokenizer import tokenize

    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such lexicon file") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{name}: not UTF-8 text ({error.reason})") from None
    rows: list[tuple[int, str, str, str | None]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not fields[0].strip() or not fields[1].strip():
            raise ValueError(f"{name}, line {number}: expected written<TAB>reading[<TAB>CLASS], got {line!r}")
        written, reading = fields[0].strip(), " ".join(fields[1].split())
        cls = fields[2].strip() if len(fields) == 3 and fields[2].strip() else None
        if cls is not None and cls not in NAMES:
            raise ValueError(f"{name}, line {number}: unknown class {cls!r} (one of {', '.join(NAMES)})")
        if tokenize(written) != [written]:
            raise ValueError(f"{name}, line {number}: {written!r} is not one token (the tokenizer reads it as "
                             f"{tokenize(written)}): give each token its own entry")
        if written in seen:
            raise ValueError(f"{name}, line {number}: {written!r} is already given on line {seen[written]}")
        seen[written] = number
        rows.append((number, written, reading, cls))
    return {written: _checked(name, number, written, reading, cls, judge, force)
            for number, written, reading, cls in rows}


def _checked(name: str, number: int, written: str, reading: str, cls: str | None, judge: Judge | None,
             force: bool) -> Entry:
    """An entry, with the class the grammar licenses its reading in (the one given, else the first covered)."""
    if judge is None:
        return Entry(reading, cls, True, number)
    classes = [cls] if cls is not None else sorted(COVERED)
    verdicts = judge([(written, reading, c) for c in classes])
    licensed = [c for c, verdict in zip(classes, verdicts, strict=True) if verdict]
    if licensed:
        return Entry(reading, licensed[0], False, number)
    if force:
        return Entry(reading, cls, True, number)
    where = f"class {cls}" if cls is not None else "any class it covers"
    raise ValueError(f"{name}, line {number}: the covering grammar does not license {reading!r} for {written!r} in "
                     f"{where} (force_lexicon=True / --force-lexicon reads it anyway)")
