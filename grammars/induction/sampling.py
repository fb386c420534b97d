"""Test numbers drawn as in Gorman & Sproat (2016), Appendix A, from a seeded numpy generator.

A number's length in digits is drawn from a Yule–Simon distribution (ρ = 1: P(k) = 1 / (k (k + 1)); drawn as
a geometric with success probability e^-W, W exponential with rate ρ), redrawn when over `max_digits`; its
digits are uniform (no leading zero); then its trailing digits are rounded: a uniform count of them, fewer
than the length, becomes zeros. Duplicates and excluded numbers (the training examples) are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def draw_numbers(count: int, seed: int, max_digits: int = 9, exclude: Iterable[int] = (), rho: float = 1.0) -> list[int]:
    """`count` distinct numbers below 10^max_digits, in the order drawn."""
    rng = np.random.default_rng(seed)
    excluded = set(exclude)
    found: dict[int, None] = {}
    tries = 0
    while len(found) < count:
        tries += 1
        if tries > 1000 * count:
            raise ValueError(f"cannot draw {count} distinct numbers below 10^{max_digits} outside the {len(excluded)} excluded")
        length = int(rng.geometric(np.exp(-rng.exponential(1.0 / rho))))
        if length > max_digits:
            continue
        digits = [int(rng.integers(1, 10))] + [int(d) for d in rng.integers(0, 10, length - 1)]
        rounded = int(rng.integers(0, length))
        if rounded:
            digits[-rounded:] = [0] * rounded
        number = int("".join(map(str, digits)))
        if number not in excluded:
            found.setdefault(number)
    return list(found)
