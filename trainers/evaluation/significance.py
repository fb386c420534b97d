"""Paired significance tests for comparing two systems on the same tokens (the paper's Table 1).

With b = tokens only system A gets right and c = tokens only system B gets right (discordant pairs):
* McNemar exact: two-sided binomial test of b against Binomial(b + c, ½);
* McNemar χ²: (|b − c| − 1)² / (b + c) with continuity correction (or (b − c)² / (b + c) without), 1 d.f.;
* sign test: the same binomial test on wins and losses of any paired scores (ties dropped).
And the Wilson score interval of one proportion (an accuracy from k right of n).
Pure Python (math.comb / math.erfc); no scipy needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def binomial_two_sided(k: int, n: int) -> float:
    """Two-sided exact p-value of k successes in n fair trials: min(1, 2·P(X ≤ min(k, n − k)))."""
    if n <= 0:
        return 1.0
    low = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n
    return min(1.0, 2.0 * tail)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p-value (two-sided) of discordant counts b and c."""
    return binomial_two_sided(b, b + c)


def mcnemar_chi2(b: int, c: int, correction: bool = True) -> tuple[float, float]:
    """McNemar χ² statistic (1 d.f., with continuity correction by default) and its p-value."""
    if b + c == 0:
        return 0.0, 1.0
    difference = abs(b - c) - (1 if correction else 0)
    statistic = max(difference, 0) ** 2 / (b + c)
    return statistic, math.erfc(math.sqrt(statistic / 2))


def sign_test(wins: int, losses: int) -> float:
    """Two-sided sign test p-value (ties already dropped)."""
    return binomial_two_sided(wins, wins + losses)


def discordant(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> tuple[int, int]:
    """(b, c): tokens only A gets right, tokens only B gets right."""
    if len(correct_a) != len(correct_b):
        raise ValueError(f"paired outcomes differ in length: {len(correct_a)} vs {len(correct_b)}")
    b = sum(1 for x, y in zip(correct_a, correct_b, strict=True) if x and not y)
    c = sum(1 for x, y in zip(correct_a, correct_b, strict=True) if y and not x)
    return b, c


def paired_test(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> dict[str, Any]:
    """McNemar (exact and χ²) of two systems' per-token correctness on the same tokens."""
    b, c = discordant(correct_a, correct_b)
    statistic, p_chi2 = mcnemar_chi2(b, c)
    return {"only_a_correct": b, "only_b_correct": c, "p_exact": mcnemar_exact(b, c), "chi2": statistic,
            "p_chi2": p_chi2}


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% for the default z); (0, 1) when there are no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
