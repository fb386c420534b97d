"""Learning curves: nested training subsets in a stable order, a power-law fit of error against training size
with its extrapolation to a target error (and the fit's spread), and which errors are label disagreements —
tokens whose written form the training data holds with another class. Pure Python and numpy."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tnforge.hashing import stable_hash64


def nested_subset(keys: Sequence[str], fraction: float, seed: int = 9) -> list[int]:
    """Indices, in input order, of the first round(fraction · n) items (at least one) of a fixed order: the items
    sorted by a stable hash of their key, ties by position. A larger fraction holds every item of a smaller one,
    and 1 keeps every item."""
    if not 0 < fraction <= 1:
        raise ValueError(f"training fraction {fraction} is not in (0, 1]")
    if not keys:
        return []
    order = sorted(range(len(keys)), key=lambda i: (stable_hash64(keys[i], seed=seed), i))
    return sorted(order[: max(1, round(fraction * len(keys)))])


@dataclass(frozen=True)
class PowerLaw:
    """err(n) = a · n^(−b)."""

    a: float
    b: float

    def error(self, n: float) -> float:
        return self.a * n ** -self.b

    def size_at(self, error: float) -> float:
        """The n where the curve reaches `error` (inf when it never falls: b ≤ 0)."""
        if self.b <= 0:
            return math.inf
        return (self.a / error) ** (1 / self.b)


def fit_power_law(sizes: Sequence[float], errors: Sequence[float]) -> PowerLaw:
    """Least squares of log(err) on log(n): at least two distinct sizes, every error rate > 0."""
    if len(set(sizes)) < 2 or len(sizes) != len(errors):
        raise ValueError("a power-law fit needs at least two distinct sizes, one error rate each")
    if min(errors) <= 0 or min(sizes) <= 0:
        raise ValueError("a power-law fit in log-log needs every size and error rate > 0")
    slope, intercept = np.polyfit(np.log(np.asarray(sizes, dtype=float)), np.log(np.asarray(errors, dtype=float)), 1)
    return PowerLaw(float(math.exp(intercept)), float(-slope))


def extrapolate(sizes: Sequence[float], errors: Sequence[float], lows: Sequence[float], highs: Sequence[float],
                target: float) -> dict[str, Any]:
    """Fit err = a·n^(−b) to the measured points and report the size at `target` error, with its spread: the
    fits leaving one point out (when there are ≥ 3), the fit to the three largest sizes only (the local slope
    at the measured end; when there are ≥ 4) and the fits to the intervals' lower and upper ends.
    `monotone` says whether the error falls (or stays) with every larger size; if not, the fit says little."""
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    central = fit_power_law(sizes, errors)
    result: dict[str, Any] = {
        "target": target, "a": central.a, "b": central.b, "size": central.size_at(target),
        "monotone": all(errors[i] >= errors[j] for i, j in zip(order, order[1:], strict=False)),
        "residuals": [math.log(e) - math.log(central.error(n)) for n, e in zip(sizes, errors, strict=True)],
    }
    if len(sizes) >= 3:
        left_out = [fit_power_law([n for j, n in enumerate(sizes) if j != i], [e for j, e in enumerate(errors) if j != i])
                    for i in range(len(sizes))]
        result["leave_one_out"] = [{"left_out": sizes[i], "b": f.b, "size": f.size_at(target)}
                                   for i, f in enumerate(left_out)]
    if len(sizes) >= 4:
        last = order[-3:]
        local = fit_power_law([sizes[i] for i in last], [errors[i] for i in last])
        result["largest_three"] = {"a": local.a, "b": local.b, "size": local.size_at(target)}
    if min(lows) > 0:
        low = fit_power_law(sizes, lows)
        result["lower_ends"] = {"a": low.a, "b": low.b, "size": low.size_at(target)}
    high = fit_power_law(sizes, highs)
    result["upper_ends"] = {"a": high.a, "b": high.b, "size": high.size_at(target)}
    return result


def form_classes(tokens: Iterable[Sequence[str]], classes: Iterable[Sequence[str]]) -> dict[str, Counter[str]]:
    """Written form → how often the sentences give it each class."""
    table: dict[str, Counter[str]] = {}
    for sentence, labels in zip(tokens, classes, strict=True):
        for form, cls in zip(sentence, labels, strict=True):
            table.setdefault(form, Counter())[cls] += 1
    return table


def disagreement(table: dict[str, Counter[str]], form: str, gold: str) -> str:
    """How the training data holds a token's form: 'unseen', 'gold only', 'gold and other' (the form is
    ambiguous there) or 'other only' (never with the gold class). The last two are label disagreements."""
    seen = table.get(form)
    if not seen:
        return "unseen"
    if set(seen) == {gold}:
        return "gold only"
    return "gold and other" if gold in seen else "other only"
