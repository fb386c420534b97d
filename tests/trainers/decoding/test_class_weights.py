"""λ per class: `--lambda 5,MEASURE=20` parsed, printed and chosen from a sweep's rows."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tnforge.cli import cli
from tnforge.trainers.decoding.class_weights import ClassWeights, chosen_per_class, parse_lambda, row_weights


def test_lambda_is_one_number_or_a_default_then_class_overrides():
    assert parse_lambda("5") == 5.0 and parse_lambda(2.5) == 2.5
    weights = parse_lambda("5, money=0,MEASURE=20")
    assert weights == ClassWeights(5.0, (("MEASURE", 20.0), ("MONEY", 0.0)))
    assert str(weights) == "5,MEASURE=20,MONEY=0" and f"λ={weights:g}" == "λ=5,MEASURE=20,MONEY=0"
    assert parse_lambda(str(weights)) == weights
    assert row_weights(weights, ["MONEY", "MEASURE", "DATE", None, "CARDINAL|DATE"], 5) == [0, 20, 5, 5, 5]
    assert row_weights(3.0, None, 2) == [3.0, 3.0]
    assert not ClassWeights(0.0, (("MONEY", 0.0),)) and ClassWeights(0.0, (("MONEY", 1.0),))
    for bad in ("x", "5,6", "=3", "-1", "MEASURE=2", "5,MEASURE=-1", ""):
        with pytest.raises(ValueError):
            parse_lambda(bad)


def row(weight: float, errors: int, unrecoverable: int, by_class: dict[str, tuple[int, int]]) -> dict:
    return {"lambda": weight, "errors": errors, "unrecoverable": unrecoverable,
            "class_errors": {cls: list(pair) for cls, pair in by_class.items()}}


def test_a_class_gets_its_own_lambda_only_where_it_does_strictly_better_on_dev():
    rows = [row(0, 30, 20, {"MONEY": (9, 9), "MEASURE": (5, 4), "DATE": (2, 1)}),
            row(2, 24, 12, {"MONEY": (6, 5), "MEASURE": (6, 5), "DATE": (2, 1)}),
            row(5, 24, 10, {"MONEY": (4, 2), "MEASURE": (8, 6), "DATE": (2, 1)}),
            row(20, 26, 8, {"MONEY": (4, 1), "MEASURE": (9, 7), "DATE": (1, 1)})]
    # default: fewest errors (24), then fewest unrecoverable (10): λ=5; MONEY does better at 20 (same errors,
    # fewer unrecoverable), MEASURE at 0, DATE at 20; a tie with the default keeps the default.
    assert chosen_per_class(rows) == ClassWeights(5.0, (("DATE", 20.0), ("MEASURE", 0.0), ("MONEY", 20.0)))
    flat = [row(0, 3, 1, {"MONEY": (1, 1)}), row(5, 2, 0, {"MONEY": (1, 0)})]
    assert chosen_per_class(flat) == 5.0
    with pytest.raises(ValueError):
        chosen_per_class([])


def test_a_bad_lambda_is_one_line_naming_the_option():
    result = CliRunner().invoke(cli, ["compare", "--lambda", "5,X", "--model", ".", "--data", ".", "--report", "r"])
    assert result.exit_code == 2
    assert "--lambda" in result.output and "5,MEASURE=20,MONEY=0" in result.output
    assert "Traceback" not in result.output
