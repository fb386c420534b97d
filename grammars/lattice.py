"""Reading lattices: the set of readings of one token as a union of word "sausages".

A `Path` is a tuple of slots; a slot is a tuple of alternative strings (each zero or more words; "" means
the slot may be silent). A token's lattice is a list of paths. Small lattices are materialized into a set
of strings (checks are a set lookup); large ones (twelve zeros read digit by digit have 3^12 readings) are
checked by running the reading's words through the sausages, and enumerated lazily with a cap.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

Slot = tuple[str, ...]
Path = tuple[Slot, ...]
Lattice = list[Path]

#: Lattices with at most this many paths are materialized as a set of strings.
MATERIALIZE_LIMIT = 4096


def words(*choices: str) -> Lattice:
    """A lattice of one slot with these alternatives."""
    return [(tuple(dict.fromkeys(choices)),)] if choices else []


def cat(*parts: Lattice) -> Lattice:
    """Concatenation: every path of the first part followed by every path of the next, and so on."""
    result: Lattice = [()]
    for part in parts:
        result = [left + right for left in result for right in part]
    return result


def alt(*parts: Iterable[Path]) -> Lattice:
    """Union of lattices."""
    return [path for part in parts for path in part]


def path_count(path: Path) -> int:
    count = 1
    for slot in path:
        count *= len(slot)
    return count


def count(lattice: Lattice) -> int:
    """Number of paths (an upper bound on distinct readings)."""
    return sum(path_count(p) for p in lattice)


def _join(parts: Iterable[str]) -> str:
    return " ".join(p for p in parts if p)


def iter_strings(lattice: Lattice, limit: int | None = None) -> Iterator[str]:
    """Distinct readings, lazily, at most `limit`."""
    seen: set[str] = set()
    for path in lattice:
        for combo in itertools.product(*path):
            text = _join(combo)
            if text and text not in seen:
                seen.add(text)
                yield text
                if limit is not None and len(seen) >= limit:
                    return


_SPLIT: dict[Slot, tuple[tuple[tuple[str, ...], int], ...]] = {}


def _split_slot(slot: Slot) -> tuple[tuple[tuple[str, ...], int], ...]:
    """The slot's choices as (word tuple, length), memoized (slots repeat across tokens: months, years)."""
    found = _SPLIT.get(slot)
    if found is None:
        found = tuple((words, len(words)) for words in (tuple(choice.split()) for choice in slot))
        if len(_SPLIT) < 200_000:
            _SPLIT[slot] = found
    return found


def path_accepts(path: Path, reading: tuple[str, ...]) -> bool:
    """Whether the words of a reading are one of the path's strings (a small NFA run)."""
    positions = {0}
    end = len(reading)
    for slot in path:
        following: set[int] = set()
        for choice, size in _split_slot(slot):
            for start in positions:
                stop = start + size
                if stop <= end and (size == 0 or reading[start:stop] == choice):
                    following.add(stop)
        if not following:
            return False
        positions = following
    return end in positions


class TokenReadings:
    """The readings of one (token, class): a lattice, materialized when small."""

    __slots__ = ("lattice", "_size", "_strings", "_checks")

    def __init__(self, lattice: Lattice):
        self.lattice = lattice
        self._size = -1
        self._strings: frozenset[str] | None = None
        self._checks = 0

    @property
    def size(self) -> int:
        """Number of paths (computed on first use)."""
        if self._size < 0:
            self._size = count(self.lattice)
        return self._size

    @property
    def strings(self) -> frozenset[str] | None:
        """All readings as a set, built on demand; None when there are too many."""
        if self._strings is None and self.size <= MATERIALIZE_LIMIT:
            self._strings = frozenset(iter_strings(self.lattice))
        return self._strings

    def __contains__(self, reading: str) -> bool:
        # The first check of a token runs the reading through the sausages (cheaper than listing every
        # reading); a token checked again is materialized so later checks are set lookups.
        if self._strings is not None:
            return reading in self._strings
        self._checks += 1
        if self._checks > 1 and self.strings is not None:
            return reading in self.strings
        split = tuple(reading.split())
        return bool(split) and any(path_accepts(path, split) for path in self.lattice)

    def __bool__(self) -> bool:
        return bool(self.lattice) and self.size > 0

    def first(self, limit: int) -> list[str]:
        """Up to `limit` distinct readings (sorted when the lattice was materialized)."""
        if self.strings is not None:
            return sorted(self.strings)[:limit]
        return list(iter_strings(self.lattice, limit))
