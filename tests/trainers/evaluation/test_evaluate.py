"""Evaluation: counts on a hand-made prediction set, judged errors, the report files, the CLI."""

from __future__ import annotations

import json

import pytest

from tnforge.trainers.evaluation.accuracy import evaluate, is_correct, to_markdown, write_report


def _row(sentence, cls, before, gold, prediction, source="a.tsv"):
    return {"source": source, "sentence_id": sentence, "class": cls, "before": before, "gold": gold,
            "prediction": prediction}


#: Two sentences of source a.tsv, one of b.tsv (same sentence_id as a's first: must not merge).
PREDICTIONS = [
    _row(0, "PLAIN", "Train", "<self>", "<self>"),
    _row(0, "CARDINAL", "540", "five hundred forty", "five hundred and forty"),  # wrong
    _row(0, "PUNCT", ".", "sil", "sil"),
    _row(1, "PLAIN", "It", "<self>", "It"),  # the token itself counts as <self>
    _row(1, "DATE", "1984", "nineteen eighty four", "nineteen eighty four"),
    _row(1, "PUNCT", ",", "sil", "<self>"),  # wrong: sil is not <self>
    _row(0, "CARDINAL", "3", "three", "three", source="b.tsv"),
    _row(0, "DATE", "1990", "nineteen ninety", "one thousand nine hundred ninety", source="b.tsv"),  # wrong
]


def test_counts_on_a_hand_made_prediction_set():
    report = evaluate(PREDICTIONS)
    assert report["tokens"] == {"count": 8, "correct": 5, "accuracy": 5 / 8}
    assert report["nontrivial"] == {"count": 4, "correct": 2, "accuracy": 0.5}
    assert report["sentences"] == {"count": 3, "correct": 0, "accuracy": 0.0}
    table = {row["class"]: row for row in report["per_class"]}
    assert [row["class"] for row in report["per_class"]] == ["PLAIN", "PUNCT", "DATE", "CARDINAL"]
    assert (table["PLAIN"]["count"], table["PLAIN"]["correct"], table["PLAIN"]["accuracy"]) == (2, 2, 1.0)
    assert (table["PUNCT"]["correct"], table["PUNCT"]["errors"]) == (1, 1)
    assert (table["DATE"]["count"], table["DATE"]["correct"], table["DATE"]["error_rate"]) == (2, 1, 0.5)
    assert (table["CARDINAL"]["count"], table["CARDINAL"]["correct"]) == (2, 1)
    assert [e["before"] for e in report["errors"]] == ["540", ",", "1990"]
    assert not report["judged"] and "recoverable" not in table["DATE"]
    fixed = evaluate([dict(p, prediction=p["gold"]) for p in PREDICTIONS])
    assert fixed["sentences"]["accuracy"] == 1.0 and not fixed["errors"]


def test_is_correct_treats_self_as_the_token():
    assert is_correct("It", "<self>", "It") and is_correct("It", "It", "<self>")
    assert not is_correct(",", "sil", "<self>") and not is_correct("3", "three", "tree")


def test_judge_labels_errors_recoverable_or_not():
    calls = []

    def judge(before, reading, cls):
        calls.append((before, reading, cls))
        return cls == "DATE"  # pretend only the date grammar licenses the wrong reading

    report = evaluate(PREDICTIONS, judge=judge)
    assert calls == [("540", "five hundred and forty", "CARDINAL"), (",", "<self>", "PUNCT"),
                     ("1990", "one thousand nine hundred ninety", "DATE")]
    table = {row["class"]: row for row in report["per_class"]}
    assert (table["DATE"]["recoverable"], table["DATE"]["unrecoverable"]) == (1, 0)
    assert (table["CARDINAL"]["recoverable"], table["CARDINAL"]["unrecoverable"]) == (0, 1)
    assert (report["recoverable"], report["unrecoverable"]) == (1, 2)
    batched = evaluate(PREDICTIONS, batch_judge=lambda items: [None, False, True])
    assert (batched["recoverable"], batched["unrecoverable"]) == (1, 1)  # None = could not judge
    markdown = to_markdown(report)
    assert "| DATE | 2 | 1 | 50.00% | 1 | 50.00% | 1 | 0 |" in markdown
    assert "| all tokens | 8 | 5 | 62.50% |" in markdown


def test_write_report_writes_markdown_json_and_chart(tmp_path):
    paths = write_report(evaluate(PREDICTIONS), tmp_path / "report", title="hand-made")
    assert [p.name for p in paths] == ["report.md", "report.json", "per_class.png"]
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert data["tokens"]["correct"] == 5 and len(data["errors"]) == 3
    assert (tmp_path / "report" / "per_class.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "report" / "report.md").read_text().startswith("# hand-made")


def test_cli_evaluate_reports_on_the_tiny_model(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from tests.support.tiny_models import train_tiny
    from tnforge.cli import cli

    result, data = train_tiny(tmp_path, epochs=60)
    out = tmp_path / "report"
    run = CliRunner().invoke(cli, ["evaluate", "--model", str(result.run), "--data", str(data), "--split", "dev",
                                   "--report", str(out), "--no-grammar", "--beam", "2"])
    assert run.exit_code == 0, run.output
    assert "| all tokens | 26 | 26 | 100.00% |" in run.output
    assert "covering grammar off" in run.output
    report = json.loads((out / "report.json").read_text())
    assert report["sentences"] == {"count": 4, "correct": 4, "accuracy": 1.0}
    assert {row["class"] for row in report["per_class"]} == {"PLAIN", "PUNCT", "CARDINAL", "TIME", "MONEY",
                                                             "LETTERS", "DATE"}
    missing = CliRunner().invoke(cli, ["evaluate", "--model", str(result.run), "--data", str(tmp_path / "none")])
    assert missing.exit_code != 0
    # A split without examples (a build with --split none has only train) is one line, not a report of nothing.
    from tests.support.tiny_models import examples_table
    from tnforge import schemas
    from tnforge.datasets import dataset_path, write_sharded

    write_sharded(examples_table([], "test"), dataset_path(data, "examples", "test"), schemas.EXAMPLES)
    for raw in ([], ["--raw"]):
        empty = CliRunner().invoke(cli, ["evaluate", *raw, "--model", str(result.run), "--data", str(data), "--split",
                                         "test", "--no-grammar"])
        assert empty.exit_code == 1 and "the test split has no examples: nothing to evaluate" in empty.output
        assert "Traceback" not in empty.output and "| all tokens |" not in empty.output
    compare = CliRunner().invoke(cli, ["compare", "--model", str(result.run), "--data", str(data), "--split", "test",
                                       "--no-grammar-constraint", "--report", str(tmp_path / "compare")])
    assert compare.exit_code == 1 and "the test split has no examples" in compare.output
    assert not (tmp_path / "compare").exists()


def test_grammar_judge_wiring_uses_licenses_batch_and_falls_back(monkeypatch):
    pytest.importorskip("pynini")
    import sys
    import types

    import click

    import tnforge
    from tnforge.cli.common import grammar_errors
    from tnforge.grammars import adapter

    fake = types.ModuleType("tnforge.grammars")
    fake.licenses = lambda before, reading, cls=None: reading == before
    fake.licenses_batch = lambda items: [reading.startswith("ok") for _, reading, _ in items]
    monkeypatch.setitem(sys.modules, "tnforge.grammars", fake)
    monkeypatch.setattr(tnforge, "grammars", fake, raising=False)
    judge, note = adapter.judge(None)
    assert judge([("a", "ok 1", "X"), ("b", "no", None)]) == [True, False] and "judged" in note

    def broken(items):
        raise RuntimeError("grammar failure")

    fake.licenses_batch = broken
    judge, _ = adapter.judge(None)
    assert judge([("a", "a", "X"), ("b", "c", None)]) == [True, False]  # one by one with licenses
    assert adapter.judge(False)[0] is None
    del fake.licenses
    assert adapter.judge(None)[0] is None
    with pytest.raises(Exception, match="not available"):
        adapter.judge(True)
    with pytest.raises(click.ClickException, match="--grammar: .*not available"), grammar_errors("--grammar"):
        adapter.judge(True)
