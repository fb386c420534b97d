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


def head_sentences(source: Path, sentences: int, path: Path) -> Path:
    """The first `sentences` sentences of an aligned or TSV corpus file (each ending `<eos>`), as a file of their
    own at `path`."""
    lines, n = [], 0
    with source.open(encoding="utf-8") as handle:
        for line in handle:
            lines.append(line)
            n += line == "<eos>\t<eos>\n"
            if n == sentences:
                break
    path.write_text("".join(lines), encoding="utf-8")
    return path


def tsv_to_csv(tsv: Path, csv_path: Path) -> Path:
    """Write a Google TSV corpus as a Kaggle CSV file (unchanged tokens: after == before)."""
    import csv

    with csv_path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC)
        writer.writerow(["sentence_id", "token_id", "class", "before", "after"])
        sentence, token = 0, 0
        for line in tsv.read_text(encoding="utf-8").splitlines():
            if line.startswith("<eos>"):
                sentence, token = sentence + 1, 0
                continue
            cls, before, after = line.split("\t")
            writer.writerow([sentence, token, cls, before, before if after in ("<self>", "sil") else after])
            token += 1
    return csv_path
