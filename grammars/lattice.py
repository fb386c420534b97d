"""Reading lattices: the set of readings of one token as a union of word "sausages".

A `Path` is a tuple of slots; a slot is a tuple of alternative strings (each zero or more words; "" means
the slot may be silent). A `WordSet` slot is a sorted tuple that also carries its strings as a frozenset:
`collapse` turns a small, often reused lattice (a year, a day and month) into one such slot, cached by the
class modules, so a check matches it with a set lookup instead of walking its paths. A token's lattice is
a list of paths. Small lattices are materialized into a set
of strings (checks are a set lookup); large ones (twelve zeros read digit by digit have 3^12 readings) are
checked by running the reading's words through the sausages, and enumerated lazily with a cap.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator

Slot = tuple[str, ...]
Path = tuple[Slot, ...]
Lattice = list[Path]

#: Lattices with at most this many paths are materialized as a set of strings.
MATERIALIZE_LIMIT = 4096


_SPACES = operator.methodcaller("count", " ")


class WordSet(tuple):
    """A slot whose alternatives are also held as a frozenset (`members`), with the most words in one."""

    members: frozenset[str]
    max_words: int

    def __new__(cls, strings: Iterable[str]) -> WordSet:
        unique = frozenset(strings)
        slot = super().__new__(cls, sorted(unique))
        slot.members = unique
        slot.max_words = max(map(_SPACES, unique), default=-1) + 1
        return slot


def collapse(lattice: Lattice, limit: int = 512) -> Lattice:
    """A small lattice as one path of one `WordSet` slot (unchanged when it has more than `limit` paths)."""
    if not lattice or count(lattice) > limit:
        return lattice
    return [(WordSet(text for path in lattice for text in path_strings(path) if text),)]


def path_strings(path: Path) -> list[str]:
    """Every string of one path (with repeats), built slot by slot."""
    results = [""]
    for slot in path:
        if len(slot) == 1:
            choice = slot[0]
            if choice:
                results = [f"{r} {choice}" if r else choice for r in results]
        else:
            results = [(f"{r} {c}" if r else c) if c else r for r in results for c in slot]
    return results


def words(*choices: str) -> Lattice:
    """A lattice of one slot with these alternatives."""
    return [(tuple(dict.fromkeys(choices)),)] if choices else []


def cat(*parts: Lattice) -> Lattice:
    """Concatenation: every path of the first part followed by every path of the next, and so on."""
    result: Lattice = [()]
    for part in parts:
        if len(part) == 1:
            (right,) = part
            if not right or right == (("",),):
                continue  # a silent slot adds nothing
            result = [left + right for left in result]
        else:
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


#: Kept for callers that cleared it between runs (benchmarks); membership no longer splits slots.
_SPLIT: dict = {}


def _set_slot(slot: WordSet, positions: list[int], reading: str, last: bool) -> list[int]:
    """Offsets after matching a `WordSet` slot from each of `positions`."""
    members = slot.members
    end = len(reading)
    following = [start for start in positions if "" in members]
    for start in positions:
        if last:
            if reading[start:] in members:
                following.append(end)
            continue
        stop = start
        for _ in range(slot.max_words):
            space = reading.find(" ", stop)
            if space < 0:
                if reading[start:] in members:
                    following.append(end)
                break
            if reading[start:space] in members:
                following.append(space + 1)
            stop = space + 1
    return following


def path_accepts(path: Path, reading: str) -> bool:
    """Whether a reading (words joined by single spaces) is one of the path's strings: a small NFA run over
    character offsets, matching each slot's choices with `str.startswith` (no splitting, no slicing) and
    `WordSet` slots with set lookups."""
    positions = [0]
    end = len(reading)
    startswith = reading.startswith
    last_index = len(path) - 1
    for index, slot in enumerate(path):
        if type(slot) is WordSet:
            following = _set_slot(slot, positions, reading, index == last_index)
        else:
            following = []
            for choice in slot:
                if not choice:
                    following.extend(positions)
                    continue
                size = len(choice)
                for start in positions:
                    if startswith(choice, start):
                        stop = start + size
                        if stop == end:
                            following.append(end)
                        elif reading[stop] == " ":
                            following.append(stop + 1)
        if not following:
            return False
        positions = following if len(following) < 2 else list(set(following))
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
            self._strings = frozenset(text for path in self.lattice for text in path_strings(path) if text)
        return self._strings

    def __contains__(self, reading: str) -> bool:
        # The first check of a token runs the reading through the sausages (cheaper than listing every
        # reading); a token checked again is materialized so later checks are set lookups.
        if self._strings is not None:
            return reading in self._strings
        self._checks += 1
        if self._checks > 1 and self.strings is not None:
            return reading in self.strings
        return bool(reading) and any(path_accepts(path, reading) for path in self.lattice)

    def __bool__(self) -> bool:
        return bool(self.lattice) and self.size > 0

    def first(self, limit: int) -> list[str]:
        """Up to `limit` distinct readings (sorted when the lattice was materialized)."""
        if self.strings is not None:
            return sorted(self.strings)[:limit]
        return list(iter_strings(self.lattice, limit))
