"""Writing small crafted corpora for tests."""

from __future__ import annotations

from pathlib import Path


def write_corpus(path: Path, sentences: list[list[tuple[str, str, str]]], eos: bool = True) -> Path:
    """Write sentences of (class, before, after) lines as a Google TSV file."""
    lines = []
    for sentence in sentences:
        lines += ["\t".join(token) for token in sentence]
        lines.append("<eos>\t<eos>")
    if not eos:
        lines.pop()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
