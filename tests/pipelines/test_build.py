"""End-to-end tests of `tnforge build` on real and crafted corpora."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support.corpus_files import write_corpus
from tnforge import schemas
from tnforge.cli import cli
from tnforge.datasets import dataset_files, read_dataset
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import BuildError, run_build
from tnforge.windows import window_input

COMPARE = ["key", "split", "sentence_id", "token_index", "copy", "class", "before", "after", "trivial", "input"]


#: The paper's absolute up-sampling targets: no cap on the copies' share of train, none per token.
ABSOLUTE = {"max_copy_share": 1.0, "max_copies_per_token": 0}


def build(inputs, out: Path, **options) -> dict:
    workers = options.pop("workers", None)
    return run_build(BuildConfig(inputs=tuple(str(p) for p in inputs), out=str(out), **options), workers=workers)


@pytest.fixture(scope="module")
def shared_build(tmp_path_factory, shared_tsv) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("shared") / "ds"
    return out, build([shared_tsv], out)


@pytest.fixture(scope="module")
def bundled_build(tmp_path_factory, bundled_tsv) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("bundled") / "ds"
    return out, build([bundled_tsv], out)


#: Exact counts of each sample: records read, and (train, dev, test) sentences of the hash split.
EXACT = {"bundled_build": (4_422, (358, 22, 20)), "shared_build": (45_997, None)}


@pytest.mark.parametrize("sample", sorted(EXACT))
def test_exact_counts(request, sample):
    out, manifest = request.getfixturevalue(sample)
    records, sentences = EXACT[sample]
    assert manifest["accounting"]["input_records"] == records
    assert manifest["accounting"]["reconciles"]
    assert manifest["grammar_language"] == "en"  # the covering grammar's language (class inference)
    if sentences is not None:
        assert tuple(manifest["splits"][s]["sentences"] for s in schemas.SPLITS) == sentences
    for name in ("examples", "sentences", "positive_pairs"):
        for split in schemas.SPLITS:
            assert read_dataset(out, name, split).num_rows == manifest["datasets"][name][split] > 0
    assert read_dataset(out, "rejects").num_rows == manifest["datasets"]["rejects"] == manifest["accounting"]["rejected"]
    assert not (out / ".tnforge-cache").exists()  # the scratch folder goes once the build is done


def test_shared_sample_builds_all_datasets(shared_build):
    out, _ = shared_build  # the counts: test_exact_counts
    for name in ("examples", "sentences", "positive_pairs"):
        for split in schemas.SPLITS:
            assert read_dataset(out, name, split).schema.equals(schemas.SCHEMAS[name], check_metadata=False)
    assert (out / "rejects" / "part-00000-of-00001.parquet").exists()
    meta = pq.read_schema(dataset_files(out, "examples", "train")[0]).metadata
    assert meta[schemas.META_VERSION] == b"1" and meta[schemas.META_DATASET] == b"examples"


def test_examples_carry_windows_and_provenance(shared_build, shared_tsv):
    out, _ = shared_build
    dev = read_dataset(out, "examples", "dev").to_pylist()
    lines = shared_tsv.read_text(encoding="utf-8").split("\n")
    for row in dev[:500]:
        cls, before, after = lines[row["line"] - 1].split("\t")
        assert (row["class"], row["before"]) == (cls, before)
        assert row["after"] == after
        assert f"<norm> {before} </norm>" in row["input"]
        assert row["trivial"] == (after in ("<self>", "sil"))
    # The vectorised windows equal the reference window of each token's sentence.
    sentences, current = [], []
    for line in lines:
        if line.startswith("<eos>"):
            sentences.append(current)
            current = []
        elif line:
            current.append(line.split("\t")[1])
    for row in dev:
        assert row["input"] == window_input(sentences[row["sentence_id"]], row["token_index"], 3)


def test_sentences_carry_each_tokens_reading(bundled_build, bundled_tsv):
    """`readings` aligns with `tokens`: each token's spoken form from the corpus line (<self> → the token,
    sil → ""), and the non-empty readings joined are `spoken`."""
    out, _ = bundled_build
    corpus: list[list[tuple[str, str]]] = [[]]
    for line in bundled_tsv.read_text(encoding="utf-8").splitlines():
        if line.startswith("<eos>"):
            corpus.append([])
        elif line:
            _, before, after = line.split("\t")
            corpus[-1].append((before, before if after == "<self>" else "" if after == "sil" else after))
    by_tokens = {tuple(b for b, _ in sentence): [r for _, r in sentence] for sentence in corpus if sentence}
    checked = 0
    for split in schemas.SPLITS:
        for row in read_dataset(out, "sentences", split).to_pylist():
            assert len(row["readings"]) == len(row["tokens"]) == row["n_tokens"]
            assert row["readings"] == by_tokens[tuple(row["tokens"])]
            assert " ".join(r for r in row["readings"] if r) == row["spoken"]
            checked += 1
    assert checked == 400


def test_trivial_share_of_train_is_the_target(shared_build):
    out, manifest = shared_build
    train = read_dataset(out, "examples", "train", columns=["trivial"]).column("trivial").to_numpy()
    share, config = train.mean(), manifest["config"]
    nontrivial = len(train) - train.sum()
    # The fraction, raised on this small corpus so that at least the min count of trivial examples stays.
    least = config["trivial_min_count"]
    assert manifest["sampling"]["trivial_target"] == pytest.approx(
        max(config["trivial_fraction"], least / (least + nontrivial)))
    assert abs(share - manifest["sampling"]["trivial_target"]) < 0.005
    assert manifest["sampling"]["trivial_fraction"] == pytest.approx(share)


def test_dev_and_test_are_never_resampled(shared_build):
    out, manifest = shared_build
    for split in ("dev", "test"):
        table = read_dataset(out, "examples", split)
        assert table.num_rows == sum(manifest["splits"][split]["tokens"].values())
        assert pa.compute.max(table.column("copy")).as_py() == 0
        assert table.column("trivial").to_numpy().sum() == manifest["splits"][split]["trivial_tokens"]


def test_hash_split_keeps_sentences_whole_and_apart(shared_build):
    out, _ = shared_build
    seen = {}
    for split in schemas.SPLITS:
        for h in read_dataset(out, "sentences", split, columns=["text_hash"]).column("text_hash").to_pylist():
            assert seen.setdefault(h, split) == split
    shares = {s: read_dataset(out, "sentences", s).num_rows for s in schemas.SPLITS}
    total = sum(shares.values())
    assert 0.87 < shares["train"] / total < 0.93


def test_positive_pairs_count_every_nontrivial_token(shared_build, shared_tsv):
    out, manifest = shared_build
    pairs = read_dataset(out, "positive_pairs")
    assert sum(pairs.column("count").to_pylist()) == sum(
        sum(manifest["splits"][s]["tokens"].values()) - manifest["splits"][s]["trivial_tokens"] for s in schemas.SPLITS
    )
    rows = {(r["split"], r["class"], r["before"], r["after"]) for r in pairs.to_pylist()}
    assert len(rows) == pairs.num_rows
    assert all(r["after"] not in ("<self>", "sil") for r in pairs.to_pylist())


def test_tsv_and_csv_flavours_give_the_same_examples(shared_build, shared_csv, tmp_path):
    out, _ = shared_build
    manifest = build([shared_csv], tmp_path / "csv")
    assert manifest["inputs"][0]["flavour"] == "csv"
    for split in schemas.SPLITS:
        a = read_dataset(out, "examples", split).select(COMPARE)
        b = read_dataset(tmp_path / "csv", "examples", split).select(COMPARE)
        assert a.num_rows == b.num_rows and a.equals(b)


def test_same_output_for_other_worker_count_and_input_order(tmp_path, shared_tsv):
    first = tmp_path / "a.tsv"
    second = tmp_path / "b.tsv"
    text = shared_tsv.read_text(encoding="utf-8").split("<eos>\t<eos>\n")
    first.write_text("<eos>\t<eos>\n".join(text[:1500]) + "<eos>\t<eos>\n", encoding="utf-8")
    second.write_text("<eos>\t<eos>\n".join(text[1500:3000]) + "<eos>\t<eos>\n", encoding="utf-8")
    build([first, second], tmp_path / "one", shards=3, workers=1)
    build([second, first], tmp_path / "two", shards=3, workers=2)
    files_one = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.parquet"))
    files_two = sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.parquet"))
    assert files_one == files_two and len(files_one) == 3 * 3 * 3 + 1
    for relative in files_one:
        assert pq.read_table(tmp_path / "one" / relative).equals(pq.read_table(tmp_path / "two" / relative)), relative


def test_upsampling_reaches_exact_targets(tmp_path):
    sentences = []
    for i in range(3):
        sentences.append([("PLAIN", "It", "<self>"), ("PLAIN", "weighs", "<self>"), ("MEASURE", f"{i + 2} kg", "x kilograms")])
    for i in range(7):
        sentences.append([("PLAIN", "About", "<self>"), ("MEASURE", f"{i + 1} mA", "x milliamperes")])
    for i in range(150):
        sentences.append([("PLAIN", "Some", "<self>"), ("MEASURE", f"{i + 1} km", "x kilometers")])
    for i in range(4):
        sentences.append([("CARDINAL", f"{i + 2},000,000", "x million"), ("PLAIN", "people", "<self>")])
    sentences.append([("CARDINAL", "999,999", "nine hundred …"), ("PUNCT", ".", "sil")])
    corpus = write_corpus(tmp_path / "crafted.tsv", sentences)
    manifest = build([corpus], tmp_path / "out", split="none", measure_min_count=100, cardinal_target=1000,
                     **ABSOLUTE)
    train = read_dataset(tmp_path / "out", "examples", "train").to_pylist()
    units = {}
    for row in train:
        if row["class"] == "MEASURE":
            units[row["before"].split(" ")[1]] = units.get(row["before"].split(" ")[1], 0) + 1
    assert units == {"kg": 100, "mA": 100, "km": 150}
    big = [r for r in train if r["class"] == "CARDINAL" and r["before"] != "999,999"]
    assert len(big) == 1000
    assert {r["copy"] for r in big} == set(range(250))
    assert sum(1 for r in train if r["before"] == "999,999") == 1
    assert manifest["sampling"]["measure_units"] == {
        "kg": {"tokens": 3, "examples": 100, "target": 100, "limited_by": None},
        "mA": {"tokens": 7, "examples": 100, "target": 100, "limited_by": None}}
    assert manifest["splits"]["train"]["copies"] == 97 + 93 + 996
    assert manifest["accounting"]["reconciles"]


def test_standard_split_routes_shards(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    sentence = [("PLAIN", "The", "<self>"), ("DATE", "1999", "nineteen ninety nine"), ("PUNCT", ".", "sil")]
    for shard in (3, 91, 97):
        write_corpus(folder / f"output-{shard:05d}-of-00100", [sentence] * 5)
    # Shard 99: 100,002 lines are the test set; what follows is excluded.
    lines_per_sentence = len(sentence) + 1
    n = 100_002 // lines_per_sentence + 10
    with gzip.open(folder / "output-00099-of-00100.gz", "wt", encoding="utf-8") as handle:
        for _ in range(n):
            handle.write("".join("\t".join(t) + "\n" for t in sentence) + "<eos>\t<eos>\n")
    manifest = build(sorted(folder.iterdir()), tmp_path / "out")
    assert manifest["config"]["split"] == "standard"
    assert manifest["splits"]["train"]["sentences"] == 5
    assert manifest["splits"]["dev"]["sentences"] == 5
    test_sentences = 100_002 // lines_per_sentence
    assert manifest["splits"]["test"]["sentences"] == test_sentences
    assert manifest["accounting"]["excluded"] == 5 * 3 + (n - test_sentences) * 3
    test = read_dataset(tmp_path / "out", "examples", "test")
    assert set(test.column("source").to_pylist()) == {"output-00099-of-00100"}
    assert max(test.column("line").to_pylist()) <= 100_002
    assert manifest["standard_split"]["test_tokens"] == test.num_rows
    assert manifest["accounting"]["reconciles"]


BAD_CASES = {"unknown_class": b"NOUN\tone\t<self>\n"}  # one reason end to end; each reason: test_readers.py


@pytest.mark.parametrize("reason", sorted(BAD_CASES))
def test_bad_line_is_rejected_with_its_reason(tmp_path, reason):
    good = b"PLAIN\tA\t<self>\nCARDINAL\t2\ttwo\n<eos>\t<eos>\n"
    path = tmp_path / "bad.tsv"
    path.write_bytes(good + b"PLAIN\tThe\t<self>\n" + BAD_CASES[reason] + b"PUNCT\t.\tsil\n<eos>\t<eos>\n" + good)
    manifest = build([path], tmp_path / "out", split="none")
    rejects = read_dataset(tmp_path / "out", "rejects").to_pylist()
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (4, "in_rejected_sentence"), (5, reason), (6, "in_rejected_sentence")
    ]
    assert all(r["source"] == "bad.tsv" and len(r["raw"]) <= 201 for r in rejects)
    assert manifest["rejects_by_reason"] == {reason: 1, "in_rejected_sentence": 2}
    assert manifest["accounting"]["rejected"] == 3
    assert manifest["accounting"]["input_records"] == 7
    assert manifest["accounting"]["reconciles"]


def test_missing_final_eos_rejects_the_unterminated_sentence(tmp_path):
    path = write_corpus(tmp_path / "cut.tsv", [[("PLAIN", "A", "<self>")], [("PLAIN", "B", "<self>"), ("PUNCT", ".", "sil")]], eos=False)
    manifest = build([path], tmp_path / "out", split="none")
    assert manifest["rejects_by_reason"] == {"missing_final_eos": 2}
    assert manifest["accounting"]["kept"] + manifest["accounting"]["sampled_out"] == 1
    assert manifest["accounting"]["reconciles"]


def test_bom_and_crlf_are_repaired_and_reported(tmp_path):
    path = tmp_path / "windows.tsv"
    path.write_bytes(b"\xef\xbb\xbfPLAIN\tA\t<self>\r\nCARDINAL\t2\ttwo\r\n<eos>\t<eos>\r\n")
    manifest = build([path], tmp_path / "out", split="none")
    entry = manifest["inputs"][0]
    assert entry["bom"] and entry["crlf_lines"] == 3
    train = read_dataset(tmp_path / "out", "examples", "train").to_pylist()
    assert [r["before"] for r in train] == ["A", "2"] or [r["before"] for r in train] == ["2"]
    assert manifest["rejects_by_reason"] == {}


def test_empty_file_is_reported_not_fatal(tmp_path, shared_tsv):
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    small = tmp_path / "small.tsv"
    small.write_text("".join(shared_tsv.read_text(encoding="utf-8").partition("<eos>\t<eos>\n")[:2]), encoding="utf-8")
    manifest = build([empty, small], tmp_path / "out", split="none")
    assert manifest["rejects_by_reason"] == {"empty_file": 1}
    rejects = read_dataset(tmp_path / "out", "rejects").to_pylist()
    assert rejects == [{"key": rejects[0]["key"], "source": "empty.tsv", "line": 0, "reason": "empty_file", "raw": ""}]
    assert manifest["accounting"]["reconciles"]


def test_missing_input_and_nonempty_output_are_clear_errors(tmp_path, shared_tsv):
    with pytest.raises(BuildError, match="nothere.tsv: no such file"):
        build([tmp_path / "nothere.tsv"], tmp_path / "out")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x")
    with pytest.raises(BuildError, match="not empty"):
        build([shared_tsv], tmp_path / "full")


def test_cli_build_with_config_file_and_summary(tmp_path, shared_tsv):
    small = tmp_path / "small.tsv"
    small.write_text("<eos>\t<eos>\n".join(shared_tsv.read_text(encoding="utf-8").split("<eos>\t<eos>\n")[:300]) + "<eos>\t<eos>\n")
    config = tmp_path / "build.toml"
    config.write_text('[build]\ntrivial-fraction = 0.2\nwindow = 2\nsplit = "none"\n')
    result = CliRunner().invoke(cli, ["build", "--config", str(config), str(small), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "reconciles" in result.output and "CARDINAL" in result.output
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["config"]["trivial_fraction"] == 0.2 and manifest["config"]["window"] == 2
    assert manifest["inputs"][0]["sha256"] and manifest["inputs"][0]["size"] == small.stat().st_size
    again = CliRunner().invoke(cli, ["build", str(small), "--out", str(tmp_path / "o")])
    assert again.exit_code != 0 and "not empty" in again.output
    bad = CliRunner().invoke(cli, ["build", str(tmp_path / "missing.tsv"), "--out", str(tmp_path / "p")])
    assert bad.exit_code != 0 and "missing.tsv: no such file" in bad.output


def test_bundled_sample_builds_by_default(tmp_path):
    result = CliRunner().invoke(cli, ["build", "--out", str(tmp_path / "sample")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "sample" / "manifest.json").read_text())
    classes = set()
    for split in schemas.SPLITS:
        classes |= set(manifest["splits"][split]["tokens"])
    assert classes == set(schemas.SEMIOTIC_CLASSES)
    big, per_token = manifest["sampling"]["big_cardinals"], manifest["config"]["max_copies_per_token"]
    assert big["target"] == 10_000 and big["tokens"] < big["examples"] == big["tokens"] * (1 + per_token) < 10_000
    assert big["limited_by"] == "max_copies_per_token"
    assert f"→ {big['examples']:,} examples (target 10,000 capped at {per_token} copies per token)" in result.output
    assert manifest["accounting"]["reconciles"] and manifest["accounting"]["rejected"] == 0


def test_dataflow_job_graph_builds_offline(tmp_path, shared_tsv):
    pytest.importorskip("apache_beam.runners.dataflow.dataflow_runner")
    small = tmp_path / "small.tsv"
    shutil.copy(shared_tsv, small)
    manifest = build([small], "gs://tnforge-test/out", pipeline_args=(
        "--runner=DataflowRunner", "--project=tnforge-test", "--region=us-central1",
        "--temp_location=gs://tnforge-test/tmp", "--dry_run=True",
    ))
    assert manifest is None


CSV_BAD = {"token_id_out_of_order": b'1,5,"PLAIN","x","x"\n'}  # one reason end to end; each reason: test_readers.py


@pytest.mark.parametrize("reason", sorted(CSV_BAD))
def test_bad_csv_record_is_rejected_with_its_reason(tmp_path, reason):
    header = b'"sentence_id","token_id","class","before","after"\n'
    good = b'0,0,"PLAIN","A","A"\n0,1,"CARDINAL","2","two"\n'
    bad_sentence = b'1,0,"PLAIN","The","The"\n' + CSV_BAD[reason] + b'1,2,"PUNCT",".","."\n'
    path = tmp_path / "bad.csv"
    path.write_bytes(header + good + bad_sentence + b'2,0,"PLAIN","B","B"\n')
    manifest = build([path], tmp_path / "out", split="none")
    rejects = read_dataset(tmp_path / "out", "rejects").to_pylist()
    assert [(r["line"], r["reason"]) for r in rejects] == [
        (4, "in_rejected_sentence"), (5, reason), (6, "in_rejected_sentence")
    ]
    train = read_dataset(tmp_path / "out", "examples", "train")
    assert sorted(train.column("before").to_pylist()) in (["2", "A", "B"], ["2"], ["2", "A"], ["2", "B"])
    assert manifest["accounting"]["input_records"] == 6 and manifest["accounting"]["reconciles"]
    assert manifest["inputs"][0]["flavour"] == "csv"
