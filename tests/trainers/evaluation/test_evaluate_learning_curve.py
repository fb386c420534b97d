"""Learning-curve helpers: nested stable training subsets, the power-law fit and its extrapolation, and the
label-disagreement kinds of an error's written form."""

from __future__ import annotations

import math

import pytest

from tnforge.trainers.evaluation.learning_curve import (
    PowerLaw,
    disagreement,
    extrapolate,
    fit_power_law,
    form_classes,
    nested_subset,
)

KEYS = [f"sentence {i} of the corpus" for i in range(1000)]


def test_subsets_are_nested_deterministic_and_sized_by_the_fraction():
    fractions = (0.0625, 0.125, 0.25, 0.5, 0.75, 1.0)
    subsets = [nested_subset(KEYS, f) for f in fractions]
    assert [len(s) for s in subsets] == [62, 125, 250, 500, 750, 1000]
    for small, large in zip(subsets, subsets[1:], strict=False):
        assert set(small) < set(large)
    assert subsets[-1] == list(range(1000))  # fraction 1 keeps every item, in input order
    assert all(s == sorted(s) for s in subsets)
    assert nested_subset(KEYS, 0.25) == subsets[2]
    assert subsets[3] != list(range(500))  # a hash order, not the input's
    assert nested_subset(KEYS, 0.25, seed=10) != subsets[2]


def test_a_subset_is_chosen_by_key_not_by_position():
    shuffled = KEYS[500:] + KEYS[:500]
    assert {shuffled[i] for i in nested_subset(shuffled, 0.3)} == {KEYS[i] for i in nested_subset(KEYS, 0.3)}
    # Another fold's list (some keys gone) keeps the same order among the keys left.
    rest = KEYS[::2]
    assert {rest[i] for i in nested_subset(rest, 0.2)} <= {KEYS[i] for i in nested_subset(KEYS, 0.25)}


def test_subset_edges():
    assert nested_subset([], 0.5) == []
    assert nested_subset(["one"], 0.01) == [0]
    for bad in (0, -0.5, 1.5):
        with pytest.raises(ValueError, match="not in"):
            nested_subset(KEYS, bad)


def test_fit_recovers_a_known_power_law_and_inverts_it():
    law = PowerLaw(a=3.0, b=0.4)
    sizes = [2_000, 5_000, 11_000, 22_000, 35_000]
    fit = fit_power_law(sizes, [law.error(n) for n in sizes])
    assert fit.a == pytest.approx(3.0, rel=1e-9)
    assert fit.b == pytest.approx(0.4, rel=1e-9)
    assert fit.error(fit.size_at(0.01)) == pytest.approx(0.01)
    assert fit.size_at(0.01) == pytest.approx(300 ** 2.5, rel=1e-6)  # (a / 0.01)^(1/b)
    assert PowerLaw(0.1, 0.0).size_at(0.01) == math.inf
    with pytest.raises(ValueError, match="> 0"):
        fit_power_law([1, 2], [0.1, 0.0])
    with pytest.raises(ValueError, match="two distinct"):
        fit_power_law([5, 5], [0.1, 0.2])


def test_extrapolation_reports_its_spread_and_whether_the_points_fall():
    law = PowerLaw(a=2.0, b=0.5)
    sizes = [1_000, 4_000, 16_000, 64_000]
    exact = [law.error(n) for n in sizes]
    result = extrapolate(sizes, exact, [e * 0.8 for e in exact], [e * 1.25 for e in exact], target=0.01)
    assert result["monotone"]
    assert result["size"] == pytest.approx(40_000, rel=1e-6)
    assert all(f["size"] == pytest.approx(40_000, rel=1e-6) for f in result["leave_one_out"])
    assert result["lower_ends"]["size"] < result["size"] < result["upper_ends"]["size"]
    assert result["upper_ends"]["size"] == pytest.approx((2.5 / 0.01) ** 2, rel=1e-6)
    assert max(abs(r) for r in result["residuals"]) < 1e-9
    assert result["largest_three"]["b"] == pytest.approx(0.5)
    bumpy = [0.08, 0.05, 0.06, 0.03]
    result = extrapolate(sizes, bumpy, [e / 2 for e in bumpy], [e * 2 for e in bumpy], target=0.01)
    assert not result["monotone"]
    assert len({round(f["b"], 6) for f in result["leave_one_out"]}) == 4
    assert result["largest_three"]["b"] == pytest.approx(fit_power_law(sizes[1:], bumpy[1:]).b)


def test_label_disagreement_kinds():
    table = form_classes([["I", "II", "1990", "I"], ["II", "5"]],
                         [["PLAIN", "ROMAN", "DATE", "ROMAN"], ["CARDINAL", "CARDINAL"]])
    assert table["I"] == {"PLAIN": 1, "ROMAN": 1}
    assert disagreement(table, "I", "ROMAN") == "gold and other"
    assert disagreement(table, "II", "ORDINAL") == "other only"
    assert disagreement(table, "1990", "DATE") == "gold only"
    assert disagreement(table, "2001", "DATE") == "unseen"
