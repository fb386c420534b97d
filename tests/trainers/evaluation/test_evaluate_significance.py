"""Paired significance tests against hand-made counts with known p-values."""

from __future__ import annotations

import math

import pytest

from tnforge.trainers.evaluation.significance import (
    binomial_two_sided,
    discordant,
    mcnemar_chi2,
    mcnemar_exact,
    paired_test,
    sign_test,
    wilson_interval,
)


def test_mcnemar_exact_known_value() -> None:
    # b=10, c=2: 2 * (1 + 12 + 66) / 4096 = 0.0386
    assert mcnemar_exact(10, 2) == pytest.approx(79 / 2048)
    assert round(mcnemar_exact(10, 2), 4) == 0.0386
    assert mcnemar_exact(2, 10) == mcnemar_exact(10, 2)


def test_mcnemar_chi2_with_and_without_correction() -> None:
    statistic, p = mcnemar_chi2(10, 2)
    assert statistic == pytest.approx(49 / 12)
    assert p == pytest.approx(0.0433081428, rel=1e-6)  # chi2.sf(49/12, 1)
    statistic, p = mcnemar_chi2(10, 2, correction=False)
    assert statistic == pytest.approx(64 / 12)
    assert p == pytest.approx(0.0209213353, rel=1e-6)
    assert mcnemar_chi2(0, 0) == (0.0, 1.0)


def test_sign_test_and_binomial_edges() -> None:
    assert sign_test(15, 5) == pytest.approx(0.04138946533203125)
    assert sign_test(0, 6) == pytest.approx(0.03125)
    assert sign_test(7, 23) == pytest.approx(0.005222879350185395)
    assert binomial_two_sided(5, 10) == 1.0
    assert binomial_two_sided(0, 0) == 1.0


def test_paired_test_counts_discordant_tokens() -> None:
    a = [True] * 10 + [False] * 2 + [True] * 50 + [False] * 5
    b = [False] * 10 + [True] * 2 + [True] * 50 + [False] * 5
    assert discordant(a, b) == (10, 2)
    result = paired_test(a, b)
    assert result["only_a_correct"] == 10 and result["only_b_correct"] == 2
    assert math.isclose(result["p_exact"], mcnemar_exact(10, 2))
    with pytest.raises(ValueError):
        discordant([True], [True, False])


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(95, 100)
    # scipy.stats.binomtest(95, 100).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((0.8882495307680809, 0.978456320845632), rel=1e-12)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(20, 20)[0] == pytest.approx(20 / (20 + 1.959963984540054 ** 2))
    assert wilson_interval(3, 0) == (0.0, 1.0)
    narrow, wide = wilson_interval(970, 1000), wilson_interval(97, 100)
    assert wide[0] < narrow[0] < 0.97 < narrow[1] < wide[1]
