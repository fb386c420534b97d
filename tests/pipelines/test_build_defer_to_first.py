"""`tnforge build --defer-to-first`: the bundled sample (Kestrel's conventions) leads, a head slice of the real
proteno_en file (conventions of its own) follows."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.corpus_files import head_sentences
from tests.support.paths import SHARED_DATA
from tnforge.cli import cli
from tnforge.datasets import read_dataset
from tnforge.pipelines.build_config import BuildConfig
from tnforge.pipelines.build_job import BuildError, run_build

PROTENO = SHARED_DATA / "proteno_en" / "train.tsv"
HEAD_SENTENCES = 1500


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, bundled_tsv) -> tuple[Path, Path]:
    """The bundled sample, and the first HEAD_SENTENCES sentences of proteno_en as a file of their own."""
    pytest.importorskip("pynini")  # classes of aligned text are inferred with the covering grammar
    if not PROTENO.exists():
        pytest.skip("needs ../shared/data/proteno_en/train.tsv")
    return bundled_tsv, head_sentences(PROTENO, HEAD_SENTENCES, tmp_path_factory.mktemp("proteno") / "proteno_head.tsv")


def build(inputs: tuple[Path, Path], out: Path, defer: bool) -> dict:
    # all of the leading sample in train: every reading it has is one the later input defers to
    return run_build(BuildConfig(inputs=tuple(map(str, inputs)), out=str(out), split="hash",
                                 split_ratios=(1.0, 0.0, 0.0), defer_to_first=defer))


def later_examples(out: Path, source: str) -> Counter:
    rows = read_dataset(str(out), "examples", "train", columns=["source", "class", "before", "after"]).to_pylist()
    return Counter((r["class"], r["before"], r["after"]) for r in rows if r["source"] == source)


def test_later_tokens_the_first_reads_otherwise_are_deferred_and_counted(inputs, tmp_path):
    sample, proteno = inputs
    plain = build(inputs, tmp_path / "plain", defer=False)
    deferred = build(inputs, tmp_path / "deferred", defer=True)
    readings: dict[str, set[str]] = {}
    with sample.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(row) == 3 and row[0] != "<eos>":
                readings.setdefault(row[1], set()).add(row[2])
    source = {Path(entry["path"]).name: entry["source"] for entry in deferred["inputs"]}
    before = later_examples(tmp_path / "plain", source[proteno.name])
    after = later_examples(tmp_path / "deferred", source[proteno.name])
    against = Counter({key: n for key, n in before.items() if key[1] in readings and key[2] not in readings[key[1]]})
    assert against, "the slice should read some of the sample's tokens otherwise (e.g. 'S' as 's')"
    assert before - after == against  # exactly those examples left out, no other
    assert not any(key[1] in readings and key[2] not in readings[key[1]] for key in after)
    section = deferred["deference"]
    assert section["leading"] == [source[sample.name]]
    assert sum(section["deferred"].values()) >= sum(against.values())  # sampled-out trivial tokens count too
    assert deferred["accounting"]["deferred"] == sum(section["deferred"].values())
    assert deferred["accounting"]["reconciles"] and plain["accounting"]["reconciles"]
    assert "deference" not in plain and "deferred" not in plain["accounting"]
    # the sample's own examples and every sentence are unchanged
    assert (later_examples(tmp_path / "plain", source[sample.name])
            == later_examples(tmp_path / "deferred", source[sample.name]))
    assert (read_dataset(str(tmp_path / "plain"), "sentences", "train").num_rows
            == read_dataset(str(tmp_path / "deferred"), "sentences", "train").num_rows)


def test_one_input_cannot_defer_and_says_so_in_one_line(bundled_tsv, tmp_path):
    with pytest.raises(BuildError, match="--defer-to-first: every input file is the first input's"):
        run_build(BuildConfig(inputs=(str(bundled_tsv),), out=str(tmp_path / "ds"), defer_to_first=True))
    result = CliRunner().invoke(cli, ["build", str(bundled_tsv), "--out", str(tmp_path / "cli"), "--defer-to-first"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("Error")] == [
        f"Error: --defer-to-first: every input file is the first input's ({bundled_tsv}); name another input to "
        "defer to it"]
    assert "Traceback" not in result.output
