"""tnforge/readers.py: flavour detection, BOM/CRLF repair, and the reason each bad line is rejected with."""

from __future__ import annotations

import gzip

import pyarrow as pa
import pytest

from tnforge.readers import detect_flavour, read_corpus_file
from tnforge.sources import source_name, source_stem, standard_shard_index
from tnforge.token_blocks import FileReport

TSV_BAD = {
    "wrong_field_count": b"PLAIN\tone\n",
    "empty_class": b"\tone\t<self>\n",
    "unknown_class": b"NOUN\tone\t<self>\n",
    "token_too_long": b"PLAIN\t" + b"x" * 10_000 + b"\t<self>\n",
    "invalid_utf8": b"PLAIN\t\xff\xfeabc\t<self>\n",
}
CSV_BAD = {
    "wrong_field_count": b'1,1,"PLAIN","x"\n',
    "bad_id": b'1,one,"PLAIN","x","x"\n',
    "unknown_class": b'1,1,"NOUN","x","x"\n',
    "invalid_utf8": b'1,1,"PLAIN","\xff\xfe","x"\n',
    "token_id_out_of_order": b'1,5,"PLAIN","x","x"\n',
}
CSV_HEADER = b'"sentence_id","token_id","class","before","after"\n'


def read(path) -> tuple[list[tuple[str, str, str]], list[dict], FileReport]:
    """(class, before, after) of the tokens read, the rejected lines, and the file report."""
    report = FileReport(str(path))
    tokens, rejects = [], []
    for item in read_corpus_file(str(path), report):
        if isinstance(item, pa.Table):
            rejects += item.to_pylist()
        else:
            tokens += zip(item.classes.to_pylist(), item.befores.to_pylist(), item.afters.to_pylist(), strict=True)
    return tokens, rejects, report


def test_flavour_detection():
    assert detect_flavour(CSV_HEADER) == "csv"
    assert detect_flavour(b"\xef\xbb\xbf" + CSV_HEADER.replace(b'"', b"")) == "csv"
    assert detect_flavour(b"PLAIN\tA\t<self>\n") == "tsv"
    assert detect_flavour(b"") == "tsv"


def test_source_names():
    assert source_name("gs://b/x/output-00099-of-00100.gz") == "output-00099-of-00100"
    assert source_stem("data/en_sample.tsv.bz2") == "en_sample"
    assert standard_shard_index("a/output-00042-of-00100.gz") == 42
    assert standard_shard_index("output-00042-of-00050") is None


@pytest.mark.parametrize("reason", sorted(TSV_BAD))
def test_bad_tsv_line_is_rejected_with_its_reason(tmp_path, reason):
    good = b"PLAIN\tA\t<self>\nCARDINAL\t2\ttwo\n<eos>\t<eos>\n"
    path = tmp_path / "bad.tsv"
    path.write_bytes(good + b"PLAIN\tThe\t<self>\n" + TSV_BAD[reason] + b"PUNCT\t.\tsil\n<eos>\t<eos>\n" + good)
    tokens, rejects, report = read(path)
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (4, "in_rejected_sentence"), (5, reason), (6, "in_rejected_sentence")
    ]
    assert all(r["source"] == "bad.tsv" and len(r["raw"]) <= 201 for r in rejects)
    assert report.rejects == {reason: 1, "in_rejected_sentence": 2}
    assert report.records == 7 and len(tokens) == 4


@pytest.mark.parametrize("reason", sorted(CSV_BAD))
def test_bad_csv_record_is_rejected_with_its_reason(tmp_path, reason):
    good = b'0,0,"PLAIN","A","A"\n0,1,"CARDINAL","2","two"\n'
    bad_sentence = b'1,0,"PLAIN","The","The"\n' + CSV_BAD[reason] + b'1,2,"PUNCT",".","."\n'
    path = tmp_path / "bad.csv"
    path.write_bytes(CSV_HEADER + good + bad_sentence + b'2,0,"PLAIN","B","B"\n')
    tokens, rejects, report = read(path)
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (4, "in_rejected_sentence"), (5, reason), (6, "in_rejected_sentence")
    ]
    assert report.flavour == "csv" and report.records == 6
    assert [before for _, before, _ in tokens] == ["A", "2", "B"]
    assert tokens[0] == ("PLAIN", "A", "<self>")  # the CSV's after == before is read as <self>


def test_bom_and_crlf_are_repaired_and_reported(tmp_path):
    path = tmp_path / "windows.tsv"
    path.write_bytes(b"\xef\xbb\xbfPLAIN\tA\t<self>\r\nCARDINAL\t2\ttwo\r\n<eos>\t<eos>\r\n")
    tokens, rejects, report = read(path)
    assert report.bom and report.crlf_lines == 3
    assert tokens == [("PLAIN", "A", "<self>"), ("CARDINAL", "2", "two")]
    assert rejects == [] and report.rejects == {}


def test_missing_final_eos_rejects_the_unterminated_sentence(tmp_path):
    path = tmp_path / "cut.tsv"
    path.write_bytes(b"PLAIN\tA\t<self>\n<eos>\t<eos>\nPLAIN\tB\t<self>\nPUNCT\t.\tsil\n")
    tokens, rejects, report = read(path)
    assert tokens == [("PLAIN", "A", "<self>")]
    assert [(r["line"], r["reason"]) for r in rejects] == [(3, "missing_final_eos"), (4, "missing_final_eos")]
    assert report.rejects == {"missing_final_eos": 2}


def test_empty_and_compressed_files(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    tokens, rejects, report = read(empty)
    assert tokens == [] and report.records == 0
    assert [(r["source"], r["line"], r["reason"], r["raw"]) for r in rejects] == [("empty.tsv", 0, "empty_file", "")]
    packed = tmp_path / "output-00001-of-00100.gz"
    with gzip.open(packed, "wb") as handle:
        handle.write(b"PLAIN\tA\t<self>\n<eos>\t<eos>\n")
    tokens, rejects, _ = read(packed)
    assert tokens == [("PLAIN", "A", "<self>")] and rejects == []
