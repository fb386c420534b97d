"""Google TSV shards (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>` between sentences) → TokenBlocks.

Lines are checked with vectorised Arrow compute over blocks cut at sentence ends.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

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


def _last_eos_end(data: bytes, searched: int) -> int | None:
    """Offset just after the last complete `<eos>` line of data (lines before `searched` were searched)."""
    limit = len(data)
    floor = max(0, searched - 64)
    while True:
        index = data.rfind(b"\n<eos>\t<eos>", floor, limit)
        if index < 0:
            return None
        end = data.find(b"\n", index + 1)
        if end >= 0 and data[index + 1:end].rstrip(b"\r") in (b"<eos>\t<eos>", b"<eos>\t<eos>\t<eos>"):
            return end + 1
        limit = index


def read_tsv(handle: io.BufferedIOBase, source: str, report: FileReport, max_chars: int = 4096) -> Iterator:
    """TokenBlocks and reject tables of a Google TSV shard (`CLASS<TAB>before<TAB>after`, `<eos><TAB><eos>`);
    rows name the file `source`."""
    assembler = SentenceAssembler(source, report, max_chars)
    next_line = 1
    saw_any = False
    for block, final in chunks(handle, report, _last_eos_end):
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
        is_eos = pc.match_substring_regex(text, r"^<eos>(\t<eos>){1,2}$").to_numpy(zero_copy_only=False)
        starts_eos = pc.starts_with(text, EOS).to_numpy(zero_copy_only=False)
        blank = pc.equal(pc.utf8_trim_whitespace(text), "").to_numpy(zero_copy_only=False)
        codes = np.zeros(n, dtype=np.int8)
        codes[parts != 3] = CODE["wrong_field_count"]
        codes[blank] = CODE["blank_line"]
        codes[starts_eos & ~is_eos] = CODE["malformed_eos"]
        codes[invalid] = CODE["invalid_utf8"]
        good_shape = (codes == 0) & ~is_eos
        cls, before, after = split_fields(text, good_shape, 3)
        assembler.check_tokens(cls, before, after, codes)
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


