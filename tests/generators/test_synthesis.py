"""Grammar-synthesized train examples for rare classes (`tnforge build --synthesize`): the conventions that
choose their readings, the forms drawn, and the build that places them as examples and in whole train sentences
(marked, train only, counted, the same bytes again, dev/test untouched, validated)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from click.testing import CliRunner

from tnforge import datasets
from tnforge.cli import cli
from tnforge.generators.synthesis import (
    TEMPLATES,
    Conventions,
    Synthesis,
    learn_conventions,
    plausible,
    rare_classes,
    synthesized_sentences,
    variant,
)
from tnforge.hashing import stable_hash64
from tnforge.sources import SYNTHESIZED_MARK, is_synthesized

pytest.importorskip("pynini")

RARE = ("MONEY", "MEASURE", "TELEPHONE", "DIGIT", "FRACTION", "DECIMAL", "ORDINAL", "TIME")


def read_pairs(path: Path) -> dict[str, list[tuple[str, str]]]:
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 3 and fields[2] not in ("<self>", "sil"):
            pairs[fields[0]].append((fields[1], fields[2]))
    return pairs


def test_conventions_learned_on_the_bundled_sample_read_other_sentences_as_the_corpus_does(bundled_tsv, shared_tsv):
    """Learned from the bundled sample's tokens, the conventions choose the corpus's own reading of the shared
    sample's rare-class tokens among the grammar's licensed readings far more often than the grammar's first."""
    from tnforge.grammars import adapter

    readings, _committed, _tables = adapter.synthesis_grammar()
    conventions = learn_conventions(read_pairs(Path(bundled_tsv)), readings)
    chosen = first = total = 0
    for cls, pairs in read_pairs(Path(shared_tsv)).items():
        if cls not in RARE:
            continue
        for before, after in pairs:
            options = readings(before, cls)
            if after in options:
                total += 1
                chosen += conventions.choose(cls, options) == after
                first += options[0] == after
    assert total > 200
    assert chosen / total >= 0.9 and first / total < 0.7, (chosen, first, total)
    assert conventions.choose("MONEY", ["three dollar", "three dollars"]) == "three dollars"


def test_a_variant_keeps_the_shape_and_is_the_same_for_the_same_key():
    assert variant("$300,000", "MONEY", 7) == variant("$300,000", "MONEY", 7)
    drawn = {variant("$300,000", "MONEY", key) for key in range(50)}
    assert len(drawn) > 5 and all(len(f) == 8 and f.startswith("$") and f.endswith(",000") for f in drawn)
    swapped = {variant("$60", "MONEY", key, ("$", "£", "€")) for key in range(60)}
    assert {form[0] for form in swapped} == {"$", "£", "€"} and {form[2] for form in swapped} == {"0"}
    for key in range(30):
        number, suffix = variant("21st", "ORDINAL", key)[:-2], variant("21st", "ORDINAL", key)[-2:]
        assert suffix == ("th" if number[-2:] in ("11", "12", "13") else
                          {"1": "st", "2": "nd", "3": "rd"}.get(number[-1], "th"))
    assert rare_classes({"MONEY": 8, "CARDINAL": 500, "PLAIN": 3, "TIME": 0}, 100) == ["MONEY"]
    assert rare_classes({"ELECTRONIC": 19, "TELEPHONE": 13}, 100) == ["TELEPHONE"]  # letters drawn anew: never


def test_drawn_clock_times_stay_on_the_clock_and_the_shortest_reading_wins_where_train_says_nothing():
    assert [plausible(f, "TIME") for f in ("11:45 pm", "21:05", "9.15pm", "3 pm", "20.10pm", "24:10", "13 am")] == [
        True, True, True, True, False, False, False]
    assert plausible("20.10pm", "MEASURE")  # only clocks are checked
    drawn = {variant(shape, "TIME", key) for shape in TEMPLATES["TIME"] for key in range(40)}
    kept = {form for form in drawn if plausible(form, "TIME")}
    assert len(kept) > 50 and drawn - kept  # the check drops some draws, keeps most layouts
    silent = Conventions()
    assert silent.choose("TIME", ["one hour and nine minute", "one hour nine minute", "one o nine"]) == "one o nine"
    said = Conventions(by_class={"TIME": {"minute": 2.0}})
    assert said.choose("TIME", ["one o nine", "one hour nine minute"]) == "one hour nine minute"


def digest(root: Path, name: str = "examples", split: str | None = None) -> str:
    hashed = hashlib.sha256()
    for path in datasets.dataset_files(root, name, split):
        hashed.update(Path(path).read_bytes())
    return hashed.hexdigest()


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "ds"
    result = CliRunner().invoke(cli, ["build", "--out", str(out), "--synthesize", "60"])
    assert result.exit_code == 0, result.output
    assert "synthesized train examples (--synthesize 60, classes below 100 train tokens)" in result.output
    return out


def test_the_build_places_marked_licensed_examples_of_the_rare_classes_in_train_only(synthesized):
    from tnforge.grammars import adapter

    manifest = json.loads((synthesized / "manifest.json").read_text())
    examples = datasets.read_dataset(synthesized, "examples")
    marked = examples.filter(pc.ends_with(examples.column("source"), SYNTHESIZED_MARK))
    assert set(marked.column("split").to_pylist()) == {"train"}
    assert all(is_synthesized(s) for s in marked.column("source").to_pylist())
    placed = Counter(marked.column("class").to_pylist())
    assert placed == Counter(manifest["synthesis"]["examples"]) and set(placed) <= set(RARE) | {"ADDRESS"}
    train_tokens = manifest["splits"]["train"]["tokens"]
    assert all(train_tokens[cls] < 100 for cls in placed) and all(n >= 60 for n in placed.values())
    assert min(marked.column("copy").to_pylist()) == 1  # the copies of a kept token (the accounting's)
    assert manifest["accounting"]["reconciles"]
    rows = marked.select(["before", "after", "class", "input"]).to_pylist()
    judge = adapter.licenser()
    assert all(judge([(r["before"], r["after"], r["class"]) for r in rows]))  # never an unlicensed reading
    assert all(f"<norm> {r['before']} </norm>" in r["input"] for r in rows)
    times = {r["before"] for r in rows if r["class"] == "TIME"}
    assert times and all(plausible(t, "TIME") for t in times)
    originals = examples.filter(pc.invert(pc.ends_with(examples.column("source"), SYNTHESIZED_MARK)))
    assert not set(marked.column("before").to_pylist()) <= set(originals.column("before").to_pylist())


def test_synthesized_pairs_join_the_train_positives_with_their_counts(synthesized):
    """Negatives (and the dual encoders trained on them) learn the rare classes from the synthesized pairs too."""
    examples = datasets.read_dataset(synthesized, "examples").to_pylist()
    positives = datasets.read_dataset(synthesized, "positive_pairs").to_pylist()
    wanted = Counter((r["split"], r["class"], r["before"], r["after"]) for r in examples
                     if not r["trivial"] and r["copy"] == 0 or is_synthesized(r["source"]))
    found = {(r["split"], r["class"], r["before"], r["after"]): r["count"] for r in positives}
    synthesized_pairs = {(r["split"], r["class"], r["before"], r["after"]) for r in examples if is_synthesized(r["source"])}
    assert synthesized_pairs and all(found.get(pair, 0) >= wanted[pair] for pair in synthesized_pairs)
    assert {pair[0] for pair in synthesized_pairs} == {"train"}
    only_synthesized = synthesized_pairs - {(r["split"], r["class"], r["before"], r["after"]) for r in examples
                                            if not is_synthesized(r["source"])}
    assert only_synthesized and all(found[pair] == wanted[pair] for pair in only_synthesized)


def test_the_same_bytes_again_and_with_two_workers_and_validation_knows_them(synthesized, tmp_path):
    again = tmp_path / "again"
    result = CliRunner().invoke(cli, ["build", "--out", str(again), "--synthesize", "60", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert digest(again) == digest(synthesized)
    assert digest(again, "sentences") == digest(synthesized, "sentences")
    validated = CliRunner().invoke(cli, ["validate", str(synthesized), "--no-docs"])
    assert validated.exit_code == 0 and "validation passed" in validated.output, validated.output
    assert "grammar-synthesized ones (source SOURCE#synthesized" in validated.output
    assert "with grammar-synthesized tokens (source SOURCE#synthesized-N)" in validated.output


def test_the_synthesized_examples_are_placed_in_their_train_sentences_too(synthesized):
    manifest = json.loads((synthesized / "manifest.json").read_text())
    rows = datasets.read_dataset(synthesized, "sentences").to_pylist()
    originals = {r["sentence_id"]: r for r in rows if not is_synthesized(r["source"])}
    copies = [r for r in rows if is_synthesized(r["source"])]
    assert {r["split"] for r in copies} == {"train"}
    assert len(copies) == manifest["synthesis"]["sentences"] > 0
    assert manifest["synthesis"]["sentences_dropped_as_held_out"] == 0
    assert len(copies) + sum(r["split"] == "train" for r in originals.values()) == manifest["datasets"]["sentences"]["train"]
    assert len({r["key"] for r in rows}) == len(rows)
    placed = Counter()
    for row in copies:
        copy = int(row["source"].rsplit("-", 1)[1])
        assert row["source"] == f"sample.tsv{SYNTHESIZED_MARK}-{copy}"
        original = originals[row["sentence_id"]]
        assert original["split"] == "train" and row["classes"] == original["classes"]
        assert row["written"] == " ".join(row["tokens"]) and row["text_hash"] == stable_hash64(row["written"])
        assert row["spoken"] == " ".join(r for r in row["readings"] if r)
        changed = [i for i, (old, new) in enumerate(zip(original["tokens"], row["tokens"], strict=True)) if old != new]
        assert changed and all(row["classes"][i] in manifest["synthesis"]["examples"] for i in changed)
        unchanged = [i for i in range(row["n_tokens"]) if i not in changed]
        assert [row["readings"][i] for i in unchanged] == [original["readings"][i] for i in unchanged]
        placed.update((row["sentence_id"], i, copy, row["tokens"][i], row["readings"][i]) for i in changed)
    # Every synthesized example, and nothing else, in its sentence: the same form and reading in the same place.
    examples = datasets.read_dataset(synthesized, "examples", "train")
    examples = examples.filter(pc.ends_with(examples.column("source"), SYNTHESIZED_MARK))
    wanted = Counter(zip(*(examples.column(n).to_pylist() for n in
                           ("sentence_id", "token_index", "copy", "before", "after")), strict=True))
    assert placed == wanted


def test_dev_and_test_are_the_same_with_and_without_synthesis(synthesized, bundled_build):
    for name in ("examples", "sentences"):
        for split in ("dev", "test"):
            assert digest(synthesized, name, split) == digest(bundled_build, name, split)
    plain = datasets.read_dataset(bundled_build, "sentences", "train").column("key").to_pylist()
    rows = datasets.read_dataset(synthesized, "sentences", "train")
    kept = [k for k, s in zip(rows.column("key").to_pylist(), rows.column("source").to_pylist(), strict=True)
            if not is_synthesized(s)]
    assert sorted(kept) == sorted(plain)


def test_a_synthesized_sentence_that_reads_like_a_held_out_one_is_left_out():
    tokens = pa.RecordBatch.from_pydict({
        "sentence_id": pa.array([0, 0, 1, 1], pa.int64()), "token_index": pa.array([0, 1, 0, 1], pa.int32()),
        "line": pa.array([1, 2, 4, 5], pa.int64()), "split": pa.array([0, 0, 0, 0], pa.int8()),
        "text_hash": pa.array([0, 0, 0, 0], pa.uint64()), "class": ["PLAIN", "MONEY", "PLAIN", "MONEY"],
        "before": ["Costs", "$3", "Paid", "$3"], "after": ["<self>", "three dollars", "<self>", "three dollars"],
    })
    plan = Synthesis(0, {"MONEY": [("£7", "seven pounds")]}, {"MONEY": 1}, Conventions(), {"MONEY": 2},
                     frozenset({stable_hash64("Paid £7")}))
    (copy,) = synthesized_sentences(tokens, np.array([True, False, True, False]), "x", "x.tsv", plan)
    assert copy.source == "x.tsv#synthesized-1" and copy.dropped == 1
    assert copy.tokens.column("before").to_pylist() == ["Costs", "£7"]
    assert copy.tokens.column("after").to_pylist() == ["<self>", "seven pounds"]
    assert copy.tokens.column("text_hash").to_pylist() == [stable_hash64("Costs £7")] * 2


def test_without_the_grammar_synthesis_is_refused_in_one_line(monkeypatch, tmp_path):
    from tnforge.grammars import adapter

    monkeypatch.setattr(adapter, "unavailable_reason", lambda: "pynini is not installed")
    result = CliRunner().invoke(cli, ["build", "--out", str(tmp_path / "ds"), "--synthesize", "10"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == ("Error: --synthesize draws and reads its examples with the "
                                                      "covering grammar: pynini is not installed")
    assert not (tmp_path / "ds").exists()


def test_a_synthesized_build_of_the_shared_sample_validates(shared_tsv, tmp_path):
    out = tmp_path / "ds"
    built = CliRunner().invoke(cli, ["build", str(shared_tsv), "--split", "hash", "--out", str(out), "--synthesize", "300"])
    assert built.exit_code == 0, built.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["synthesis"]["examples"]["MEASURE"] >= 300  # with units drawn that up-sampling never targeted
    sentences = datasets.read_dataset(out, "sentences", columns=["split", "source"])
    marked = [split for split, source in zip(sentences.column("split").to_pylist(), sentences.column("source").to_pylist(),
                                             strict=True) if is_synthesized(source)]
    assert len(marked) == manifest["synthesis"]["sentences"] > 0 and set(marked) == {"train"}
    validated = CliRunner().invoke(cli, ["validate", str(out), "--no-docs"])
    assert validated.exit_code == 0 and "validation passed" in validated.output, validated.output
