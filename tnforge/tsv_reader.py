"""Tab-separated corpus files → TokenBlocks: Google TSV shards (`CLASS<TAB>before<TAB>after`) and aligned text
without classes (`before<TAB>after`), both with `<eos><TAB><eos>` between sentences.

Lines are checked with vectorised Arrow compute over blocks cut at sentence ends. Aligned text's blocks carry
empty classes: `tnforge.class_inference` fills them in.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tnforge.token_blocks import CODE, EOS, FileReport, SentenceAssembler, chunks, reject_table, split_fields


def _decode_lines(block: bytes) -> tuple[list[str], list[int]]:
    """Lines of a block, and the indexes of lines that are not valid UTF-8 (given as '')."""
    try:
        return block.decode("utf-8").split("\n"), []
    except UnicodeDecodeError:
        lines, invalid = [], []
        for i, raw in enumerate(block.split(b"\n")):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(raw.decode("utf-8", "replace"))
                invalid.append(i)
        return lines, invalid


def _last_eos_end(data: bytes, searched: int, eos_lines: tuple[bytes, ...] = (b"<eos>\t<eos>", b"<eos>\t<eos>\t<eos>")
                  ) -> int | None:
    """Offset just after the last complete `<eos>` line of data (lines before `searched` were searched)."""
    limit = len(data)
    floor = max(0, searched - 64)
    while True:
        index = data.rfind(b"\n<eos>\t<eos>", floor, limit)
        if index < 0:
            return None
        end = data.find(b"\n", index + 1)
        if end >= 0 and data[index + 1:end].rstrip(b"\r") in eos_lines:
            return end + 1
        limit = index


#: Fields of a token line in each tab-separated flavour.
FIELDS = {"tsv": 3, "aligned": 2}


def read_aligned(handle: io.BufferedIOBase, source: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """TokenBlocks (classes empty) and reject tables of aligned text (`before<TAB>after`, `<eos><TAB><eos>`)."""
    return read_tsv(handle, source, report, max_chars, fields=FIELDS["aligned"])


def read_tsv(handle: io.BufferedIOBase, source: str, report: FileReport, max_chars: int = 4096,
             fields: int = FIELDS["tsv"]) -> Iterator:
    """TokenBlocks and reject tables of a Google TSV shard (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>`),
    or with `fields=2` of aligned text without classes (classes left empty); rows name the file `source`."""
    eos_line = r"^<eos>(\t<eos>){1,2}$" if fields == 3 else r"^<eos>\t<eos>$"
    assembler = SentenceAssembler(source, report, max_chars)
    next_line = 1
    saw_any = False
    cut = _last_eos_end if fields == 3 else partial(_last_eos_end, eos_lines=(b"<eos>\t<eos>",))
    for block, final in chunks(handle, report, cut):
        if block.endswith(b"\n"):
            block = block[:-1]
        texts, invalid = _decode_lines(block)
        saw_any = True
        n = len(texts)
        lines = np.arange(next_line, next_line + n, dtype=np.int64)
        next_line += n
        raw = pa.array(texts, pa.string())
        ends_cr = pc.ends_with(raw, "\r")
        report.crlf_lines += pc.sum(ends_cr).as_py() or 0
        text = pc.if_else(ends_cr, pc.utf8_slice_codeunits(raw, 0, -1), raw)
        parts = pc.list_value_length(pc.split_pattern(text, "\t")).to_numpy()
        is_eos = pc.match_substring_regex(text, eos_line).to_numpy(zero_copy_only=False)
        starts_eos = pc.starts_with(text, EOS).to_numpy(zero_copy_only=False)
        blank = pc.equal(pc.utf8_trim_whitespace(text), "").to_numpy(zero_copy_only=False)
        codes = np.zeros(n, dtype=np.int8)
        codes[parts != fields] = CODE["wrong_field_count"]
        codes[blank] = CODE["blank_line"]
        codes[starts_eos & ~is_eos] = CODE["malformed_eos"]
        codes[invalid] = CODE["invalid_utf8"]
        good_shape = (codes == 0) & ~is_eos
        if fields == 3:
            cls, before, after = split_fields(text, good_shape, 3)
        else:
            before, after = split_fields(text, good_shape, 2)
            cls = pa.array(np.full(n, "", dtype=object), pa.string())
        assembler.check_tokens(cls if fields == 3 else None, before, after, codes)
        sentence_of = np.cumsum(is_eos) - is_eos
        token = ~is_eos
        report.records += int(token.sum())
        # Sentence numbers of token lines, counting only sentences that have tokens.
        has_tokens = np.bincount(sentence_of[token], minlength=int(is_eos.sum()) + 1) > 0
        renumber = np.cumsum(has_tokens) - 1
        n_sentences = int(has_tokens.sum())
        unterminated = None
        if final and not is_eos[-1] and token.any():
            unterminated = int(renumber[sentence_of[-1]])
        index = np.nonzero(token)[0]
        take = pa.array(index)
        yield from assembler.assemble(
            renumber[sentence_of[index]], n_sentences, codes[index], lines[index], cls.take(take),
            before.take(take), after.take(take), raw.take(take), unterminated=unterminated,
        )
    report.sentences = assembler.next_sentence
    if not saw_any:
        report.rejects["empty_file"] += 1
        yield reject_table(assembler.source, np.array([0]), ["empty_file"], [""])


