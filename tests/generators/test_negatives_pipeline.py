"""The negatives pipeline end to end on a real build of the sample corpus: labels, splits, ratios, top-k,
manifest, determinism across worker counts, and the CLI."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tnforge import datasets, schemas
from tnforge.cli import cli
from tnforge.pipelines.negative_counts import count_outputs
from tnforge.pipelines.negative_units import usable_cores
from tnforge.pipelines.negatives import run_negatives
from tnforge.schemas import TRIVIAL_TARGETS

WRONG = "xyzzy plugh"


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_tsv) -> Path:
    out = tmp_path_factory.mktemp("neg") / "built"
    result = CliRunner().invoke(cli, ["build", str(shared_tsv), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def hypotheses(built, tmp_path_factory) -> tuple[Path, dict]:
    """A hand-made hypotheses file for one train and one dev example of the build."""
    examples = datasets.read_dataset(built, "examples", columns=["key", "split", "class", "before", "after", "trivial"])
    examples = examples.filter(pc.invert(examples.column("trivial")))
    chosen = {}
    for split in ("train", "dev"):
        rows = examples.filter(pc.equal(examples.column("split"), split)).sort_by("key").slice(0, 1).to_pylist()
        chosen[split] = rows[0]
    table_rows = []
    for split, row in chosen.items():
        for rank, hypothesis in enumerate([row["after"], f"{WRONG} {split}"]):
            table_rows.append({"key": row["key"], "class": row["class"], "before": row["before"], "input": row["before"],
                               "gold": row["after"], "rank": rank, "hypothesis": hypothesis, "score": -float(rank)})
    path = tmp_path_factory.mktemp("hyps") / "hyps.parquet"
    pq.write_table(pa.Table.from_pylist(table_rows, schema=schemas.HYPOTHESES), path)
    return path, chosen


def _copy(built: Path, target: Path) -> Path:
    shutil.copytree(built, target)
    return target


@pytest.fixture(scope="module")
def ratio10(built, hypotheses, tmp_path_factory) -> tuple[Path, dict]:
    root = _copy(built, tmp_path_factory.mktemp("r10") / "ds")
    section = run_negatives(str(root), ["synthetic", "random", "topk"], 10, str(hypotheses[0]), False, 0, 2, [])
    return root, section


def _trivial_positives(root: Path) -> set[tuple[str, str, str, str]]:
    """Distinct (split, class, before, after) of the trivial original examples: the trivial pairs' positives."""
    examples = datasets.read_dataset(root, "examples", columns=["split", "class", "before", "after", "trivial", "copy"])
    rows = examples.filter(pc.and_(examples.column("trivial"), pc.equal(examples.column("copy"), 0))).to_pylist()
    return {(r["split"], r["class"], r["before"], r["after"]) for r in rows}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for name in ("pairs", "vocab_pairs")
        for p in datasets.dataset_files(root, name)
    }


def test_layout_schema_and_manifest(ratio10):
    root, section = ratio10
    for name in ("pairs", "vocab_pairs"):
        for split in schemas.SPLITS:
            files = sorted(p.name for p in datasets.dataset_path(root, name, split).glob("*.parquet"))
            assert files == [datasets.shard_name(i, 2) for i in range(2)]
    pairs = datasets.read_dataset(root, "pairs")
    assert pairs.schema.equals(schemas.PAIRS, check_metadata=False)
    assert len(set(pairs.column("key").to_pylist())) == pairs.num_rows
    manifest = json.loads((root / "manifest.json").read_text())
    assert "config" in manifest  # the build's sections are kept
    negatives = manifest["negatives"]
    assert negatives == json.loads(json.dumps(section))
    assert negatives["ratio"] == 10.0 and negatives["kinds"] == ["synthetic", "random", "topk"]
    assert negatives["cap"] == 100 and negatives["seed"] == 0 and negatives["licensed"] == 0
    for split in schemas.SPLITS:
        rows = pairs.filter(pc.equal(pairs.column("split"), split))
        assert sum(negatives["counts"][split].values()) == rows.num_rows
        assert sum(n for c in negatives["by_class"][split].values() for n in c.values()) == rows.num_rows
    positives = datasets.read_dataset(root, "positive_pairs")
    trivial = _trivial_positives(root)
    assert trivial and negatives["trivial"] is True
    assert sum(c["positive"] for c in negatives["counts"].values()) == positives.num_rows + len(trivial)
    assert pairs.column("licensed").null_count == pairs.num_rows  # no grammar: not judged
    assert negatives["grammar"] is False and negatives["grammar_version"] is None
    # The counts the shard writers took of each table they wrote are those of the files read back.
    from_files = count_outputs(str(root))
    assert from_files["counts"]["train"]["synthetic"] > 0 and from_files["vocab_counts"]["dev"]["class"] > 0
    assert {name: negatives[name] for name in from_files} == json.loads(json.dumps(from_files))


def test_never_a_positive_across_splits(ratio10):
    root, _ = ratio10
    positives = [(p["split"], p["class"], p["before"], p["after"])
                 for p in datasets.read_dataset(root, "positive_pairs").to_pylist()]
    positives += sorted(_trivial_positives(root))
    gold = {(before, after) for _, _, before, after in positives}
    gold_words = {}
    for _, _, before, after in positives:
        gold_words.setdefault(before, set()).update(after.split())
    pairs = datasets.read_dataset(root, "pairs").to_pylist()
    negatives = [r for r in pairs if r["label"] == 0]
    assert len(negatives) > 10 * len(positives) * 0.9
    assert not [r for r in negatives if (r["before"], r["reading"]) in gold]
    vocab = datasets.read_dataset(root, "vocab_pairs").to_pylist()
    assert not [r for r in vocab if r["label"] == 0 and r["word"] in gold_words[r["before"]]]
    positive_rows = {(r["split"], r["class"], r["before"], r["reading"]) for r in pairs if r["label"] == 1}
    assert positive_rows == set(positives)


def test_trivial_pairs(ratio10, built, tmp_path):
    """Trivial tokens get positives and spelled/voiced negatives; the others an "unread" <self> negative, unless
    the token is also read as written somewhere; with --no-trivial no pair involves a trivial reading."""
    root, _ = ratio10
    trivial = _trivial_positives(root)
    trivial_befores = {before for _, _, before, _ in trivial}
    read_as_written = {before for _, _, before, after in trivial if after == schemas.SELF}
    pairs = datasets.read_dataset(root, "pairs").to_pylist()
    by_subtype: dict[str, list[dict]] = {}
    for r in pairs:
        by_subtype.setdefault(r["negative_subtype"], []).append(r)
    unread = by_subtype["unread"]
    assert {r["reading"] for r in unread} == {schemas.SELF}
    assert not [r for r in unread if r["before"] in read_as_written]
    assert {"DATE", "CARDINAL", "MEASURE"} <= {r["class"] for r in unread}
    spelled = by_subtype["spelled"]
    assert spelled and all(r["reading"] == " ".join(c.lower() for c in r["before"] if c.isalpha()) for r in spelled)
    assert {r["before"] for r in spelled} <= trivial_befores
    voiced = by_subtype["voiced"]
    assert voiced and {r["class"] for r in voiced} == {"PUNCT"} and {r["reading"] for r in voiced} == {schemas.SELF}
    vocab = datasets.read_dataset(root, "vocab_pairs").to_pylist()
    unread_words = [r for r in vocab if r["negative_type"] == "unread"]
    assert unread_words and {r["word"] for r in unread_words} == {schemas.SELF}
    assert not [r for r in unread_words if r["before"] in read_as_written]
    assert {r["word"] for r in vocab if r["label"] == 1} >= {schemas.SELF, schemas.SIL}

    plain = _copy(built, tmp_path / "plain")
    run_negatives(str(plain), ["synthetic", "random"], 3, None, False, 0, 1, [], trivial=False)
    pairs = datasets.read_dataset(plain, "pairs")
    assert not pc.any(pc.is_in(pairs.column("reading"), pa.array(sorted(schemas.TRIVIAL_TARGETS)))).as_py()
    vocab = datasets.read_dataset(plain, "vocab_pairs")
    assert not pc.any(pc.equal(vocab.column("word"), schemas.SELF)).as_py()  # ("sil" is a word of TELEPHONE readings)
    manifest = json.loads((plain / "manifest.json").read_text())["negatives"]
    assert manifest["trivial"] is False


def test_no_leakage_across_splits(ratio10):
    root, _ = ratio10
    for split in ("dev", "test"):
        positives = datasets.read_dataset(root, "positive_pairs", split).to_pylist()
        readings = {p["after"] for p in positives}
        words = {w for r in readings for w in r.split()}
        pairs = datasets.read_dataset(root, "pairs", split).to_pylist()
        drawn = [r for r in pairs if r["negative_type"] == "random" or r["negative_subtype"] == "suffix"]
        assert drawn and all(r["reading"] in readings for r in drawn)
        edits = [r for r in pairs if r["negative_subtype"] in ("insert", "substitute:word")]
        assert edits and all(set(r["reading"].split()) <= words for r in edits)
        vocab = datasets.read_dataset(root, "vocab_pairs", split).to_pylist()
        assert all(r["word"] in words for r in vocab if r["negative_type"] in ("class", "global"))


def test_ratio_within_tolerance(ratio10):
    root, section = ratio10
    train = section["counts"]["train"]
    ratio = (train["synthetic"] + train["random"]) / train["positive"]
    assert 9.5 <= ratio <= 10.0
    # A non-trivial token's negatives are about half synthetic edits, half random readings; a token read as
    # written (<self>/sil) has few edits to offer, so its negatives are mostly random readings.
    pairs = datasets.read_dataset(root, "pairs", "train", columns=["class", "before", "reading", "label",
                                                                   "negative_type"]).to_pylist()
    trivial = {(r["class"], r["before"]) for r in pairs if r["label"] and r["reading"] in TRIVIAL_TARGETS}
    kinds = Counter((r["class"], r["before"]) in trivial for r in pairs
                    if not r["label"] and r["negative_type"] == "synthetic")
    drawn = Counter((r["class"], r["before"]) in trivial for r in pairs
                    if not r["label"] and r["negative_type"] == "random")
    assert 0.35 <= kinds[False] / (kinds[False] + drawn[False]) <= 0.65
    assert kinds[True] and drawn[True] > kinds[True]
    vocab = section["vocab_counts"]["train"]
    assert 9.0 <= (vocab["class"] + vocab["global"]) / vocab["positive"] <= 10.0


def test_topk_negatives_land_in_their_split(ratio10, hypotheses):
    root, section = ratio10
    _, chosen = hypotheses
    pairs = datasets.read_dataset(root, "pairs")
    topk = pairs.filter(pc.equal(pairs.column("negative_type"), "topk")).to_pylist()
    assert sorted((r["split"], r["before"], r["reading"], r["negative_subtype"]) for r in topk) == sorted(
        (split, row["before"], f"{WRONG} {split}", "rank:1") for split, row in chosen.items()
    )
    vocab = datasets.read_dataset(root, "vocab_pairs")
    topk_words = vocab.filter(pc.equal(vocab.column("negative_type"), "topk")).to_pylist()
    assert {(r["split"], r["word"]) for r in topk_words} == {
        (split, word) for split in chosen for word in (*WRONG.split(), split)
    }
    assert section["counts"]["train"]["topk"] == 1 and section["counts"]["dev"]["topk"] == 1


def test_deterministic_across_worker_counts(built, hypotheses, ratio10, tmp_path):
    first, _ = ratio10
    again = _copy(built, tmp_path / "again")
    run_negatives(str(again), ["synthetic", "random", "topk"], 10, str(hypotheses[0]), False, 0, 2,
                  ["--direct_num_workers=2", "--direct_running_mode=multi_processing"])
    assert _files(first) == _files(again)


def test_unit_count_grows_with_the_inputs(built):
    from tnforge.pipelines.negative_units import INPUTS_PER_UNIT, assign_units, distinct_inputs, work_units

    assert [work_units(n) for n in (0, 1, INPUTS_PER_UNIT, INPUTS_PER_UNIT + 1, 100 * INPUTS_PER_UNIT)] == [1, 1, 1, 2, 100]
    assert work_units(10**9, override=3) == 3
    table = datasets.read_dataset(built, "positive_pairs", columns=["key", "split", "class", "before", "after"])
    befores = set(table.column("before").to_pylist())
    assert distinct_inputs(("positives", table)) == len(befores) and distinct_inputs(("hypotheses", table)) == 0
    # Every row lands in exactly one unit, an input's rows (any split, any slice) in the same one.
    unit_of_input: dict[str, int] = {}
    rows = 0
    for piece in (table.slice(0, 1000), table.slice(1000)):
        for unit, (kind, part) in assign_units(("positives", piece), 7):
            assert kind == "positives" and 0 <= unit < 7
            rows += part.num_rows
            for before in part.column("before").to_pylist():
                assert unit_of_input.setdefault(before, unit) == unit
    assert rows == table.num_rows and len(set(unit_of_input.values())) == 7


def test_identical_for_any_unit_count(built, hypotheses, ratio10, tmp_path, monkeypatch):
    """Work units come from the data (one per INPUTS_PER_UNIT distinct inputs) or an override; the files are
    the same bytes for one, several and many units, and with two workers."""
    from tnforge.pipelines import negative_units

    first, section = ratio10
    inputs = section["work"]["inputs"]
    assert section["work"]["units"] == 1 and inputs > 4000  # the sample: one unit, processed in 2 chunks
    runs = {3: [], 64: ["--direct_num_workers=2", "--direct_running_mode=multi_processing"]}
    for units, args in runs.items():
        again = _copy(built, tmp_path / f"units{units}")
        found = run_negatives(str(again), ["synthetic", "random", "topk"], 10, str(hypotheses[0]), False, 0, 2, args,
                              units=units)
        assert found["work"] == {"units": units, "inputs": inputs}
        assert _files(again) == _files(first), f"{units} units"
        assert not (again / ".tnforge-cache").exists()  # the pieces' scratch folder is gone
    # From the data: with 1,000 inputs per unit the same corpus takes ≥ inputs / 1,000 units.
    monkeypatch.setattr(negative_units, "INPUTS_PER_UNIT", 1000)
    again = _copy(built, tmp_path / "auto")
    found = run_negatives(str(again), ["synthetic", "random", "topk"], 10, str(hypotheses[0]), False, 0, 2, [])
    assert found["work"]["units"] >= -(-inputs // 1000) > 1
    assert _files(again) == _files(first)


def test_cli_ratio_3_and_errors(built, tmp_path):
    root = _copy(built, tmp_path / "cli")
    runner = CliRunner()
    # No --workers: the default is automatic, one worker process per unit up to the usable cores.
    result = runner.invoke(cli, ["negatives", str(root), "--ratio", "3", "--no-grammar", "--shards", "1",
                                 "--units", "2"])
    assert result.exit_code == 0, result.output
    workers = min(2, usable_cores())
    assert ("2 local workers" in result.output) == (workers == 2), result.output
    assert "synthetic" in result.output and "vocab" in result.output
    negatives = json.loads((root / "manifest.json").read_text())["negatives"]
    train = negatives["counts"]["train"]
    assert negatives["ratio"] == 3.0 and negatives["work"]["units"] == 2
    assert 2.8 <= (train["synthetic"] + train["random"]) / train["positive"] <= 3.0
    assert len(list(datasets.dataset_path(root, "pairs", "train").glob("*.parquet"))) == 1

    bad = runner.invoke(cli, ["negatives", str(root), "--kinds", "bogus"])
    assert bad.exit_code == 2 and "synthetic" in bad.output
    missing = runner.invoke(cli, ["negatives", str(root), "--kinds", "topk"])
    assert missing.exit_code == 2 and "--topk-from" in missing.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = runner.invoke(cli, ["negatives", str(empty), "--no-grammar"])
    assert nothing.exit_code == 1 and "tnforge build" in nothing.output


def test_build_negatives_choose_their_workers_as_the_command_does(bundled_tsv, tmp_path, monkeypatch):
    """`tnforge build --negatives` without --workers: the build in process, the negatives with the automatic
    count of `tnforge negatives` (here two units on two cores: two worker processes); --workers N: N for both."""
    from tnforge.pipelines import negative_units

    monkeypatch.setattr(negative_units, "usable_cores", lambda: 2)
    monkeypatch.setattr(negative_units, "INPUTS_PER_UNIT", 100)  # the bundled sample: more than one unit
    runner = CliRunner()
    for workers, expected in (((), True), (("--workers", "1"), False)):
        args = ["build", str(bundled_tsv), "--out", str(tmp_path / f"ds{len(workers)}"), *workers,
                "--negatives", "synthetic,random", "--ratio", "3", "--no-grammar"]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert ("2 local workers" in result.output) == expected, result.output


def test_auto_workers_one_per_unit_up_to_the_cores(built, monkeypatch):
    """`--workers 0` (automatic): one local worker per expected unit, at most the usable cores; one
    (in process) for a single unit and when Beam options choose the workers or another runner."""
    from tnforge.pipelines import negative_units

    root = str(built)
    assert negative_units.auto_workers(root, None) == 1  # the sample: one unit, no worker processes
    monkeypatch.setattr(negative_units, "usable_cores", lambda: 2)
    assert negative_units.auto_workers(root, 64) == 2 and negative_units.auto_workers(root, 1) == 1
    monkeypatch.setattr(negative_units, "INPUTS_PER_UNIT", 1000)  # units estimated from the positive files
    assert negative_units.auto_workers(root, None) == 2
    monkeypatch.setattr(negative_units, "usable_cores", lambda: 16)
    rows = datasets.read_dataset(built, "positive_pairs", columns=["key"]).num_rows
    assert negative_units.auto_workers(root, None) == min(16, -(-rows // 1000))
    assert negative_units.auto_workers(root, 64, ["--direct_num_workers=3"]) == 1
    assert negative_units.auto_workers(root, 64, ["--runner=DataflowRunner"]) == 1


def test_the_manifest_names_the_grammar_that_judged(bundled_build):
    """A build's negatives judged by the covering grammar (the default where pynini is installed) record which
    grammar decided their `licensed` column: a hash of its sources, tables and pynini version."""
    pytest.importorskip("pynini")
    from tnforge.grammars import adapter

    negatives = json.loads((bundled_build / "manifest.json").read_text())["negatives"]
    assert negatives["grammar"] is True and negatives["grammar_version"] == adapter.version()
    assert len(negatives["grammar_version"]) == 20
    assert negatives["grammar_language"] == adapter.language() == "en"
