"""`tnforge validate` end to end on a build of a slice of the shared sample, and on copies corrupted one way."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.support.paths import SHARED_DATA
from tnforge import datasets
from tnforge.cli import cli

DATA = SHARED_DATA
SAMPLE = DATA / "en_sample.tsv"
SLICE_LINES = 12_000  # ~1,000 sentences, with MEASURE and big CARDINAL tokens
BUILD_OPTIONS = ["--cardinal-target", "300", "--measure-min-count", "20", "--trivial-min-count", "0",
                 "--negatives", "synthetic,random", "--ratio", "2", "--seed", "3"]  # trivial: the 10% alone

pytestmark = pytest.mark.skipif(
    not SAMPLE.exists(), reason="needs ../shared/data/en_sample.tsv (the shared sample beside the checkout)")


def _slice(source: Path, target: Path, lines: int) -> Path:
    """The first `lines` lines of the sample, cut after a sentence end."""
    with open(source, encoding="utf-8") as handle:
        kept = [next(handle) for _ in range(lines)]
    while not kept[-1].startswith("<eos>"):
        kept.pop()
    target.write_text("".join(kept), encoding="utf-8")
    return target


def _build(corpus: list[Path], out: Path, *options: str) -> Path:
    result = CliRunner().invoke(cli, ["build", *map(str, corpus), "--out", str(out), *options])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return out


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hash-split build of a slice of the sample, with synthetic and random negatives."""
    work = tmp_path_factory.mktemp("validate")
    corpus = _slice(SAMPLE, work / "slice.tsv", SLICE_LINES)
    return _build([corpus], work / "good", *BUILD_OPTIONS)


@pytest.fixture(scope="module")
def good_report(good: Path, tmp_path_factory: pytest.TempPathFactory):
    from tnforge.validation import validate_directory

    return validate_directory(good, docs_dir=tmp_path_factory.mktemp("docs"))


@pytest.fixture()
def copy(good: Path, tmp_path: Path) -> Path:
    """A private copy of the good build, to corrupt."""
    target = tmp_path / "copy"
    shutil.copytree(good, target, ignore=shutil.ignore_patterns("validation"))
    return target


def rewrite(root: Path, name: str, split: str | None, change: Callable[[pa.Table], pa.Table]) -> None:
    """Apply `change` to the table of the first file of a dataset (split) and write it back, metadata kept."""
    path = datasets.dataset_files(root, name, split)[0]
    table = pq.read_table(path)
    changed = change(table)
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), path)


def set_value(table: pa.Table, column: str, row: int, value: object) -> pa.Table:
    values = table.column(column).to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    return table.set_column(index, table.schema.field(column), pa.array(values, table.schema.field(column).type))


def run(root: Path, only: list[str]):
    from tnforge.validation import validate_directory

    return validate_directory(root, only=only, render_docs=False)


def failed(report, description_part: str):
    """The failed checks whose description contains the text."""
    return [check for _, check in report.failures() if description_part in check.description]


# --- a good build ------------------------------------------------------------------------------------


def test_good_build_passes_every_suite(good_report) -> None:
    assert good_report.success, good_report.format_table()
    assert set(good_report.results) == {
        "examples", "sentences", "positive_pairs", "rejects", "pairs", "vocab_pairs", "manifest"}
    examples = good_report.results["examples"]
    assert examples.rows > 1000 and examples.passed >= 15 and examples.failed == 0
    # Build targets were really checked, with observed values from the data.
    share = next(c for c in examples.checks if c.description.startswith("trivial share of train within"))
    assert abs(float(share.observed) - 0.1) <= 0.005
    upsampled = [c for c in examples.checks if "MEASURE unit" in c.description]
    assert upsampled and upsampled[0].success
    assert any("negatives per positive" in c.description for c in good_report.results["pairs"].checks)
    table = good_report.format_table()
    for name in good_report.results:
        assert name in table


def test_trivial_share_raised_by_the_min_count_passes(tmp_path: Path) -> None:
    corpus = _slice(SAMPLE, tmp_path / "slice.tsv", 3 * SLICE_LINES)  # more trivial train tokens than 10,000
    out = _build([corpus], tmp_path / "default")
    sampling = json.loads((out / "manifest.json").read_text())["sampling"]
    assert sampling["trivial_keep_rate"] < 1.0 and sampling["trivial_target"] > 0.5  # raised from 10%
    report = run(out, ["examples"])
    share = next(c for c in report.results["examples"].checks if c.description.startswith("trivial share of train within"))
    assert share.success and abs(float(share.observed) - sampling["trivial_target"]) <= 0.005, share


def test_results_written_as_json(good_report, good: Path) -> None:
    folder = good / "validation"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["success"] is True
    found = {}
    for frame in ("rows", "ids", "shares"):  # per chunk, per key partition, per split
        result = json.loads((folder / f"examples.{frame}.json").read_text())
        assert result["success"] is True
        found[frame] = {r["expectation_config"]["type"] for r in result["results"]}
    assert "expect_column_values_to_be_in_set" in found["rows"]
    assert found["ids"] == {"expect_compound_columns_to_be_unique"}
    assert found["shares"] == {"expect_column_mean_to_be_between"}
    # Counts summed over every chunk: the class check saw every example row.
    rows = json.loads((folder / "examples.rows.json").read_text())
    [classes] = [r for r in rows["results"] if r["expectation_config"]["kwargs"].get("column") == "class"]
    assert classes["result"]["element_count"] == good_report.results["examples"].rows


# --- each corruption fails its expectation -----------------------------------------------------------


def test_wrong_class_fails(copy: Path) -> None:
    rewrite(copy, "examples", "train", lambda t: set_value(t, "class", 0, "SHOUTING"))
    report = run(copy, ["examples"])
    [check] = failed(report, "class within the 16 semiotic classes")
    assert "SHOUTING" in check.observed and check.observed.startswith("1 of ")
    assert not report.success


def test_a_sentence_missing_a_tokens_reading_fails(copy: Path) -> None:
    rewrite(copy, "sentences", "train", lambda t: set_value(t, "readings", 0, t.column("readings")[0].as_py()[:-1]))
    report = run(copy, ["sentences"])
    [check] = failed(report, "one reading per token (the alignment)")
    assert check.observed.startswith("1 of ")
    assert not report.success


def test_leaked_sentence_fails_with_a_hash_split(copy: Path) -> None:
    train = pq.read_table(datasets.dataset_files(copy, "sentences", "train")[0])

    def leak(dev: pa.Table) -> pa.Table:
        row = train.slice(0, 1)
        row = set_value(row, "split", 0, "dev")
        row = set_value(row, "key", 0, 12345)
        return pa.concat_tables([dev, row.select(dev.column_names).cast(dev.schema)])

    rewrite(copy, "sentences", "dev", leak)
    report = run(copy, ["sentences"])
    [check] = failed(report, "no sentence text in two splits")
    assert "dev~train" in check.observed and re.search(r'"shared": "?1"?,', check.observed)
    assert any("dev~train 1 " in note for note in report.notes)


def test_trivial_share_of_30_percent_fails(copy: Path) -> None:
    def pad(train: pa.Table) -> pa.Table:
        trivial = train.filter(train.column("trivial"))
        share = pc.mean(train.column("trivial").cast(pa.float64())).as_py()
        assert share < 0.2
        wanted = int((0.3 * train.num_rows - trivial.num_rows) / 0.7)
        extra = trivial.take(np.arange(wanted) % trivial.num_rows)
        keys = np.arange(wanted, dtype=np.uint64) + np.uint64(2**63)
        extra = extra.set_column(0, train.schema.field("key"), pa.array(keys, pa.uint64()))
        return pa.concat_tables([train, extra])

    rewrite(copy, "examples", "train", pad)
    report = run(copy, ["examples"])
    [check] = failed(report, "trivial share of train within")
    assert abs(float(check.observed) - 0.3) < 0.01


def test_negative_equal_to_its_positive_fails(copy: Path) -> None:
    path = datasets.dataset_files(copy, "pairs", "train")[0]
    table = pq.read_table(path)
    labels = table.column("label").to_pylist()
    befores = table.column("before").to_pylist()
    readings = table.column("reading").to_pylist()
    negative = labels.index(0)
    positive = next(i for i, label in enumerate(labels) if label == 1 and befores[i] == befores[negative])
    rewrite(copy, "pairs", "train", lambda t: set_value(t, "reading", negative, readings[positive]))
    report = run(copy, ["positive_pairs", "pairs"])
    [check] = failed(report, "no negative equal to a positive")
    assert readings[positive] in check.observed and befores[negative] in check.observed


def test_licensed_negative_passes_but_typed_positive_fails(copy: Path) -> None:
    table = pq.read_table(datasets.dataset_files(copy, "pairs", "train")[0])
    labels = table.column("label").to_pylist()
    negative = labels.index(0)
    # A generated reading the grammar licenses is kept as acceptable: label 1, licensed, type kept.
    rewrite(copy, "pairs", "train", lambda t: set_value(set_value(t, "label", negative, 1), "licensed", negative, True))
    assert not failed(run(copy, ["positive_pairs", "pairs"]), "positives have no negative type")
    # Label 1 with a type but not licensed is a mislabelled row.
    rewrite(copy, "pairs", "train", lambda t: set_value(t, "licensed", negative, False))
    [check] = failed(run(copy, ["positive_pairs", "pairs"]), "positives have no negative type")
    assert check.observed


def test_missing_column_fails_on_the_command_line(copy: Path) -> None:
    rewrite(copy, "examples", "dev", lambda t: t.drop_columns(["before"]))
    result = CliRunner().invoke(cli, ["validate", str(copy), "--only", "examples", "--no-docs", "-q"])
    assert result.exit_code == 1, result.output
    assert "columns and types match the pyarrow schema" in result.output
    assert "before: <missing>" in result.output
    assert "failed:" in result.output and "examples" in result.output


def test_wrong_schema_version_fails(copy: Path) -> None:
    path = datasets.dataset_files(copy, "rejects")[0]
    table = pq.read_table(path)
    metadata = {**table.schema.metadata, b"tnforge.schema_version": b"0"}
    pq.write_table(table.replace_schema_metadata(metadata), path)
    report = run(copy, ["rejects"])
    [check] = failed(report, "schema version")
    assert "tnforge.schema_version=0" in check.observed


def test_missed_upsampling_target_fails(copy: Path) -> None:
    from tnforge.tokens import measure_unit

    manifest = json.loads((copy / "manifest.json").read_text())
    unit = next(iter(manifest["sampling"]["measure_units"]))

    def drop_copies(train: pa.Table) -> pa.Table:
        befores = train.column("before").to_pylist()
        classes = train.column("class").to_pylist()
        copies = train.column("copy").to_pylist()
        keep = [not (c == "MEASURE" and k > 0 and measure_unit(b) == unit)
                for b, c, k in zip(befores, classes, copies, strict=True)]
        return train.filter(pa.array(keep))

    rewrite(copy, "examples", "train", drop_copies)
    report = run(copy, ["examples"])
    [check] = failed(report, "every up-sampled MEASURE unit")
    assert repr(unit) in check.observed


def test_negative_ratio_out_of_tolerance_fails(copy: Path) -> None:
    def halve(pairs: pa.Table) -> pa.Table:
        labels = np.asarray(pairs.column("label"))
        drop = (labels == 0) & (np.arange(pairs.num_rows) % 2 == 0)
        return pairs.filter(pa.array(~drop))

    rewrite(copy, "pairs", "train", halve)
    report = run(copy, ["pairs"])
    [check] = failed(report, "negatives per positive, per split, not below")
    assert '"split": "train"' in check.observed


def test_manifest_counts_reconcile(copy: Path) -> None:
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["datasets"]["examples"]["dev"] += 7
    (copy / "manifest.json").write_text(json.dumps(manifest))
    report = run(copy, ["manifest"])
    [check] = failed(report, "reconcile")
    assert "examples/dev rows" in check.observed


# --- the standard split ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def standard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A standard-split build: shard 0 (train/dev) and shard 99 (test) cut from the sample."""
    work = tmp_path_factory.mktemp("standard")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:6000]
    ends = [i for i, line in enumerate(lines) if line.startswith("<eos>")]
    middle = ends[len(ends) // 2] + 1
    head = next(i for i in ends if i >= 200) + 1  # a few sentences repeated in both shards
    train = work / "output-00000-of-00100"
    test = work / "output-00099-of-00100"
    train.write_text("".join(lines[:middle]), encoding="utf-8")
    test.write_text("".join(lines[:head]) + "".join(lines[middle: ends[-1] + 1]), encoding="utf-8")
    return _build([train, test], work / "ds", "--split", "standard", "--cardinal-target", "50",
                  "--measure-min-count", "5")


def test_standard_split_passes_and_reports_overlap(standard: Path) -> None:
    report = run(standard, ["examples", "sentences", "manifest"])
    assert report.success, report.format_table()
    checks = {c.description: c for c in report.results["examples"].checks}
    assert any("test rows all come from output-00099-of-00100" in d for d in checks)
    overlap = [c for c in report.results["sentences"].checks if c.informational]
    assert len(overlap) == 3 and all(c.success for c in overlap)
    test_train = next(c for c in overlap if "share of test sentences also in train" in c.description)
    assert float(test_train.observed) > 0  # the repeated lines are in both


def test_standard_split_test_rows_from_elsewhere_fail(standard: Path, tmp_path: Path) -> None:
    target = tmp_path / "copy"
    shutil.copytree(standard, target, ignore=shutil.ignore_patterns("validation"))
    rewrite(target, "examples", "test", lambda t: set_value(t, "source", 0, "output-00001-of-00100"))
    report = run(target, ["examples"])
    [check] = failed(report, "test rows all come from output-00099-of-00100")
    assert "output-00001-of-00100" in check.observed
