"""Aligned text without classes (`before<TAB>after`): reading, class inference, restored multi-word tokens, and
builds of a head slice of the real proteno_en file."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from tests.support.corpus_files import head_sentences
from tests.support.paths import SHARED_DATA
from tnforge.class_inference import ClassInference, fallback_class
from tnforge.datasets import dataset_files, read_dataset
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import run_build
from tnforge.readers import detect_flavour, read_corpus_file
from tnforge.token_blocks import FileReport, TokenBlock

PROTENO = SHARED_DATA / "proteno_en" / "train.tsv"
HEAD_SENTENCES = 300


def read(path: Path, **options) -> tuple[list[tuple[str, str, str]], list[dict], FileReport]:
    """(class, before, after) of the tokens read, the rejected lines, and the file report."""
    report = FileReport(str(path))
    tokens, rejects = [], []
    for item in read_corpus_file(str(path), report, **options):
        if isinstance(item, pa.Table):
            rejects += item.to_pylist()
        else:
            tokens += zip(item.classes.to_pylist(), item.befores.to_pylist(), item.afters.to_pylist(), strict=True)
    return tokens, rejects, report


def grammar_inference(restore: bool = True) -> ClassInference:
    pytest.importorskip("pynini")
    from tnforge.generators.grammar_classes import GrammarClasses

    return ClassInference(GrammarClasses(), restore=restore)


def sentences_of(text: str) -> list[list[tuple[str, str]]]:
    """The (before, after) lines of each sentence of aligned text."""
    return [[tuple(line.split("\t")) for line in chunk.strip("\n").split("\n")]
            for chunk in text.split("<eos>\t<eos>\n") if chunk.strip("\n")]


@pytest.fixture(scope="module")
def proteno_head(tmp_path_factory) -> Path:
    """The first HEAD_SENTENCES sentences of ../shared/data/proteno_en/train.tsv, as a file of their own."""
    if not PROTENO.exists():
        pytest.skip("needs ../shared/data/proteno_en/train.tsv")
    return head_sentences(PROTENO, HEAD_SENTENCES, tmp_path_factory.mktemp("proteno") / "proteno_head.tsv")


@pytest.fixture(scope="module")
def head_build(proteno_head, tmp_path_factory) -> tuple[Path, dict]:
    pytest.importorskip("pynini")
    out = tmp_path_factory.mktemp("proteno_build") / "ds"
    return out, run_build(BuildConfig(inputs=(str(proteno_head),), out=str(out)))


def test_flavour_is_detected_by_field_count():
    assert detect_flavour(b"Brillantaisia\t<self>\nis\t<self>\n.\tsil\n<eos>\t<eos>\n") == "aligned"
    assert detect_flavour(b"PLAIN\tA\t<self>\n<eos>\t<eos>\nPUNCT\t.\tsil\n") == "tsv"
    # One stray two-field line among Google TSV lines does not make it aligned text.
    assert detect_flavour(b"PLAIN\tA\t<self>\nA\t<self>\nPLAIN\tB\t<self>\n<eos>\t<eos>\n") == "tsv"
    assert detect_flavour(b"<eos>\t<eos>\n") == "tsv"


def test_bad_aligned_lines_are_rejected_with_file_line_and_reason(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_bytes(b"A\t<self>\n<eos>\t<eos>\n"  # lines 1-2: good
                     b"The\t<self>\nPLAIN\tcat\t<self>\n.\tsil\n<eos>\t<eos>\n"  # 3-6: a three-field line
                     b"x\t\n<eos>\t<eos>\n"  # 7-8: an empty reading
                     b"B\t<self>\n<eos>\t<eos>\t<eos>\n<eos>\t<eos>\n"  # 9-11: a malformed <eos>
                     b"C\t<self>\n.\tsil\n")  # 12-13: no final <eos>
    tokens, rejects, report = read(path)
    assert report.flavour == "aligned" and report.records == 9
    assert tokens == [("PLAIN", "A", "<self>")]
    assert [(r["source"], r["line"], r["reason"]) for r in rejects] == [
        ("bad.tsv", 3, "in_rejected_sentence"), ("bad.tsv", 4, "wrong_field_count"),
        ("bad.tsv", 5, "in_rejected_sentence"), ("bad.tsv", 7, "empty_after"),
        ("bad.tsv", 9, "in_rejected_sentence"), ("bad.tsv", 10, "malformed_eos"),
        ("bad.tsv", 12, "missing_final_eos"), ("bad.tsv", 13, "missing_final_eos"),
    ]


def test_explicit_flavour_overrides_detection(tmp_path):
    path = tmp_path / "mixed.tsv"
    path.write_bytes(b"PLAIN\tA\t<self>\nB\t<self>\nC\t<self>\n<eos>\t<eos>\n")  # detected as aligned
    _, rejects, report = read(path, flavour="tsv")
    assert report.flavour == "tsv"
    assert Counter(r["reason"] for r in rejects) == {"wrong_field_count": 2, "in_rejected_sentence": 1}


def test_split_pieces_are_restored_where_the_grammar_licenses_the_joined_reading():
    infer = grammar_inference()
    lines = [("On", "<self>"), ("12", "the twelfth"), ("April", "of april"), ("2015", "twenty fifteen"),
             (",", "sil"), ("1990", "nineteen ninety"), ("-", "to"), ("1995", "nineteen ninety five"),
             ("April", "april"), ("10", "tenth"), (",", "sil"), ("2013", "twenty thirteen"), ("(", "sil"),
             ("5", "five"), ("%", "percent"), ("p", "<self>"), (".", "point"), ("258", "two five eight")]
    block = TokenBlock("x", pa.array([0]).to_numpy(), pa.array([0, len(lines)]).to_numpy(),
                       pa.array(range(1, len(lines) + 1), pa.int64()), pa.array([""] * len(lines)),
                       pa.array([b for b, _ in lines]), pa.array([a for _, a in lines]))
    report = FileReport("x")
    out = infer(block, report)
    got = list(zip(out.classes.to_pylist(), out.befores.to_pylist(), out.afters.to_pylist(), strict=True))
    assert got == [
        ("PLAIN", "On", "<self>"), ("DATE", "12 April 2015", "the twelfth of april twenty fifteen"),
        ("PUNCT", ",", "sil"),
        # A range stays three tokens, as Kestrel writes it.
        ("DATE", "1990", "nineteen ninety"), ("PLAIN", "-", "to"), ("DATE", "1995", "nineteen ninety five"),
        ("DATE", "April 10 , 2013", "april tenth twenty thirteen"), ("PUNCT", "(", "sil"),
        ("MEASURE", "5 %", "five percent"),
        ("PLAIN", "p", "<self>"), ("VERBATIM", ".", "point"), ("DIGIT", "258", "two five eight"),
    ]
    assert out.lines.to_pylist() == [1, 2, 5, 6, 7, 8, 9, 13, 14, 16, 17, 18]
    assert report.inference["restored"] == 3 and report.inference["restored_lines"] == 6
    assert report.inference["fallback"] == 1 and report.inference["fallback:VERBATIM"] == 1  # "." read "point"
    assert report.inference["self"] + report.inference["sil"] + report.inference["grammar"] + \
        report.inference["fallback"] == out.num_tokens


def test_fallback_rules_are_deterministic_shapes():
    assert fallback_class("March", "of march") == "DATE"
    assert fallback_class("5", "fifth eighteen ninety five") == "DATE"
    assert fallback_class("21", "twenty first") == "ORDINAL"
    assert fallback_class("0", "o sil nine six one") == "TELEPHONE"
    assert fallback_class("No", "number") == "PLAIN"
    assert fallback_class("²", "squared") == "VERBATIM"


def test_inference_agrees_with_gold_classes_of_the_bundled_sample(bundled_tsv, tmp_path):
    """Strip the class column of the bundled sample (Kestrel's tokens and gold classes) and infer the classes
    again (nothing to restore: its tokens are already Kestrel's)."""
    infer = grammar_inference(restore=False)
    gold, _, _ = read(bundled_tsv)
    aligned = tmp_path / "sample_aligned.tsv"
    aligned.write_text("".join(line.split("\t", 1)[1] if line.count("\t") == 2 else line
                               for line in bundled_tsv.read_text(encoding="utf-8").splitlines(keepends=True)),
                       encoding="utf-8")
    inferred, rejects, report = read(aligned, infer=infer)
    assert report.flavour == "aligned" and not rejects
    assert [b for _, b, _ in inferred] == [b for _, b, _ in gold]
    pairs = [(g, i) for (g, _, after), (i, _, _) in zip(gold, inferred, strict=True) if after not in ("<self>", "sil")]
    agree = sum(g == i for g, i in pairs) / len(pairs)
    assert len(pairs) > 300 and agree >= 0.90, Counter((g, i) for g, i in pairs if g != i).most_common(5)
    assert all(i == "PUNCT" for (_, _, a), (i, _, _) in zip(gold, inferred, strict=True) if a == "sil")


def test_head_of_proteno_builds_every_dataset_with_its_sentences_exact(head_build, proteno_head):
    out, manifest = head_build
    assert manifest["accounting"]["reconciles"]
    section = manifest["class_inference"]
    assert section["inferred"] and section["sources"] == ["proteno_head.tsv"]
    assert manifest["inputs"][0]["flavour"] == "aligned"
    assert section["restored"] > 20 and manifest["accounting"]["joined"] == section["restored_lines"]
    assert section["fallback"] < 0.1 * section["grammar"]
    for name in ("examples", "sentences", "positive_pairs"):
        assert sum(manifest["datasets"][name].values()) > 0
    expected = sentences_of(proteno_head.read_text(encoding="utf-8"))
    sentences = read_dataset(str(out), "sentences").to_pylist()
    assert len(sentences) == HEAD_SENTENCES == len(expected)
    for row in sentences:
        lines = expected[row["sentence_id"]]
        assert row["written"] == " ".join(b for b, _ in lines)
        assert row["spoken"] == " ".join(b if a == "<self>" else a for b, a in lines if a != "sil")
        assert " ".join(row["tokens"]) == row["written"] and len(row["classes"]) == row["n_tokens"]


def test_head_of_proteno_gets_the_classes_its_tokens_have(head_build):
    out, _ = head_build
    examples = read_dataset(str(out), "examples", columns=["class", "before", "after", "copy"]).to_pylist()
    classes = {(r["before"], r["after"]): r["class"] for r in examples if r["copy"] == 0}
    assert classes[(".", "sil")] == "PUNCT" and classes[("genus", "<self>")] == "PLAIN"
    assert classes[("2007", "two thousand seven")] == "DATE"
    restored = {k: c for k, c in classes.items() if " " in k[0] and k[1] not in ("<self>", "sil")}
    assert restored and all(c in ("DATE", "MEASURE", "MONEY", "DECIMAL", "TIME", "FRACTION") for c in restored.values())
    dates = [k for k, c in restored.items() if c == "DATE"]
    assert any(k[1].startswith("the ") and " of " in k[1] for k in dates), dates[:5]


def test_proteno_builds_are_deterministic(head_build, proteno_head, tmp_path):
    out, _ = head_build
    again = tmp_path / "again"
    run_build(BuildConfig(inputs=(str(proteno_head),), out=str(again)))

    def digests(root: Path) -> dict[str, str]:
        return {str(Path(f).relative_to(root)): hashlib.sha256(Path(f).read_bytes()).hexdigest()
                for name in ("examples", "sentences", "positive_pairs", "rejects")
                for f in dataset_files(str(root), name)}

    assert digests(out) == digests(again) and len(digests(out)) >= 10


def test_the_build_summary_says_classes_are_inferred_and_names_rejects(tmp_path):
    from click.testing import CliRunner

    from tnforge.cli import cli

    path = tmp_path / "aligned.tsv"
    units = "one two three four five six seven eight nine".split()
    good = "".join(f"In\t<self>\n{1990 + i}\tnineteen ninety {units[i - 1]}\n.\tsil\n<eos>\t<eos>\n" for i in range(1, 10))
    path.write_text(good + "The\t<self>\nPLAIN\tcat\t<self>\n<eos>\t<eos>\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", str(path), "--out", str(tmp_path / "ds"), "--input-format", "aligned"])
    assert result.exit_code == 0, result.output
    assert "classes INFERRED (aligned text without classes: aligned.tsv)" in result.output
    assert "rejects: in_rejected_sentence 1, wrong_field_count 1" in result.output
    assert "[reconciles]" in result.output


def test_validation_passes_and_says_the_classes_are_inferred(head_build):
    pytest.importorskip("great_expectations")
    from tnforge.validation import validate_directory

    out, _ = head_build
    report = validate_directory(str(out), render_docs=False)
    assert report.success, report.format_table()
    assert any(note.startswith("classes are INFERRED, not gold (aligned text: proteno_head.tsv)")
               for note in report.notes)


def test_no_restore_tokens_keeps_the_files_tokens(proteno_head, tmp_path):
    pytest.importorskip("pynini")
    out = tmp_path / "kept"
    manifest = run_build(BuildConfig(inputs=(str(proteno_head),), out=str(out), restore_tokens=False))
    assert manifest["class_inference"]["restored"] == 0 and manifest["accounting"]["joined"] == 0
    assert manifest["accounting"]["reconciles"]
    tokens = read_dataset(str(out), "sentences", columns=["tokens"]).column("tokens").to_pylist()
    lines = sum(len(s) for s in sentences_of(proteno_head.read_text(encoding="utf-8")))
    assert sum(len(t) for t in tokens) == lines and not any(" " in token for s in tokens for token in s)
