"""`tnforge build --defer-to-first`: where inputs disagree on how a written token is read, the first input leads.

A corpus added to another (`../shared/data/proteno_en` beside the sample) brings its own conventions: it reads
"Centre" as "centre" where the first reads "center", a page's "." as "point" where the first is silent. With
the first input leading, a train token of a later input whose written form the first input's train split
reads, but never the way this token is read, is *deferred*: left out of the examples and positive pairs (it
stays in its sentence as context, and in the sentences dataset), counted per class in the manifest. Written
forms the first input never shows are kept as the later input reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Joins a written form and its reading into one key (a character no corpus field holds).
_JOIN = "\x1f"


def _pairs(befores: pa.Array, afters: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(befores, afters, _JOIN)


@dataclass
class LeadingReadings:
    """The (written form, reading) pairs of the leading input's train tokens (pass 1; mergeable)."""

    befores: set[str] = field(default_factory=set)
    pairs: set[str] = field(default_factory=set)

    def add(self, befores: pa.Array, afters: pa.Array) -> None:
        self.befores.update(pc.unique(befores).to_pylist())
        self.pairs.update(pc.unique(_pairs(befores, afters)).to_pylist())

    def merge(self, other: LeadingReadings) -> LeadingReadings:
        self.befores |= other.befores
        self.pairs |= other.pairs
        return self


@dataclass(frozen=True)
class Deference:
    """What pass 2 needs to defer later inputs' tokens to the leading input's readings."""

    leading: frozenset[str]
    befores: pa.Array
    pairs: pa.Array

    @classmethod
    def of(cls, leading: frozenset[str], readings: LeadingReadings | None) -> Deference:
        readings = readings or LeadingReadings()
        return cls(leading, pa.array(sorted(readings.befores), pa.string()), pa.array(sorted(readings.pairs), pa.string()))

    def deferred(self, source: str, befores: pa.Array, afters: pa.Array) -> np.ndarray:
        """Which tokens of a file with this `source` the leading input reads, but never as they are read."""
        if source in self.leading or not len(befores):
            return np.zeros(len(befores), dtype=bool)
        known = pc.is_in(befores, value_set=self.befores).to_numpy(zero_copy_only=False)
        same = pc.is_in(_pairs(befores, afters), value_set=self.pairs).to_numpy(zero_copy_only=False)
        return known & ~same
