"""trainers.constraint_runs: the compare run (every configuration decoded, seconds and grammar-input counts)
and the λ sweep's files — on a tiny seq2seq model trained briefly and a grammar given as a callable."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from tests.support import tiny_models as H  # noqa: E402
from tnforge.trainers.decoding.constraints import GrammarConstraint  # noqa: E402
from tnforge.trainers.evaluation.constraint_runs import (  # noqa: E402
    run_comparison,
    run_sweep,
    write_sweep,
)

TOKENS = [token for sentence in H.TINY_SENTENCES for token in sentence]
GOLD = {(cls, before): after for cls, before, after in TOKENS}


def gold_readings(before: str, cls: str | None) -> set[tuple[str, ...]]:
    """A "grammar" that licenses exactly the gold reading."""
    return {tuple(GOLD[(cls, before)].split())} if (cls, before) in GOLD else set()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from tnforge.trainers.kernel.examples import example_files
    from tnforge.trainers.seq2seq.loading import load_model

    result, data = H.train_tiny(tmp_path_factory.mktemp("runs"), epochs=2)
    return load_model(result.run), example_files(data, "dev")


def test_comparison_decodes_every_configuration_and_counts_grammar_inputs(tiny):
    loaded, files = tiny
    covered = {"CARDINAL", "MONEY"}
    grammar = GrammarConstraint(gold_readings, covered, max_length=40)
    decoded: list[tuple[str, int]] = []
    result = run_comparison(loaded, files, "dev", {"none": None, "+grammar": grammar}, covered=covered, beam=2,
                            on_decoded=lambda name, n, seconds: decoded.append((name, n)))
    assert decoded == [("none", len(TOKENS)), ("+grammar", len(TOKENS))]
    rows = {row["configuration"]: row for row in result["configurations"]}
    assert list(rows) == ["none", "+grammar"] and result["baseline"] == "none"
    assert all(row["tokens"] == len(TOKENS) and row["seconds"] >= 0 for row in rows.values())
    constrained = sum(1 for cls, _, _ in TOKENS if cls in covered)
    assert result["grammar_inputs"] == {"constrained": constrained, "unconstrained": 0}
    assert rows["+grammar"]["errors"] <= sum(1 for cls, _, _ in TOKENS if cls not in covered)
    assert result["covered_classes"] == sorted(covered)


def test_comparison_without_the_grammar_has_no_grammar_inputs(tiny):
    loaded, files = tiny
    result = run_comparison(loaded, files, "dev", {"none": None}, beam=1)
    assert "grammar_inputs" not in result and [r["configuration"] for r in result["configurations"]] == ["none"]


def test_a_sweep_needs_a_dual_encoder(tiny):
    loaded, files = tiny
    with pytest.raises(ValueError, match="nothing to weigh"):
        run_sweep(loaded, files, "dev", [0, 1])


def test_write_sweep_writes_markdown_json_and_plot(tmp_path):
    rows = [{"lambda": weight, "tokens": 10, "errors": errors, "error_rate": errors / 10, "unrecoverable": None,
             "per_class": {"CARDINAL": errors / 5}} for weight, errors in ((0.0, 3), (5.0, 1))]
    markdown, paths = write_sweep(rows, tmp_path / "sweep", "λ sweep")
    assert [p.name for p in paths] == ["sweep.md", "sweep.json", "sweep.png"] and all(p.exists() for p in paths)
    assert markdown.startswith("# λ sweep") and json.loads(paths[1].read_text()) == rows
