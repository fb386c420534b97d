"""λ per semiotic class: `--lambda 5,MEASURE=20,MONEY=0` — a default weight, then CLASS=λ for the classes that
do better with another (chosen on dev by `tnforge sweep-lambda`: `chosen_per_class`). A token's class is the
one its batch carries (the dataset's class column, or the tagger's); a token without one gets the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tnforge.schemas.classes import UNION


@dataclass(frozen=True)
class ClassWeights:
    """A default λ and per-class λ overrides (sorted by class)."""

    default: float
    by_class: tuple[tuple[str, float], ...] = ()

    def of(self, cls: str | None) -> float:
        """The λ of a token of class `cls` (None, a union of classes or another class: the default)."""
        if cls is None or UNION in cls:
            return self.default
        return dict(self.by_class).get(cls, self.default)

    def __str__(self) -> str:
        return ",".join([f"{self.default:g}", *(f"{cls}={weight:g}" for cls, weight in self.by_class)])

    def __format__(self, spec: str) -> str:
        return str(self)

    def __bool__(self) -> bool:
        return bool(self.default) or any(weight for _cls, weight in self.by_class)


#: What `--lambda` holds: one λ for every token, or λ per class.
Weight = float | ClassWeights


def parse_lambda(text: str | float) -> Weight:
    """"5" → 5.0; "5,MEASURE=20,MONEY=0" → ClassWeights (ValueError for anything else or a negative λ)."""
    if isinstance(text, (int, float)):
        text = str(text)
    default: float | None = None
    overrides: dict[str, float] = {}
    for part in (p.strip() for p in str(text).split(",")):
        name, equals, value = part.rpartition("=") if "=" in part else ("", "", part)
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if weight < 0 or (equals and not name.strip()) or (not equals and default is not None):
            raise ValueError(f"{text!r}: give λ as a number (5) or a default then CLASS=λ (5,MEASURE=20,MONEY=0)")
        if equals:
            overrides[name.strip().upper()] = weight
        else:
            default = weight
    if default is None:
        raise ValueError(f"{text!r}: give the default λ first (5,MEASURE=20)")
    return ClassWeights(default, tuple(sorted(overrides.items()))) if overrides else default


def row_weights(weight: Weight, classes: Sequence[str | None] | None, rows: int) -> list[float]:
    """The λ of each of a batch's `rows` tokens."""
    if not isinstance(weight, ClassWeights):
        return [float(weight)] * rows
    if classes is None:
        return [weight.default] * rows
    table = dict(weight.by_class)  # once per batch, not per token
    return [weight.default if cls is None or UNION in cls else table.get(cls, weight.default) for cls in classes]


def as_json(weight: Weight) -> Any:
    """λ as reports record it: a number, or "5,MEASURE=20"."""
    return str(weight) if isinstance(weight, ClassWeights) else weight


def chosen_per_class(rows: Sequence[Mapping[str, Any]]) -> ClassWeights | float:
    """λ per class from a sweep's rows (`comparison.sweep_rows`): the default is the λ with the fewest errors
    over every token (then the fewest unrecoverable, then the smallest λ); a class gets its own λ only where it
    makes strictly fewer (errors, unrecoverable) in that class than the default does."""
    if not rows:
        raise ValueError("an empty sweep chooses nothing")

    def total(row: Mapping[str, Any]) -> tuple:
        return row["errors"], row.get("unrecoverable") or 0, row["lambda"]

    best = min(rows, key=total)
    overrides: dict[str, float] = {}
    for cls in sorted({c for row in rows for c in row.get("class_errors", {})}):
        own = min(rows, key=lambda row, cls=cls: (*_class_errors(row, cls), row["lambda"]))
        if _class_errors(own, cls) < _class_errors(best, cls):
            overrides[cls] = own["lambda"]
    return ClassWeights(best["lambda"], tuple(overrides.items())) if overrides else best["lambda"]


def _class_errors(row: Mapping[str, Any], cls: str) -> tuple[int, int]:
    errors, unrecoverable = row["class_errors"].get(cls, (0, 0))
    return errors, unrecoverable or 0
